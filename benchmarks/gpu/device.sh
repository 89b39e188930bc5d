#!/usr/bin/env bash
# The GPU benchmark on a lent device machine, from the checkout's root with .gpu/ carried (benchmarks/gpu/pack.py):
# superfluid's runtime packages from the carried wheels, llama.cpp built once for the card from the carried sources
# (libllama for llama-cpp-python through LLAMA_CPP_LIB_PATH, and llama-server), then
# benchmarks/gpu/side_by_side.py with its record copied to $OUT.
#
#   BACKEND=cuda (default) or vulkan (how it is tried here, on Mesa's software device)
#   CUDA_ARCH=90 (the H100's)   SIZE=1b|8b|small   LEVELS=8,32,1,64   RECORD=gpu-h100-1b
#   WORK=/tmp/sfgpu (the build and the models)   PYTHON=python3
set -euo pipefail
root=$(pwd)
work=${WORK:-/tmp/sfgpu}
backend=${BACKEND:-cuda}
size=${SIZE:-1b}
python=${PYTHON:-python3}
record=${RECORD:-gpu-$backend-$size}
mkdir -p "$work/site"
started=$(date +%s)

if ! "$python" -c "import connexion, llguidance, fastjsonschema, gguf, jsonschema" 2>/dev/null; then
  "$python" -m pip install -q --no-index --no-deps --no-compile --target "$work/site" .gpu/wheels/*.whl
fi
"$python" -c "import llama_cpp" 2>/dev/null || cp -r .gpu/llama_cpp "$work/site/"
export PYTHONPATH="$work/site:$root/src:$root${PYTHONPATH:+:$PYTHONPATH}"

if [ ! -x "$work/build/bin/llama-server" ]; then
  tar xzf .gpu/llama.cpp.tar.gz -C "$work"
  case "$backend" in
    cuda) flags=(-DGGML_CUDA=ON "-DCMAKE_CUDA_ARCHITECTURES=${CUDA_ARCH:-90}") ;;
    vulkan) flags=(-DGGML_VULKAN=ON ${VULKAN_FLAGS:-}) ;;
    *) echo "BACKEND must be cuda or vulkan" >&2; exit 2 ;;
  esac
  cmake -S "$work/llama.cpp" -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=ON -DLLAMA_CURL=OFF \
    -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=ON -DLLAMA_BUILD_SERVER=ON \
    "${flags[@]}" > "$work/cmake.log"
  cmake --build "$work/build" --target llama llama-server -j "$(nproc)" > "$work/build.log" 2>&1
  echo "built llama.cpp ($backend) in $(( $(date +%s) - started )) s"
fi
export LLAMA_CPP_LIB_PATH="$work/build/bin" LD_LIBRARY_PATH="$work/build/bin${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export SUPERFLUID_TOKENIZER_GGUF="$root/.gpu/tokenizer.gguf" PYTHONUNBUFFERED=1

"$python" -m superfluid.cli serve --list-devices
"$python" -m benchmarks.gpu.side_by_side --llama-server "$work/build/bin/llama-server" --size "$size" \
  --levels "${LEVELS:-8,32,1,64}" --models "$work" --record "$record"
if [ -n "${OUT:-}" ]; then cp "benchmarks/results/$record.txt" "$OUT/"; fi
echo "done in $(( $(date +%s) - started )) s"
