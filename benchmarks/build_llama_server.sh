#!/usr/bin/env bash
# Build llama.cpp's own llama-server, llama-bench and llama-batched-bench from the llama.cpp sources vendored
# in the pinned llama-cpp-python sdist, so the benchmarks compare against exactly the same llama.cpp, compiled with
# the same -fno-dse as the README's install (without it GCC 12 breaks the AMX kernels; docs/models.md).
# About 12 minutes on 2 cores. Never run by CI; the benchmarks call it when --build is given.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out="$here/.build"
version=$(python3 -c 'import importlib.metadata as m; print(m.version("llama-cpp-python"))' 2>/dev/null || echo 0.3.36)
mkdir -p "$out/src"
if [ ! -d "$out/src/llama_cpp_python-$version" ]; then
  python3 -m pip download --no-deps --no-binary :all: "llama-cpp-python==$version" -d "$out/src" -q
  tar -xzf "$out/src/llama_cpp_python-$version.tar.gz" -C "$out/src"
fi
src="$out/src/llama_cpp_python-$version/vendor/llama.cpp"
cmake -S "$src" -B "$out/cmake" -DCMAKE_BUILD_TYPE=Release -DLLAMA_CURL=OFF -DLLAMA_BUILD_TESTS=OFF \
  -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=ON -DLLAMA_BUILD_SERVER=ON -DGGML_NATIVE=ON \
  -DCMAKE_C_FLAGS=-fno-dse -DCMAKE_CXX_FLAGS=-fno-dse > "$out/cmake.log"
cmake --build "$out/cmake" --target llama-server llama-bench llama-batched-bench -j "$(nproc)" > "$out/build.log"
ls -l "$out/cmake/bin/llama-server" "$out/cmake/bin/llama-bench" "$out/cmake/bin/llama-batched-bench"
