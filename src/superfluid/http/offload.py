"""A bounded pool of worker threads for the CPU-heavy part of taking in a big request.

Parsing and validating a large JSON body, rendering a long conversation through its chat template, tokenizing
it and compiling a grammar can each take from milliseconds to seconds. On the event loop that time is taken
from every other client (a /health probe, the first byte of another stream); in a worker it is not, except
where the work holds the GIL in one C call (``json.loads`` of a very large string), which is short next to
the rest. Small requests stay on the loop: for them the hop to a thread and back costs more than their
preparation (docs/limits.md has the figures).

The pool is bounded (``--prepare-workers``): more big requests at once wait for a worker instead of each
taking a core from the engine.

Validating a big body against its schema is the one step that stays in pure Python for long (jsonschema walks
every item: 20,000 messages take most of a second), and a thread doing that holds the GIL in 5 ms turns: the
engine thread, which takes the GIL back after every call into llama.cpp, then waits at each of them (two
streams' time per token went from ~40 ms to ~300 ms beside one such thread on a loaded 2-core machine, against
~90 ms beside a whole other process burning a core). So big bodies are validated in worker *processes*
(``validation.check_apart``), started with the first big body, each with its own GIL. The worker gets the raw
bytes and parses them itself: the server process parses a big body (on a thread) only once the worker passed
it, so a refused body costs it nothing, and the steps that hold the GIL in one long C call or walk the whole
value (a pickle of the parsed body, the nesting bound, the cut of long strings) are the worker's. A worker
process that dies is replaced, and that body is checked on the thread instead.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import ctypes
import logging
import multiprocessing
import os
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

T = TypeVar("T")

log = logging.getLogger(__name__)

TRIM_EVERY_S = 2.0
TRIM_FOR_S = 20.0


MALLOC_ARENAS = 2
M_ARENA_MAX = -8
"""mallopt's parameter number for the arena count (glibc's malloc.h)."""


def few_malloc_arenas() -> None:
    """Let glibc's malloc keep ``MALLOC_ARENAS`` arenas instead of up to eight per core. Each thread that
    allocates gets an arena of its own while there are fewer than the limit, and each arena holds on to what its
    thread freed: after a hostile mix of 10 MB prompts and 20,000-message bodies the server stayed ~50 MB larger
    with the default, ~20 MB with two (measured with trimming on in both). Threads beyond the limit share."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None).mallopt(M_ARENA_MAX, MALLOC_ARENAS)


def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's malloc_trim, where the C library has it."""
    try:
        trim: Callable[[int], int] = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return None
    return trim


VALIDATOR_NICENESS = 19
RELEASE_AFTER_BYTES = 1 << 20
"""A call to a worker process with a bytes argument this large is followed by an empty call (``_nothing``):
multiprocessing's queue keeps the last message it sent, pickled, until it sends the next, so a 99 MB body sent
to be checked stayed in the server's memory until the next big body came."""


def _nothing() -> None:
    return None


def yield_cpu() -> None:
    """In a validation worker process: take CPU only when decoding leaves some (``nice`` 19). The process holds no
    lock the server waits on while it runs (it has its own GIL), so a lower priority cannot stall the engine
    thread; the same on the preparation *threads* did, through the shared GIL (docs/performance.md)."""
    with contextlib.suppress(OSError):
        os.nice(VALIDATOR_NICENESS)


class Offload:
    def __init__(self, workers: int, *, processes: bool = True) -> None:
        self.workers = max(1, workers)
        self._pool = ThreadPoolExecutor(self.workers, thread_name_prefix="prepare")
        self._last_big = 0.0
        self._trimmer: asyncio.Task[None] | None = None
        self._apart = processes
        self._processes: ProcessPoolExecutor | None = None
        """Started on the first call that needs it (a server that never sees a big body never starts one)."""

    def _start_processes(self) -> ProcessPoolExecutor:
        # spawn, not fork: the server process holds llama.cpp's threads and model memory.
        return ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("spawn"),
                                   initializer=yield_cpu)

    def note_big_request(self) -> None:
        """A big body came in: give freed memory back to the system for a while (``TRIM_*``).

        glibc keeps memory a thread freed in that thread's arena for reuse: after a 10 MB prompt or a big grammar
        the process stays that much larger, and with several preparation threads each keeps its own. Trimming
        every ``TRIM_EVERY_S`` seconds while big requests come, and for ``TRIM_FOR_S`` after the last, returns
        it (a few milliseconds per trim, outside the GIL)."""
        self._last_big = time.monotonic()
        if self._trimmer is None or self._trimmer.done():
            self._trimmer = asyncio.get_running_loop().create_task(self._trim_while_busy())

    async def _trim_while_busy(self) -> None:
        trim = _malloc_trim()
        if trim is None:
            return
        while time.monotonic() - self._last_big < TRIM_FOR_S:
            await asyncio.sleep(TRIM_EVERY_S)
            await self.run(trim, 0)

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` on a worker thread, in a copy of the caller's context variables (a handler's request
        context included); its exception, if any, raises here."""
        return await asyncio.get_running_loop().run_in_executor(self._pool, contextvars.copy_context().run, fn,
                                                                *args)

    async def run_apart(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in a worker process (picklable arguments and result), or on a worker thread when the
        process pool is off or broke (it is restarted for the next call)."""
        if self._apart:
            if self._processes is None:
                self._processes = self._start_processes()
            try:
                return await asyncio.get_running_loop().run_in_executor(self._processes, fn, *args)
            except BrokenProcessPool:
                log.warning("a request-preparation worker process died; the next big request starts another")
                self._processes.shutdown(wait=False, cancel_futures=True)
                self._processes = None
            finally:
                if self._processes is not None and any(
                        isinstance(arg, bytes) and len(arg) >= RELEASE_AFTER_BYTES for arg in args):
                    with contextlib.suppress(RuntimeError, BrokenProcessPool):
                        self._processes.submit(_nothing)  # not awaited: it only displaces the big message
        return await self.run(fn, *args)

    def close(self) -> None:
        if self._trimmer is not None:
            self._trimmer.cancel()
        self._pool.shutdown(wait=False, cancel_futures=True)
        if self._processes is not None:
            self._processes.shutdown(wait=False, cancel_futures=True)


def offload_of(scope: Mapping[str, Any]) -> Offload | None:
    """The running server's pool, from the request's lifespan state (None where there is none: test doubles)."""
    services = scope.get("state", {}).get("services")
    pool = getattr(services, "offload", None)
    return pool if isinstance(pool, Offload) else None
