"""What llama.cpp says while it places a model: the layers it offloaded and the buffers it allocated.

llama.cpp reports per-device memory only in its log (``llama_get_memory_breakdown`` is C++ and returns a
``std::map``, which ctypes cannot take): ``load_tensors: offloaded 10/31 layers to GPU``, then one line per
buffer with the buffer type's name and its size in MiB, two decimals (``Vulkan0 model buffer size = 92.10 MiB``,
``KV buffer size``, ``RS buffer size`` for recurrent state, ``compute buffer size``, ``output buffer size``).
``capture`` reads those lines while one model and its contexts are made, loads taking turns (a lock), with the
model's parameters or with ``no_alloc``, which sizes every buffer without allocating it (how the fitting tries a
layer count). Every other line goes where llama-cpp-python's own callback sends it.
"""

from __future__ import annotations

import contextlib
import ctypes
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field

import llama_cpp

_OFFLOADED = re.compile(r"offloaded (\d+)/(\d+) layers to GPU")
_BUFFER = re.compile(r"(\S+)\s+(model|KV|RS|compute|output) buffer size =\s*([\d.]+) MiB")
KINDS = {"model": "weights", "KV": "kv", "RS": "kv", "compute": "compute", "output": "compute"}
"""Buffer kinds as the reports group them: weights, KV cells (recurrent state with them), compute."""
MIB = 1024 * 1024


@dataclass
class PlacementLog:
    """The lines of one capture, parsed."""

    offloaded: tuple[int, int] | None = None
    """(layers offloaded, layers that could be), when the model load said."""
    buffers: list[tuple[str, str, int]] = field(default_factory=list)
    """(buffer type name, kind as in ``KINDS``'s values, bytes) of each buffer, in the order reported."""

    def feed(self, line: str) -> None:
        found = _OFFLOADED.search(line)
        if found:
            self.offloaded = (int(found.group(1)), int(found.group(2)))
            return
        found = _BUFFER.search(line)
        if found:
            size = round(float(found.group(3)) * MIB)
            self.buffers.append((found.group(1), KINDS[found.group(2)], size))


_lock = threading.Lock()
_current: list[PlacementLog] = []
_installed: list[object] = []


@llama_cpp.llama_log_callback  # type: ignore[untyped-decorator]
def _callback(level: int, text: bytes, user_data: ctypes.c_void_p) -> None:
    if _current:
        _current[-1].feed(text.decode("utf-8", "replace"))
    from llama_cpp import _logger

    _logger.llama_log_callback(level, text, user_data)


def _install() -> None:
    if not _installed:
        llama_cpp.llama_log_set(_callback, ctypes.c_void_p(0))
        _installed.append(_callback)


@contextlib.contextmanager
def capture() -> Iterator[PlacementLog]:
    """The placement lines llama.cpp logs inside the block (one capture at a time: loads take turns)."""
    _install()
    with _lock:
        log = PlacementLog()
        _current.append(log)
        try:
            yield log
        finally:
            _current.pop()
