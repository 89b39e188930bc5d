"""A stream that fails after its first byte ends the same way whoever writes the end: a replica's renderer through
the one stream driver, the fleet head when the replica under it fails, and the audio stream. Each dialect's
frames come from its ``Dialect`` (http/dialect.py)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from superfluid.engine import TextDelta
from superfluid.errors import EngineFailure, SuperfluidError
from superfluid.fleet.head import stream_error_frame
from superfluid.handlers.anthropic.replies import MessageEvents
from superfluid.handlers.generation import StreamRenderer, stream_frames
from superfluid.handlers.ollama.replies import Records
from superfluid.handlers.openai.chat import ChatStream
from superfluid.handlers.openai.completions import CompletionStream
from superfluid.handlers.openai.responses import shapes as response_shapes
from superfluid.handlers.openai.responses.create import ResponseStream, _Saver
from superfluid.handlers.openai.responses.render import ResponseRender
from superfluid.http.dialect import Dialect, sse

FAILURE = EngineFailure("the lane's decode failed")


class _Failing:
    """A generation that writes one piece of text, then fails."""

    async def timed_events(self, keepalive_s: float | None) -> AsyncIterator[TextDelta | None]:
        yield TextDelta(0, content="Hel")
        raise FAILURE


def _replica(renderer: StreamRenderer) -> list[bytes]:
    async def run() -> list[bytes]:
        return [part async for part in stream_frames(_Failing(), renderer, 10.0)]  # type: ignore[arg-type]

    return asyncio.run(run())


def _responses_renderer() -> ResponseStream:
    base = response_shapes.base_response({"model": "m"}, response_id="resp_1", created_at=1, model="m")
    return ResponseStream(ResponseRender(base, stream=True, logprobs=False), _Saver(None, [], None))


RENDERERS = {
    "/v1/chat/completions": lambda: ChatStream("chatcmpl-1", 1, "m", logprobs=False),
    "/v1/completions": lambda: CompletionStream("cmpl-1", 1, "m", "", logprobs=False),
    "/v1/messages": lambda: MessageEvents("msg_1", "m", show_thinking=False),
    "/api/chat": lambda: Records("chat", "m", logprobs=False, started_ns=0),
    "/api/generate": lambda: Records("generate", "m", logprobs=False, started_ns=0),
}


@pytest.mark.parametrize("path", sorted(RENDERERS))
def test_the_head_ends_a_failed_stream_as_the_replica_does(path: str) -> None:
    """The frames after the last delta are, byte for byte, what the head writes when a replica fails there."""
    renderer = RENDERERS[path]()
    parts = _replica(renderer)
    delta, tail = parts[0], b"".join(parts[1:])
    assert delta and tail
    assert tail == stream_error_frame(path, FAILURE, events_sent=1)
    assert renderer.dialect is Dialect.for_path(path)


def test_the_responses_stream_ends_with_the_heads_error_event_then_failed() -> None:
    """A replica's Responses stream sends the error event the head would (numbered after the events sent), then
    response.failed, which only the replica can write: it holds the response."""
    renderer = _responses_renderer()
    lead = renderer.lead(None, 0)  # type: ignore[arg-type]
    sent = lead.count(b"\ndata: ")
    parts = _replica(renderer)
    delta_events = parts[0].count(b"\ndata: ")
    tail = b"".join(parts[1:])
    head = stream_error_frame("/v1/responses", FAILURE, events_sent=sent + delta_events)
    assert tail.startswith(head)
    assert b"event: response.failed\n" in tail[len(head):]


def test_the_audio_stream_ends_as_a_chat_stream_does() -> None:
    async def source() -> AsyncIterator[dict[str, Any]]:
        yield {"type": "transcript.text.delta", "delta": "Hel"}
        raise FAILURE

    async def run() -> list[bytes]:
        return [part async for part in sse(source(), Dialect.OPENAI, keepalive_s=None,
                                           event_name=lambda frame: frame.get("type"))]

    parts = asyncio.run(run())
    assert b"".join(parts[1:]) == stream_error_frame("/v1/audio/transcriptions", FAILURE, events_sent=1)


@pytest.mark.parametrize("dialect", list(Dialect))
def test_each_dialect_frames_its_error_in_its_own_media_type(dialect: Dialect) -> None:
    frame = dialect.error_frame(SuperfluidError("boom"))
    if dialect is Dialect.OLLAMA:
        assert dialect.media_type == "application/x-ndjson" and frame.endswith(b"\n") and b"data:" not in frame
    else:
        assert dialect.media_type == "text/event-stream" and frame.endswith(b"\n\n")
    assert (dialect.end == b"data: [DONE]\n\n") is (dialect is Dialect.OPENAI)
