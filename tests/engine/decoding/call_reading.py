"""What the tests of the call readers share: reading a reply fed in pieces, and the ways to cut it."""

from __future__ import annotations

import json
from typing import Any

from superfluid.engine.decoding.tool_calls import ParsedPiece, ToolSpec
from superfluid.engine.decoding.tool_readers import call_reader


def read_calls(fmt: str, pieces: list[str], tools: tuple[ToolSpec, ...] = ()) -> tuple[str, list[dict[str, Any]]]:
    """The text and the calls (arguments parsed) that ``fmt``'s reader makes of ``pieces``; calls must open in
    order, each with its id."""
    reader = call_reader(fmt, tools)  # type: ignore[arg-type]
    parsed: list[ParsedPiece] = [reader.feed(piece) for piece in pieces] + [reader.finish()]
    calls: dict[int, dict[str, Any]] = {}
    for piece in parsed:
        for delta in piece.calls:
            if delta.name is not None:
                assert delta.id and delta.index == len(calls), "calls open in order, each with its id"
                calls[delta.index] = {"name": delta.name, "arguments": ""}
            calls[delta.index]["arguments"] += delta.arguments
    out = [{"name": c["name"], "arguments": json.loads(c["arguments"])} for _, c in sorted(calls.items())]
    return "".join(p.content for p in parsed), out


def every_split(text: str) -> list[list[str]]:
    """The text whole, one character at a time, and in pieces of 2, 3, 5, 7 and 11 characters."""
    return [[text], list(text)] + [[text[i: i + n] for i in range(0, len(text), n)] for n in (2, 3, 5, 7, 11)]
