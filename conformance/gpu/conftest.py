"""Tests of GPU offload, for a llama-cpp-python build with a GPU backend (tox's ``vulkan`` environment builds one
with Vulkan and runs them on Mesa's software device: conformance/vulkan_wheel.py). A CPU-only build, the
default install, cannot run them: there they are not collected, and the ``tests`` environment runs the rest."""

from __future__ import annotations

import os
from pathlib import Path

import llama_cpp

LIBRARIES = Path(os.environ.get("LLAMA_CPP_LIB_PATH") or Path(llama_cpp.__file__).parent / "lib")
GPU_BUILD = any(LIBRARIES.glob("libggml-vulkan*"))
collect_ignore_glob = [] if GPU_BUILD else ["test_*.py"]
