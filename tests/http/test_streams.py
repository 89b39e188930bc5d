"""The SSE and NDJSON encoders: framing, keep-alives, mid-stream errors and cancellation."""

from __future__ import annotations

import asyncio
import gc
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, TypeVar

from superfluid.errors import EngineFailure, RateLimited
from superfluid.http.dialect import Dialect, sse
from superfluid.http.streams import Frame, dumps

T = TypeVar("T")

QUIET = 0.05  # keep-alive interval used throughout; sources that want one sleep several times longer


def _run(factory: Callable[[], Awaitable[T]]) -> T:
    return asyncio.run(factory())  # type: ignore[arg-type]


async def _frames(*frames: Frame, pause_s: float = 0.0, fail: Exception | None = None) -> AsyncIterator[Frame]:
    for frame in frames:
        if pause_s:
            await asyncio.sleep(pause_s)
        yield frame
    if fail is not None:
        raise fail


async def _collect(stream: AsyncIterator[bytes]) -> list[bytes]:
    return [chunk async for chunk in stream]


def _openai_sse(source: AsyncIterator[Frame], **kwargs: Any) -> AsyncIterator[bytes]:
    return sse(source, Dialect.OPENAI, keepalive_s=kwargs.pop("keepalive_s", 10.0), **kwargs)


# --- SSE ----------------------------------------------------------------------------------------------


def test_sse_frames_then_done() -> None:
    chunks = _run(lambda: _collect(_openai_sse(_frames({"a": 1}, {"b": "é"}))))
    assert chunks == [b'data: {"a":1}\n\n', 'data: {"b":"é"}\n\n'.encode(), b"data: [DONE]\n\n"]


def test_sse_frame_payload_is_compact_json_on_one_line() -> None:
    frame = {"text": "line1\nline2", "nested": {"k": [1, 2]}}
    chunks = _run(lambda: _collect(_openai_sse(_frames(frame))))
    first = chunks[0].decode()
    assert first.startswith("data: ") and first.endswith("\n\n")
    assert "\n" not in first[: -2]
    assert json.loads(first[len("data: "):]) == frame
    assert first[len("data: "):-2] == dumps(frame)


def test_sse_empty_source_is_just_done() -> None:
    assert _run(lambda: _collect(_openai_sse(_frames()))) == [b"data: [DONE]\n\n"]


def test_sse_without_done_marker_and_with_event_names() -> None:
    def name(frame: Frame) -> str | None:
        return frame.get("type")

    source = _frames({"type": "message_start"}, {"plain": True})
    chunks = _run(lambda: _collect(sse(source, Dialect.ANTHROPIC, keepalive_s=10.0, event_name=name)))
    assert chunks == [
        b'event: message_start\ndata: {"type":"message_start"}\n\n',
        b'data: {"plain":true}\n\n',
    ]


def test_sse_keepalive_comment_while_the_source_is_quiet() -> None:
    source = _frames({"n": 1}, pause_s=QUIET * 5)
    chunks = _run(lambda: _collect(_openai_sse(source, keepalive_s=QUIET)))
    assert chunks[-2:] == [b'data: {"n":1}\n\n', b"data: [DONE]\n\n"]
    keepalives = chunks[:-2]
    assert keepalives, "a quiet source must produce at least one keep-alive"
    assert set(keepalives) == {b": keep-alive\n\n"}


def test_sse_no_keepalive_when_the_source_is_prompt() -> None:
    chunks = _run(lambda: _collect(_openai_sse(_frames({"n": 1}, {"n": 2}), keepalive_s=QUIET)))
    assert b": keep-alive\n\n" not in chunks


def test_sse_typed_error_mid_stream_becomes_one_error_frame_then_done() -> None:
    error = RateLimited("too many requests", retry_after_s=2)
    chunks = _run(lambda: _collect(_openai_sse(_frames({"n": 1}, fail=error))))
    assert chunks[0] == b'data: {"n":1}\n\n'
    assert json.loads(chunks[1].decode()[len("data: "):]) == error.openai_body()
    assert chunks[2:] == [b"data: [DONE]\n\n"]


def test_sse_unexpected_error_is_reported_as_an_engine_failure_without_details() -> None:
    chunks = _run(lambda: _collect(_openai_sse(_frames({"n": 1}, fail=KeyError("secret-internal-detail")))))
    assert len(chunks) == 3
    body = json.loads(chunks[1].decode()[len("data: "):])
    assert body["error"]["type"] == "server_error"
    assert "secret-internal-detail" not in chunks[1].decode()
    assert chunks[2] == b"data: [DONE]\n\n"


