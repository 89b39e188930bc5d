"""llama.cpp calls for the engine thread's hot path that keep the GIL, and a llama_batch over numpy arrays.

ctypes lets the GIL go around every foreign call and takes it back afterwards. Alone that costs nothing; but
while another Python thread is busy (the event loop rendering many streams, a worker validating a big request
body), taking it back waits until that thread lets go: up to the switch interval (5 ms), or the whole of a C
call that holds the GIL. A tick made a dozen such hand-offs per lane (benchmarks/gil.py), and under a busy
thread the engine spent its time waiting for the GIL rather than decoding.

The calls here take microseconds or less (an address lookup, clearing cache cells), so they run with the GIL
held, through ``PYFUNCTYPE`` prototypes of the binding's own entry points. ``llama_decode`` is not among them:
it runs for milliseconds, and other threads should have the GIL meanwhile.
"""

from __future__ import annotations

import ctypes
import mmap
from typing import Any

import llama_cpp
import numpy as np
import numpy.typing as npt


def _held(name: str, restype: Any, *argtypes: Any) -> Any:
    """The binding's entry point ``name`` called without releasing the GIL."""
    entry = ctypes.cast(getattr(llama_cpp.llama_cpp._lib, name), ctypes.c_void_p).value
    assert entry is not None
    return ctypes.PYFUNCTYPE(restype, *argtypes)(entry)


logits_address = _held("llama_get_logits_ith", ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int32)
"""``llama_get_logits_ith`` answering a plain address (0 for none), GIL held."""

memory_seq_rm = _held("llama_memory_seq_rm", ctypes.c_bool, ctypes.c_void_p, ctypes.c_int32, ctypes.c_int32,
                      ctypes.c_int32)
"""``llama_memory_seq_rm(memory, seq, p0, p1)``, GIL held."""

memory_seq_pos_max = _held("llama_memory_seq_pos_max", ctypes.c_int32, ctypes.c_void_p, ctypes.c_int32)
"""``llama_memory_seq_pos_max(memory, seq)``: the last position the sequence holds (-1: none), GIL held."""


class ArrayBatch:
    """A ``llama_batch`` whose arrays are numpy arrays: a tick fills each field with one slice assignment
    instead of one ctypes item assignment per token and field. One sequence id per token.

    The struct points into these arrays, so the object must live as long as the batch is used; numpy frees
    them (never ``llama_batch_free``).
    """

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.tokens = np.zeros(capacity, dtype=np.int32)
        self.positions = np.zeros(capacity, dtype=np.int32)
        self.seqs = np.zeros(capacity, dtype=np.int32)
        self.logits = np.zeros(capacity, dtype=np.int8)
        self._n_seq_id = np.ones(capacity, dtype=np.int32)
        stride = self.seqs.itemsize
        self._seq_pointers = np.array([self.seqs.ctypes.data + i * stride for i in range(capacity)],
                                      dtype=np.uintp)
        self.struct = llama_cpp.llama_batch(
            n_tokens=0,
            token=_pointer(self.tokens, ctypes.c_int32),
            embd=None,
            pos=_pointer(self.positions, ctypes.c_int32),
            n_seq_id=_pointer(self._n_seq_id, ctypes.c_int32),
            seq_id=ctypes.cast(self._seq_pointers.ctypes.data, ctypes.POINTER(ctypes.POINTER(ctypes.c_int32))),
            logits=_pointer(self.logits, ctypes.c_int8),
        )

    def fill(self, tokens: list[int], positions: list[int], seqs: list[int], logits: list[bool]) -> None:
        n = len(tokens)
        if n > self.capacity:
            raise ValueError(f"{n} tokens do not fit a batch of {self.capacity}")
        self.tokens[:n] = tokens
        self.positions[:n] = positions
        self.seqs[:n] = seqs
        self.logits[:n] = logits
        self.struct.n_tokens = n


def _pointer(array: npt.NDArray[Any], ctype: Any) -> Any:
    return ctypes.cast(array.ctypes.data, ctypes.POINTER(ctype))


def byte_buffer(size: int) -> Any:
    """A ctypes byte array of ``size`` in an anonymous mapping of its own, unmapped the moment the array is dropped.
    A lane's cells are megabytes; from malloc, after the first such buffer is freed glibc raises its mmap
    threshold and serves the next ones from the heap, where they leave holes it cannot give back (a mixed soak's
    RSS crept up by tens of MB; docs/performance.md, "A ten-minute mixed soak")."""
    return (ctypes.c_uint8 * size).from_buffer(mmap.mmap(-1, max(size, 1), flags=mmap.MAP_PRIVATE))
