"""PassingWorker: an engine thread that ends when its inbox is empty and starts again on the next put."""

from __future__ import annotations

import queue
import threading
import time

import pytest

from superfluid.engine.worker import RETIRED, PassingWorker


class _Engine:
    """A body shaped like the engines': take items until there are none, then retire."""

    def __init__(self) -> None:
        self.inbox: queue.SimpleQueue[object] = queue.SimpleQueue()
        self.seen: list[object] = []
        self.threads: set[int] = set()
        self.worker = PassingWorker("test-engine", self.body)

    def body(self) -> None:
        self.threads.add(threading.get_ident())
        while (item := self.worker.take(self.inbox)) is not RETIRED and item is not None:
            self.seen.append(item)

    def put(self, item: object) -> None:
        self.inbox.put(item)
        self.worker.wake()


def _until(condition: object, timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():  # type: ignore[operator]
            return True
        time.sleep(0.005)
    return False


def test_no_thread_runs_until_there_is_work_and_none_after_it() -> None:
    engine = _Engine()
    assert not engine.worker.alive and engine.worker.starts == 0
    engine.put("a")
    assert _until(lambda: engine.seen == ["a"])
    assert _until(lambda: not engine.worker.alive)
    engine.put("b")
    assert _until(lambda: engine.seen == ["a", "b"])
    assert _until(lambda: not engine.worker.alive)
    assert engine.worker.starts == 2  # a thread each time (their idents may be reused)


def test_items_put_from_many_threads_are_all_taken() -> None:
    """Puts racing a thread that is retiring: every item is taken, by one thread at a time."""
    engine = _Engine()
    busy = [0]
    overlap = []
    books = threading.Lock()  # the count changes together with the retire that ends a thread's turn

    def body() -> None:
        with books:
            busy[0] += 1
            overlap.append(busy[0])
        while True:
            with books:
                if engine.worker.retire(engine.inbox):
                    busy[0] -= 1
                    return
            engine.seen.append(engine.inbox.get())

    engine.worker = PassingWorker("test-engine", body)

    def producer(base: int) -> None:
        for i in range(500):
            engine.put(base + i)
            if i % 50 == 0:
                time.sleep(0.001)

    producers = [threading.Thread(target=producer, args=(n * 1000,)) for n in range(4)]
    for thread in producers:
        thread.start()
    for thread in producers:
        thread.join()
    assert _until(lambda: len(engine.seen) == 2000)
    assert sorted(engine.seen) == sorted(n * 1000 + i for n in range(4) for i in range(500))
    assert max(overlap) == 1
    assert _until(lambda: not engine.worker.alive)


def test_a_thread_that_cannot_start_leaves_the_worker_usable(monkeypatch: pytest.MonkeyPatch) -> None:
    engine = _Engine()

    def refuse(self: threading.Thread) -> None:
        raise RuntimeError("can't start new thread")

    with monkeypatch.context() as patch:
        patch.setattr(threading.Thread, "start", refuse)
        with pytest.raises(RuntimeError):
            engine.put("a")
    engine.worker.wake()
    assert _until(lambda: engine.seen == ["a"])


def test_a_wake_during_close_starts_nothing() -> None:
    engine = _Engine()
    release = threading.Event()

    def slow() -> None:
        release.wait(5)

    engine.worker = PassingWorker("test-engine", slow)
    engine.worker.wake()
    closing = threading.Thread(target=engine.worker.close, kwargs={"timeout": 5})
    closing.start()
    assert _until(lambda: engine.worker._closed)  # close has begun and waits on the thread
    starts = engine.worker.starts
    release.set()
    closing.join()
    engine.worker.wake()
    assert engine.worker.starts == starts and not engine.worker.alive


def test_after_close_nothing_starts_again() -> None:
    engine = _Engine()
    engine.put("a")
    engine.put(None)  # the engines' stop item
    engine.worker.close(timeout=5)
    assert not engine.worker.alive
    starts = engine.worker.starts
    engine.put("late")
    assert engine.worker.starts == starts and not engine.worker.alive


def test_a_body_that_raises_does_not_wedge_the_worker() -> None:
    calls = []

    def body() -> None:
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("boom")

    worker = PassingWorker("test-engine", body)
    threading.excepthook, hook = (lambda args: None), threading.excepthook
    try:
        worker.wake()
        assert _until(lambda: not worker.alive and calls == [1])
        worker.wake()
        assert _until(lambda: calls == [1, 1])
    finally:
        threading.excepthook = hook
