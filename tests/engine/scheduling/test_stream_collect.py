"""A reply read whole: the deltas the engine gathers on its own thread make the same result as deltas sent through
the loop (stream.Gathered)."""

from __future__ import annotations

import asyncio
import threading
from types import SimpleNamespace
from typing import Any

from superfluid.engine.decoding.tool_calls import ToolCallDelta
from superfluid.engine.scheduling.job import EventSink
from superfluid.engine.scheduling.stream import Gathered, GenerationStream
from superfluid.engine.types import Finished, GenerationResult, TextDelta, Usage

DELTAS = [
    TextDelta(index=0, content="Hel"), TextDelta(index=1, reasoning="think"), TextDelta(index=0, content="lo"),
    TextDelta(index=1, content="call:", tool_calls=(ToolCallDelta(index=0, id="c1", name="f"),)),
    TextDelta(index=1, tool_calls=(ToolCallDelta(index=0, arguments='{"a":'),)),
    TextDelta(index=1, tool_calls=(ToolCallDelta(index=0, arguments=" 1}"),)),
    TextDelta(index=0, content=" world"),
]


def _finished(index: int) -> Finished:
    return Finished(index=index, finish_reason="stop", usage=Usage(prompt_tokens=3, completion_tokens=4,
                                                                   cached_tokens=0))


def _collect(gather: bool) -> GenerationResult:
    """Two choices whose deltas come from another thread, as the engine's do: handed over on that thread (gathered)
    or delivered through the loop; each choice's Finished always through the loop, after its deltas."""

    async def run() -> GenerationResult:
        loop = asyncio.get_running_loop()
        gathered = Gathered() if gather else None
        sink = EventSink(loop, gathered.append if gathered is not None else None)
        jobs: list[Any] = [SimpleNamespace(index=0), SimpleNamespace(index=1)]
        stream = GenerationStream(jobs, sink, lambda job: None, prompt_tokens=3)
        stream.cached_tokens = 0
        stream.gathered = gathered

        def engine() -> None:
            for delta in DELTAS:
                if sink.direct is not None:
                    sink.hand_over(delta)
                else:
                    loop.call_soon_threadsafe(sink.deliver, delta)
            for index in (0, 1):
                loop.call_soon_threadsafe(sink.deliver, _finished(index))

        thread = threading.Thread(target=engine)
        thread.start()
        result = await stream.collect()
        thread.join()
        return result

    return asyncio.run(run())


def test_gathered_deltas_make_the_same_reply_as_deltas_through_the_loop() -> None:
    gathered, looped = _collect(True), _collect(False)
    assert gathered == looped
    first, second = gathered.choices
    assert first.content == "Hello world" and first.finish_reason == "stop"
    assert second.reasoning == "think" and second.content == "call:"
    assert second.tool_calls == [{"id": "c1", "name": "f", "arguments": '{"a": 1}'}]
