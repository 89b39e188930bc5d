"""What the tests of the call families share: the published templates, the tools they call, reading a reply fed
in pieces (and the ways to cut it), and a grammar's acceptance and random decodings."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import jsonschema

from superfluid.engine.decoding.tool_calls import ParsedPiece, ToolSpec
from superfluid.engine.decoding.tool_readers import call_reader
from superfluid.engine.models.chat_template import ChatTemplate
from tests.engine.bundled_vocab import accepts, decode_masked, grammar_tokenizer

FOLDER = Path(__file__).parents[1] / "models" / "published_templates"
PARAMS = {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
          "required": ["city"]}
WEATHER = ToolSpec("get_weather", "Weather.", PARAMS)
CLOCK = ToolSpec("get_time", "Time.", {"type": "object", "properties": {}})
PROBE = ("get_weather", {"city": "Paris", "days": 2})


@functools.cache
def published_template(name: str) -> ChatTemplate:
    """One of llama.cpp's published templates (tests/engine/models/published_templates/)."""
    return ChatTemplate((FOLDER / name).read_text(), name=name, bos_token="<s>", eos_token="</s>")


def takes(grammar: str, text: str) -> bool:
    """Whether the grammar matches all of ``text`` and may end there."""
    return accepts(grammar_tokenizer().state(grammar), text)


def assert_random_decodings_read_back(fmt: str, grammar: str, tools: tuple[ToolSpec, ...], *, parallel: bool,
                                      seeds: int, reader_tools: bool = False) -> None:
    """Each seed's random decoding under ``grammar`` reads back, in pieces of 3, as calls valid for their tools:
    one unless ``parallel``. ``reader_tools``: the reader is given the tools too."""
    schemas = {t.name: t.parameters for t in tools}
    for seed in range(seeds):
        text = decode_masked(grammar_tokenizer().state(grammar), seed, 800)
        _, calls = read_calls(fmt, [text[i: i + 3] for i in range(0, len(text), 3)], tools if reader_tools else ())
        assert calls and (parallel or len(calls) == 1), text
        for call in calls:
            jsonschema.validate(call["arguments"], schemas[call["name"]])


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


def history_call(name: str, arguments: Any, call_id: str | None = None) -> dict[str, Any]:
    """An earlier assistant turn's call as a client sends it back (``arguments`` a mapping or JSON text)."""
    return {**({"id": call_id} if call_id else {}), "type": "function",
            "function": {"name": name, "arguments": arguments}}


def every_split(text: str) -> list[list[str]]:
    """The text whole, one character at a time, and in pieces of 2, 3, 5, 7 and 11 characters."""
    return [[text], list(text)] + [[text[i: i + n] for i in range(0, len(text), n)] for n in (2, 3, 5, 7, 11)]