def test_sse_error_frame_in_the_anthropic_dialect_uses_the_event_name() -> None:
    def name(frame: Frame) -> str | None:
        return str(frame["type"])

    source = _frames({"type": "ping"}, fail=EngineFailure("lane crashed"))
    stream = sse(source, Dialect.ANTHROPIC, keepalive_s=10.0, event_name=name)
    chunks = _run(lambda: _collect(stream))
    assert chunks == [
        b'event: ping\ndata: {"type":"ping"}\n\n',
        b'event: error\ndata: {"type":"error","error":{"type":"api_error","message":"lane crashed"}}\n\n',
    ]


def test_sse_error_before_any_frame() -> None:
    chunks = _run(lambda: _collect(_openai_sse(_frames(fail=EngineFailure("no lane")))))
    assert len(chunks) == 2
    assert b'"message":"no lane"' in chunks[0]
    assert chunks[1] == b"data: [DONE]\n\n"


# --- closing and cancellation --------------------------------------------------------------------------


class _Watched:
    """A source that yields one frame, then goes quiet; records whether its cleanup ran."""

    def __init__(self) -> None:
        self.cleaned_up = False

    async def __call__(self) -> AsyncIterator[Frame]:
        try:
            yield {"n": 1}
            await asyncio.sleep(30)
            yield {"n": 2}
        finally:
            self.cleaned_up = True


def test_closing_a_prompt_stream_closes_its_source() -> None:
    closed: list[bool] = []

    async def source() -> AsyncIterator[Frame]:
        try:
            yield {"n": 1}
            yield {"n": 2}
        finally:
            closed.append(True)

    async def scenario() -> None:
        stream = _openai_sse(source(), keepalive_s=10.0)
        assert await stream.__anext__() == b'data: {"n":1}\n\n'
        await stream.aclose()  # type: ignore[attr-defined]
        await asyncio.sleep(0)
        gc.collect()
        await asyncio.sleep(0)

    _run(scenario)
    assert closed == [True]


def test_cancelling_the_consumer_while_the_source_is_quiet_propagates_the_cancellation() -> None:
    """A client disconnect arrives as a cancellation of the task writing the stream; it must stop the
    stream (and the source) rather than be turned into an error frame."""
    watched = _Watched()
    got: list[bytes] = []

    async def scenario() -> str:
        async def consume() -> None:
            async for chunk in _openai_sse(watched(), keepalive_s=QUIET):
                got.append(chunk)

        task = asyncio.create_task(consume())
        await asyncio.sleep(QUIET * 2.5)  # first frame plus a keep-alive or two: the source is now quiet
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            return "cancelled"
        return "finished normally"

    outcome = _run(scenario)
    assert watched.cleaned_up
    assert got[0] == b'data: {"n":1}\n\n'
    assert not any(b'"error"' in chunk for chunk in got), got
    assert outcome == "cancelled"


def test_closing_the_stream_while_the_source_is_quiet_reports_no_loop_errors() -> None:
    watched = _Watched()
    reports: list[dict[str, Any]] = []

    async def scenario() -> None:
        asyncio.get_running_loop().set_exception_handler(lambda _loop, context: reports.append(context))
        stream = _openai_sse(watched(), keepalive_s=QUIET)
        assert await stream.__anext__() == b'data: {"n":1}\n\n'
        assert await stream.__anext__() == b": keep-alive\n\n"
        await stream.aclose()  # type: ignore[attr-defined]
        for _ in range(3):
            await asyncio.sleep(0.01)
            gc.collect()

    _run(scenario)
    assert watched.cleaned_up
    assert [str(r.get("exception") or r.get("message")) for r in reports] == []


# --- Anthropic's stream: events framed by the dialect's renderer, ping keep-alives, an error event ---------


async def _anthropic_source(fail: Exception | None = None) -> AsyncIterator[Any]:
    yield b"event: message_start\ndata: {}\n\n"
    yield None
    if fail is not None:
        raise fail


def _anthropic_sse(source: AsyncIterator[Any]) -> AsyncIterator[bytes]:
    return sse(source, Dialect.ANTHROPIC, keepalive_s=None, event_name=lambda f: str(f["type"]))


def test_sse_passes_framed_bytes_through_and_sends_the_dialects_keepalive() -> None:
    chunks = _run(lambda: _collect(_anthropic_sse(_anthropic_source())))
    assert chunks == [b"event: message_start\ndata: {}\n\n", b'event: ping\ndata: {"type":"ping"}\n\n']


def test_sse_error_after_the_first_byte_is_an_anthropic_error_event() -> None:
    chunks = _run(lambda: _collect(_anthropic_sse(_anthropic_source(EngineFailure("lane lost")))))
    assert chunks[-1] == (b'event: error\ndata: {"type":"error","error":{"type":"api_error",'
                          b'"message":"lane lost"}}\n\n')
