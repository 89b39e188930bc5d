"""engine.job: the EventSink — events in order, keep-alives after quiet intervals, and deltas handed over directly."""

from __future__ import annotations

import asyncio
import threading
import time

from superfluid.engine.scheduling.job import EventSink
from superfluid.engine.types import Finished, TextDelta, Usage


def test_events_arrive_in_order_and_quiet_streams_get_keep_alives() -> None:
    async def scenario() -> list[object]:
        sink = EventSink(asyncio.get_running_loop())
        first, last = TextDelta(0, content="a"), Finished(0, "stop", Usage(1, 1, 0))
        sink.deliver(first)
        sink.deliver(last)
        got: list[object] = [await sink.get(), await sink.get()]
        sink.keep_alive(0.05)
        got.append(await asyncio.wait_for(sink.get(), 5))
        sink.stop()
        return got

    got = asyncio.run(scenario())
    assert [type(x).__name__ for x in got] == ["TextDelta", "Finished", "NoneType"]


def test_deltas_handed_over_directly_count_as_activity() -> None:
    """A direct stream's deltas never reach the loop, yet they keep the keep-alive timer quiet."""
    handed: list[TextDelta] = []

    async def scenario() -> tuple[bool, object]:
        sink = EventSink(asyncio.get_running_loop(), direct=handed.append)
        sink.keep_alive(0.5)
        stop = threading.Event()

        def engine() -> None:
            while not stop.is_set():
                sink.hand_over(TextDelta(0, content="x"))
                time.sleep(0.02)

        thread = threading.Thread(target=engine)
        thread.start()
        try:
            await asyncio.wait_for(sink.get(), 1.5)
            quiet_while_busy = False
        except TimeoutError:
            quiet_while_busy = True
        finally:
            stop.set()
            thread.join()
        after = await asyncio.wait_for(sink.get(), 5)  # once the deltas stop, the keep-alive comes
        sink.stop()
        return quiet_while_busy, after

    quiet_while_busy, after = asyncio.run(scenario())
    assert quiet_while_busy and after is None
    assert handed and all(d.content == "x" for d in handed)
