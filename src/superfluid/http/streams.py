"""Stream framing: Server-Sent Events messages (OpenAI, Anthropic) and NDJSON lines (Ollama), one JSON encoder,
and ``sse``, the encoder of a stream that is no generation (a transcription's events). Generations stream
through handlers/generation.py, whose renderers frame with these helpers."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from superfluid.http.dialect import Dialect

from superfluid.errors import as_superfluid_error

log = logging.getLogger(__name__)

Frame = dict[str, Any]
"""One message of a stream. A handler may also hand over ``str``: JSON it already encoded (the hot path of
token deltas), ``bytes``: SSE events it already framed (a dialect whose frames are rendered by its own stream
renderer, on the engine thread or the loop alike), and ``None``: "send a keep-alive now" (sources that time
their own keep-alives)."""

SSE_COMMENT_KEEPALIVE = b": keep-alive\n\n"


_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def dumps(obj: Any) -> str:
    """Compact JSON with non-ASCII text as is (one encoder for all: json.dumps builds one per call with options)."""
    return _ENCODER.encode(obj)


async def _with_keepalive(source: AsyncIterator[Frame], interval_s: float) -> AsyncIterator[Frame | None]:
    """Yield the source's frames, and None whenever it was quiet for ``interval_s`` seconds."""
    iterator = source.__aiter__()
    pending: asyncio.Task[Frame] | None = None
    try:
        while True:
            if pending is None:
                pending = asyncio.ensure_future(iterator.__anext__())
            done, _ = await asyncio.wait({pending}, timeout=interval_s)
            if not done:
                yield None
                continue
            task, pending = pending, None
            try:
                yield task.result()
            except StopAsyncIteration:
                return
    finally:
        if pending is not None:
            pending.cancel()
            # Let the cancelled step finish before closing the generator it is running.
            await asyncio.gather(pending, return_exceptions=True)
        closer = getattr(iterator, "aclose", None)
        if closer is not None:
            await closer()


def _timed(source: AsyncIterator[Any], keepalive_s: float | None) -> AsyncIterator[Any]:
    """The source itself when it times its own keep-alives (``keepalive_s`` None), else a timing wrapper."""
    return source if keepalive_s is None else _with_keepalive(source, keepalive_s)


def sse_data(frame: Frame | str, event: str | None = None) -> bytes:
    """One SSE message (``event:`` line when named, then ``data:``); a ``str`` frame is JSON already encoded."""
    data = b"data: " + (frame if isinstance(frame, str) else dumps(frame)).encode() + b"\n\n"
    return b"event: " + event.encode() + b"\n" + data if event else data


def ndjson_line(frame: Frame | str) -> bytes:
    """One NDJSON line; a ``str`` frame is JSON already encoded."""
    return ((frame if isinstance(frame, str) else dumps(frame)) + "\n").encode()


async def sse(source: AsyncIterator[Any], dialect: Dialect, *, keepalive_s: float | None,
              event_name: Callable[[Frame], str | None] | None = None) -> AsyncIterator[bytes]:
    """Encode frames as SSE ``data:`` lines (named by ``event_name``) in ``dialect``: quiet periods send its
    keep-alive, a failure after the first byte its error frame, and its end marker comes last."""
    try:
        async for frame in _timed(source, keepalive_s):
            if frame is None:
                yield dialect.keepalive
            elif isinstance(frame, bytes):
                yield frame
            elif isinstance(frame, str) or event_name is None:
                yield sse_data(frame)
            else:
                yield sse_data(frame, event_name(frame))
    except Exception as exc:  # an error after the first byte becomes a final frame
        yield dialect.error_frame(as_superfluid_error(exc))
    if dialect.end:
        yield dialect.end
