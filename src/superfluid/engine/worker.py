"""An engine's worker thread that ends whenever it runs out of work and starts again when given some.

llama.cpp computes on OpenMP threads, and libgomp keeps a pool of workers for every thread that ever ran a
parallel region, for as long as that thread lives. Each model has an engine thread of its own, so once two models
had decoded (a chat model and its embedder, say), the process held two pools: more OpenMP threads than cores on a
small machine, where libgomp cuts its spin-wait to a hundred spins and every decode waits on futexes. Measured on
2 cores with the AMX kernels: a chat model's single stream fell from ~165 to ~28 tok/s after one embedding
request to a second model, and stayed there. With this worker an idle engine holds no thread and so no pool; two
models decoding at the same moment still share the cores (docs/performance.md).
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from typing import Any

LINGER_S = 0.5
"""How long an idle engine thread waits for more work before it ends: a client's next request usually comes
sooner, and a fresh thread costs its first decode ~1 ms (6.3 against 4.9 ms on the AMX kernels), while another
model decodes throttled for at most this long after this one's last request."""


RETIRED = object()
"""What ``PassingWorker.take`` returns when the thread has had nothing to do for ``LINGER_S`` and must end."""


class PassingWorker:
    """Runs ``body`` on a thread started by ``wake``. ``body`` waits for work with ``take`` and returns when that
    gives ``RETIRED`` (or calls ``retire`` itself, which ``take`` uses); ``wake`` after every put to the inbox
    starts a thread if none is running.

    No item is ever stranded: ``retire`` looks at the inbox under the same lock ``wake`` takes after its caller's
    put, so either the retiring thread sees the item or ``wake`` sees no thread running and starts one.
    """

    def __init__(self, name: str, body: Callable[[], None]) -> None:
        self.name = name
        self._body = body
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._running = False
        self._closed = False
        self.starts = 0
        """Threads started so far (for tests)."""

    def wake(self) -> None:
        with self._lock:
            if self._running or self._closed:
                return
            thread = threading.Thread(target=self._run, name=self.name, daemon=True)
            self._thread, self._running = thread, True
            try:
                thread.start()
            except BaseException:  # no thread (a limit reached): the next wake tries again
                self._thread, self._running = None, False
                raise
            self.starts += 1

    def take(self, inbox: queue.SimpleQueue[Any]) -> Any:
        """The next item of ``inbox``, waiting up to ``LINGER_S`` at a time; ``RETIRED`` (and the thread must
        return) once none came and none is waiting."""
        while True:
            try:
                return inbox.get(timeout=LINGER_S)
            except queue.Empty:
                if self.retire(inbox):
                    return RETIRED

    def retire(self, inbox: queue.SimpleQueue[Any]) -> bool:
        """True (and the thread must return) when nothing waits in ``inbox``."""
        with self._lock:
            if not inbox.empty():
                return False
            self._running = False
            return True

    def close(self, timeout: float | None = None) -> None:
        """Wait for the thread (its caller has put the item that makes ``body`` return), and start none again:
        the model behind it is about to be freed."""
        with self._lock:
            self._closed = True  # before the join: a wake in the meantime must not start a thread on a freed model
            thread = self._thread
        if thread is not None:
            thread.join(timeout)

    @property
    def alive(self) -> bool:
        with self._lock:
            return self._thread is not None and self._thread.is_alive()

    def _run(self) -> None:
        try:
            self._body()
        finally:
            with self._lock:
                if self._thread is threading.current_thread():  # a thread that ended without retiring
                    self._running = False
