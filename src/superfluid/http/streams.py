"""Stream framing: Server-Sent Events messages (OpenAI, Anthropic) and NDJSON lines (Ollama), one JSON encoder,
and keep-alive timing. The dialects frame their streams with these (http/dialect.py), generations through
handlers/generation.py and a transcription's events through ``Dialect``'s ``sse``."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator
from typing import Any

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


def timed(source: AsyncIterator[Any], keepalive_s: float | None) -> AsyncIterator[Any]:
    """The source itself when it times its own keep-alives (``keepalive_s`` None), else a timing wrapper."""
    return source if keepalive_s is None else _with_keepalive(source, keepalive_s)


def sse_data(frame: Frame | str, event: str | None = None) -> bytes:
    """One SSE message (``event:`` line when named, then ``data:``); a ``str`` frame is JSON already encoded."""
    data = b"data: " + (frame if isinstance(frame, str) else dumps(frame)).encode() + b"\n\n"
    return b"event: " + event.encode() + b"\n" + data if event else data


def ndjson_line(frame: Frame | str) -> bytes:
    """One NDJSON line; a ``str`` frame is JSON already encoded."""
    return ((frame if isinstance(frame, str) else dumps(frame)) + "\n").encode()
