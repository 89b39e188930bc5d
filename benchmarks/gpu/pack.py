"""What the GPU benchmark takes to a lent device machine, which reaches no registry and takes 64 MiB per call.

``python -m benchmarks.gpu.pack`` writes ``.gpu/`` (ignored by git; ``carry`` it) beside the checkout:

- ``llama.cpp.tar.gz``: the llama.cpp sources vendored in the pinned llama-cpp-python sdist, trimmed to what
  ``libllama`` and ``llama-server`` build from (no tests, docs, models or examples, and no backends but the CPU,
  CUDA and Vulkan ones; the tools' folder whole, since its CMake file adds every tool): built there once for that
  card (benchmarks/gpu/device.sh), for llama-cpp-python to load through ``LLAMA_CPP_LIB_PATH`` and for
  llama-server;
- ``llama_cpp/``: llama-cpp-python's Python package, without libraries;
- ``wheels/``: superfluid's runtime packages the device image lacks, for CPython 3.12 (the image's), at the versions
  installed here;
- ``tokenizer.gguf``: the bundled model's vocabulary and chat template without its weights, which
  conformance/random_models.py writes the benchmark's models with (``SUPERFLUID_TOKENIZER_GGUF``).

It prints the size, which must stay under the call's limit with the checkout.
"""

from __future__ import annotations

import importlib.metadata
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import gguf
from conformance.random_models import bundled_gguf

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / ".gpu"
SDIST = ROOT / "benchmarks" / ".build" / "src"
LIMIT = 48 * 1024 * 1024
"""What the payload may take of a call's 64 MiB, the checkout's files being the rest."""
WHEELS = ("connexion", "starlette", "uvicorn", "httptools", "python-multipart", "asgiref", "inflection", "jsonschema",
          "referencing", "jsonschema-specifications", "rpds-py", "swagger-ui-bundle", "llguidance", "fastjsonschema",
          "gguf")
"""superfluid's runtime packages the device image does not hold (its list: the device tool's KINDS.md)."""
PLATFORMS = ("manylinux_2_17_x86_64", "manylinux2014_x86_64", "manylinux_2_24_x86_64", "manylinux_2_28_x86_64",
             "manylinux_2_31_x86_64", "manylinux_2_34_x86_64", "manylinux_2_5_x86_64", "manylinux1_x86_64", "any")
KEEP = ("CMakeLists.txt", "CMakePresets.json", "cmake", "common", "include", "src", "vendor", "ggml/CMakeLists.txt",
        "ggml/cmake", "ggml/include", "ggml/src/CMakeLists.txt", "ggml/src/ggml-cpu", "ggml/src/ggml-cuda",
        "ggml/src/ggml-vulkan", "ggml/src/ggml-blas", "tools", "app", "scripts/ui-assets.cmake", "licenses",
        "LICENSE")
"""What of vendor/llama.cpp the build needs; in ``ggml/src`` also every top-level file (the core)."""


def sdist() -> Path:
    version = importlib.metadata.version("llama-cpp-python").split("+")[0]
    folder = SDIST / f"llama_cpp_python-{version}"
    if not folder.exists():
        SDIST.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:",
                        f"llama-cpp-python=={version}", "-d", str(SDIST)], check=True)
        with tarfile.open(SDIST / f"llama_cpp_python-{version}.tar.gz") as archive:
            archive.extractall(SDIST, filter="data")
    return folder


def trimmed_sources(source: Path, target: Path) -> None:
    llama = source / "vendor" / "llama.cpp"
    with tarfile.open(target, "w:gz") as archive:
        for name in KEEP:
            if (llama / name).exists():
                archive.add(llama / name, arcname=f"llama.cpp/{name}")
        for path in (llama / "ggml" / "src").iterdir():
            if path.is_file():
                archive.add(path, arcname=f"llama.cpp/ggml/src/{path.name}")


def wheels(target: Path) -> None:
    target.mkdir(parents=True, exist_ok=True)
    pinned = [f"{name}=={importlib.metadata.version(name)}" for name in WHEELS]
    platforms = [part for platform in PLATFORMS for part in ("--platform", platform)]
    subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
                    "--python-version", "3.12", "--implementation", "cp", *platforms, "-d", str(target), *pinned],
                   check=True)


def tokenizer(target: Path) -> None:
    """The bundled GGUF's metadata (vocabulary, merges, template) with no tensors."""
    reader = gguf.GGUFReader(bundled_gguf())
    arch = str(reader.fields["general.architecture"].contents())
    writer = gguf.GGUFWriter(target, arch)
    for name, field in reader.fields.items():
        if name.startswith("tokenizer.") or name == "general.name":
            kind = field.types[0]
            sub = field.types[-1] if kind == gguf.GGUFValueType.ARRAY else None
            writer.add_key_value(name, field.contents(), kind, sub)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.close()


def main() -> None:
    shutil.rmtree(OUT, ignore_errors=True)
    OUT.mkdir()
    exclude = ROOT / ".git" / "info" / "exclude"
    if exclude.exists() and "/.gpu/" not in exclude.read_text():
        with exclude.open("a") as handle:
            handle.write("/.gpu/\n")
    source = sdist()
    trimmed_sources(source, OUT / "llama.cpp.tar.gz")
    shutil.copytree(source / "llama_cpp", OUT / "llama_cpp", ignore=shutil.ignore_patterns("lib", "__pycache__"))
    wheels(OUT / "wheels")
    tokenizer(OUT / "tokenizer.gguf")
    size = sum(p.stat().st_size for p in OUT.rglob("*") if p.is_file())
    print(f"{OUT}: {size / 2**20:.1f} MiB (limit {LIMIT / 2**20:.0f} MiB)")
    if size > LIMIT:
        raise SystemExit("the payload is too big for a device call")


if __name__ == "__main__":
    main()
