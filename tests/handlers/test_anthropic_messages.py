"""The /v1/messages handler's loop path: when a stream cannot be written directly (TLS, another server, a test
client), the loop renders each delta with the same MessageEvents, keep-alives become pings, and the closing
events follow the engine's Finished."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any, cast

from conformance.anthropic_checks import check_sequence, sse_events, strict_stream

from superfluid.engine.scheduling.stream import GenerationStream
from superfluid.engine.types import Finished, TextDelta, Usage
from superfluid.handlers import anthropic_messages as handler
from superfluid.handlers import anthropic_replies as replies
from superfluid.http.streams import sse


class _Generation:
    def __init__(self, events: list[Any]) -> None:
        self._events = events

    async def timed_events(self, keepalive_s: float | None) -> AsyncIterator[Any]:
        for event in self._events:
            yield event


def test_the_loop_path_renders_the_same_event_sequence() -> None:
    finished = Finished(0, "stop", Usage(prompt_tokens=5, completion_tokens=3, cached_tokens=0))
    generation = cast(GenerationStream, _Generation([TextDelta(0, reasoning="hm"), None,
                                                     TextDelta(0, content="Hi"), TextDelta(0), finished]))
    events = replies.MessageEvents("msg_1", "m", show_thinking=True)

    async def run() -> bytes:
        frames = sse(handler._events(generation, events, 15.0), keepalive_s=None, error_frame=replies.error_event,
                     done_marker=False, keepalive=replies.PING)
        return events.start(5, 0) + b"".join([chunk async for chunk in frames])

    parsed = sse_events(asyncio.run(run()))
    check_sequence(parsed)
    strict_stream(parsed)
    assert [name for name, _ in parsed].count("ping") == 1
    assert [data["content_block"]["type"] for name, data in parsed if name == "content_block_start"] == [
        "thinking", "text"]
