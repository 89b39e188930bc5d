"""The backend devices llama.cpp found: the CPU, and GPUs (CUDA, Vulkan, Metal, HIP) in a build that has them.

llama-cpp-python binds none of ggml's device API, so it is called here through ctypes on the libraries the binding
already loaded (``libggml`` holds the registry, ``libggml-base`` the accessors): the device list, each device's
name, description, type and memory, and its buffer types (which ``--override-tensor`` names). A CPU-only build
lists one device, ``CPU``.

Two traps of the Vulkan backend: it skips a device of CPU type (Mesa's software device, lavapipe) unless
``GGML_VK_VISIBLE_DEVICES`` names it, and lavapipe reports a fixed heap whose free memory is always its total.
What superfluid has placed on a device is therefore counted by superfluid too (``offload.DeviceUse``), and the
memory a new model may take is the smaller of what the device says is free and what superfluid's own count leaves.
"""

from __future__ import annotations

import ctypes
import functools
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import llama_cpp

DEVICE_KINDS = {0: "cpu", 1: "gpu", 2: "igpu", 3: "accel", 4: "meta"}
"""``enum ggml_backend_dev_type``: a GPU with its own memory, one sharing the host's, an accelerator the CPU
backend uses (BLAS, AMX), and a device wrapping several others."""
OFFLOAD_KINDS = ("gpu", "igpu")
"""Devices that layers are offloaded to (llama.cpp's own choice of devices when none is named)."""


@dataclass(frozen=True)
class BackendDevice:
    """One device as ggml reports it now."""

    index: int
    name: str
    """``CPU``, ``CUDA0``, ``Vulkan0``, ``MTL0``, ``ROCm0``..."""
    description: str
    kind: str
    """One of ``DEVICE_KINDS``'s values."""
    free: int
    total: int
    handle: int
    """The ``ggml_backend_dev_t``, for the model parameters."""

    @property
    def offloads(self) -> bool:
        return self.kind in OFFLOAD_KINDS

    def summary(self) -> dict[str, Any]:
        """What /props, /v1/models and --list-devices show of it."""
        return {"name": self.name, "description": self.description, "type": self.kind, "free_bytes": self.free,
                "total_bytes": self.total}


def library_folder() -> Path:
    """Where llama_cpp loaded llama.cpp's libraries from: its package's, or ``LLAMA_CPP_LIB_PATH`` (a build of
    one's own, as the GPU benchmark uses)."""
    return Path(os.environ.get("LLAMA_CPP_LIB_PATH") or Path(llama_cpp.__file__).parent / "lib")


@functools.cache
def _api() -> Any:
    """ggml's device functions, typed, from the libraries llama_cpp loaded."""
    folder = library_folder()
    libs = [ctypes.CDLL(str(path)) for name in ("libggml.so", "libggml-base.so", "libggml.dylib",
                                                  "libggml-base.dylib") if (path := folder / name).exists()]
    libs.append(llama_cpp.llama_cpp._lib)  # a build with the libraries linked in one

    class Api:
        pass

    api = Api()
    pointer = ctypes.c_void_p
    signatures: dict[str, tuple[Any, list[Any]]] = {
        "ggml_backend_dev_count": (ctypes.c_size_t, []),
        "ggml_backend_dev_get": (pointer, [ctypes.c_size_t]),
        "ggml_backend_dev_name": (ctypes.c_char_p, [pointer]),
        "ggml_backend_dev_description": (ctypes.c_char_p, [pointer]),
        "ggml_backend_dev_type": (ctypes.c_int, [pointer]),
        "ggml_backend_dev_memory": (None, [pointer, ctypes.POINTER(ctypes.c_size_t), ctypes.POINTER(ctypes.c_size_t)]),
        "ggml_backend_dev_buffer_type": (pointer, [pointer]),
        "ggml_backend_dev_host_buffer_type": (pointer, [pointer]),
        "ggml_backend_buft_name": (ctypes.c_char_p, [pointer]),
    }
    for name, (restype, argtypes) in signatures.items():
        for lib in libs:
            function = getattr(lib, name, None)
            if function is not None:
                function.restype, function.argtypes = restype, argtypes
                setattr(api, name, function)
                break
        else:
            raise RuntimeError(f"llama.cpp's libraries do not export {name}")
    return api


def backend_devices() -> list[BackendDevice]:
    """Every device llama.cpp's backends registered, in ggml's order, with their memory now."""
    llama_cpp.llama_backend_init()
    api = _api()
    found = []
    for index in range(int(api.ggml_backend_dev_count())):
        handle = api.ggml_backend_dev_get(index)
        free, total = ctypes.c_size_t(0), ctypes.c_size_t(0)
        api.ggml_backend_dev_memory(handle, ctypes.byref(free), ctypes.byref(total))
        found.append(BackendDevice(
            index=index, name=(api.ggml_backend_dev_name(handle) or b"?").decode(),
            description=(api.ggml_backend_dev_description(handle) or b"").decode(),
            kind=DEVICE_KINDS.get(int(api.ggml_backend_dev_type(handle)), "other"),
            free=int(free.value), total=int(total.value), handle=int(handle)))
    return found


GPU_BACKENDS = ("cuda", "vulkan", "metal", "hip", "musa", "sycl", "opencl", "cann")
"""The names of ggml's GPU backend libraries (``libggml-<name>``)."""


def gpu_build() -> bool:
    """Whether the installed llama-cpp-python was built with a GPU backend (whether or not a device is present
    here: a fleet's head may run where its replicas' GPUs are not)."""
    folder = library_folder()
    return any(next(folder.glob(f"libggml-{name}*"), None) is not None for name in GPU_BACKENDS)


def offload_devices() -> list[BackendDevice]:
    """The devices layers can go to: llama.cpp's choice when none are named (GPUs, integrated ones included)."""
    return [device for device in backend_devices() if device.offloads]


def buffer_types() -> dict[str, tuple[int, str]]:
    """Every device's buffer types by name (``CPU``, ``Vulkan0``, ``CUDA_Host``...): the handle and the device it
    belongs to (a host buffer type counts as the CPU's)."""
    api = _api()
    named: dict[str, tuple[int, str]] = {}
    for device in backend_devices():
        handle = ctypes.c_void_p(device.handle)
        for buft, owner in ((api.ggml_backend_dev_buffer_type(handle), device.name),
                            (api.ggml_backend_dev_host_buffer_type(handle), "CPU")):
            if buft:
                named.setdefault(api.ggml_backend_buft_name(buft).decode(), (int(buft), owner))
    return named


def device_lines(devices: list[BackendDevice]) -> list[str]:
    """One line per device, as ``--list-devices`` and the start log write them."""
    mib = 1024 * 1024
    return [f"{d.name}: {d.description} ({d.kind}, {d.total // mib} MiB, {d.free // mib} MiB free)" for d in devices]
