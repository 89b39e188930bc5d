"""The NDJSON encoder's frame keep-alive: for clients that parse every line as JSON."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

from superfluid.http.streams import Frame, ndjson

QUIET = 0.05


async def _slow(*frames: Frame) -> AsyncIterator[Frame]:
    for frame in frames:
        await asyncio.sleep(QUIET * 5)
        yield frame


async def _collect(stream: AsyncIterator[bytes]) -> list[bytes]:
    return [chunk async for chunk in stream]


def test_quiet_periods_send_the_keepalive_frame() -> None:
    made = []

    def frame() -> Frame:
        made.append(1)
        return {"done": False, "n": len(made)}

    chunks = asyncio.run(_collect(ndjson(_slow({"done": True}), keepalive_s=QUIET, keepalive_frame=frame)))
    lines = [json.loads(chunk) for chunk in chunks]
    assert lines[-1] == {"done": True}
    assert len(lines) >= 2 and all(line["done"] is False for line in lines[:-1])
    assert [line["n"] for line in lines[:-1]] == list(range(1, len(lines)))
    assert all(chunk.endswith(b"\n") and chunk.count(b"\n") == 1 for chunk in chunks)


def test_without_a_frame_the_keepalive_stays_an_empty_line() -> None:
    chunks = asyncio.run(_collect(ndjson(_slow({"done": True}), keepalive_s=QUIET)))
    assert b"\n" in chunks and chunks[-1] == b'{"done":true}\n'
