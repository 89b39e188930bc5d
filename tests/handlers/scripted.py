"""A scripted generation for driving the stream driver and the dialects' renderers without an engine."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from typing import Any, cast

from superfluid.engine.scheduling.stream import GenerationStream
from superfluid.engine.types import Finished, TextDelta
from superfluid.handlers.generation import StreamRenderer, stream_frames


class ScriptedGeneration:
    """Stands in for GenerationStream: replays events (None is a quiet period), then raises ``fail`` if given."""

    def __init__(self, events: Sequence[TextDelta | Finished | None], *, prompt_tokens: int = 10,
                 cached_tokens: int = 4, fail: Exception | None = None) -> None:
        self._events = list(events)
        self.prompt_tokens = prompt_tokens
        self.cached_tokens = cached_tokens
        self._fail = fail
        self.cancelled = False

    async def timed_events(self, keepalive_s: float | None) -> AsyncIterator[TextDelta | Finished | None]:
        for event in self._events:
            yield event
        if self._fail is not None:
            raise self._fail

    def cancel(self) -> None:
        self.cancelled = True


def run_stream(renderer: StreamRenderer, events: Sequence[TextDelta | Finished | None], *,
               fail: Exception | None = None, **kwargs: Any) -> bytes:
    """The whole body the driver writes for ``events``: the renderer's lead, then the driver's frames (every
    delta rendered on the loop, as for a stream that is not direct)."""
    generation = ScriptedGeneration(events, fail=fail, **kwargs)

    async def run() -> bytes:
        stream = cast(GenerationStream, generation)
        lead = renderer.lead(stream, generation.cached_tokens)
        return lead + b"".join([chunk async for chunk in stream_frames(stream, renderer, 15.0)])

    return asyncio.run(run())
