"""Gemma 4's calls: ``<|tool_call>call:NAME{key:value,...}<tool_call|>``, one block per call.

The arguments are not JSON. Keys are bare words, strings sit between two ``<|"|>`` marks (with no escapes), and
numbers, booleans, lists and nested objects (bare keys again) are written much as JSON writes them. Gemma 4's
template writes an object's keys sorted (``dictsort``), so the grammar holds them in that order. This module holds
the family's writing, its grammar (each value held to its property's schema), the reading of a value back into
JSON, and the streaming reader.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from superfluid.engine.decoding.grammar import closed_objects
from superfluid.engine.decoding.grammar import lark_json as _json
from superfluid.engine.decoding.grammar import lark_literal as _lit
from superfluid.engine.decoding.marked_readers import MarkedReader
from superfluid.engine.decoding.markup_grammar import piece, raw_string, raw_text_rules
from superfluid.engine.decoding.tool_calls import (
    GEMMA4_CHANNEL,
    GEMMA4_CLOSE,
    GEMMA4_OPEN,
    GEMMA4_QUOTE,
    ParsedPiece,
    ToolCallDelta,
    ToolSpec,
    new_call_id,
)
from superfluid.errors import ConstraintUnsatisfiable

TOOL_ROLE_NOTE = "{#- OpenAI Chat Completions:"
"""A comment only the Gemma 4 templates that read ``tool`` messages hold; the earlier ones (the interleaved one)
read a call's results as the assistant turn's ``tool_responses``, as Google's own API hands them over."""

WORD = re.compile(r"[^\s:,{}\[\]<>|\"]+")
"""What a function's or a key's name may be, to be written bare."""

# ---- writing ---------------------------------------------------------------------------------------------------


def gemma4_value(value: Any) -> str:
    """A value as Gemma 4's template writes it (``format_argument`` with bare keys)."""
    if isinstance(value, str):
        return GEMMA4_QUOTE + value + GEMMA4_QUOTE
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, Mapping):
        return "{" + ",".join(f"{k}:{gemma4_value(v)}" for k, v in sorted(value.items())) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(gemma4_value(v) for v in value) + "]"
    return json.dumps(value)


def write_gemma4(calls: list[tuple[str, Mapping[str, Any]]]) -> str:
    """Calls as Gemma 4's template writes an assistant turn's calls."""
    return "".join(f"{GEMMA4_OPEN}call:{name}{gemma4_value(dict(arguments))}{GEMMA4_CLOSE}"
                   for name, arguments in calls)


def _response(content: Any) -> Any:
    if isinstance(content, str):
        try:
            return json.loads(content)
        except json.JSONDecodeError:
            return content
    return content


def fold_tool_responses(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A turn's calls, the tool results after them and an answer in words after those, as one assistant turn with
    ``tool_responses`` (each named by its call, in order), the shape the earlier Gemma 4 templates read."""
    out: list[dict[str, Any]] = []
    i = 0
    while i < len(messages):
        turn = messages[i]
        i += 1
        if turn.get("role") != "assistant" or not turn.get("tool_calls"):
            out.append(turn)
            continue
        calls = list(turn["tool_calls"])
        folded: dict[str, Any] = {**turn, "tool_calls": calls}
        responses: list[dict[str, Any]] = []
        while i < len(messages) and messages[i].get("role") == "tool":
            call = calls[len(responses)] if len(responses) < len(calls) else {}
            name = (call.get("function") or {}).get("name") or messages[i].get("tool_call_id") or ""
            responses.append({"name": name, "response": _response(messages[i].get("content"))})
            i += 1
        if responses:
            folded["tool_responses"] = responses
        after = messages[i] if i < len(messages) else {}
        if after.get("role") == "assistant" and not after.get("tool_calls") and after.get("content"):
            folded["content"] = after["content"]
            i += 1
        out.append(folded)
    return out


# ---- the grammar -----------------------------------------------------------------------------------------------

_QUOTE = _lit(GEMMA4_QUOTE)
_SHARED = [
    f"g4_str: {_QUOTE} g4_text",
    f"g4_text[suffix={_QUOTE}]: /((.|\\n)*)/",
    'g4_any: g4_str | G4_NUMBER | "true" | "false" | "null" | "[" (g4_any ("," g4_any)*)? "]" '
    '| "{" (G4_KEY ":" g4_any ("," G4_KEY ":" g4_any)*)? "}"',
    "G4_KEY: /[A-Za-z_][A-Za-z0-9_]*/",
    "G4_NUMBER: /-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][-+]?[0-9]+)?/",
]


class _Rules:
    """The rules of one grammar, with a counter for fresh names."""

    def __init__(self, defs: Mapping[str, Any], param: str) -> None:
        self.rules: list[str] = []
        self.defs = defs
        self.param = param
        self.count = 0

    def fresh(self) -> str:
        self.count += 1
        return f"g4_r{self.count}"


def _has_string(schema: Any) -> bool:
    """Whether a value of this schema may hold a string (which Gemma writes in its own quotes)."""
    if not isinstance(schema, dict):
        return True
    if any(k in schema for k in ("$ref", "anyOf", "oneOf", "allOf", "items", "properties", "prefixItems")):
        return True
    kind = schema.get("type")
    if kind is None:
        return ("enum" not in schema and "const" not in schema) or any(
            isinstance(v, (str, list, dict)) for v in [*schema.get("enum", []), schema.get("const")])
    kinds = kind if isinstance(kind, list) else [kind]
    return any(k in ("string", "array", "object") for k in kinds)


def _value(schema: Any, rules: _Rules, depth: int = 0) -> str:
    """The Lark expression of a value of ``schema`` written Gemma's way."""
    if not isinstance(schema, dict) or depth > 8:
        return "g4_any"
    if "$ref" in schema:
        ref = str(schema["$ref"]).rsplit("/", 1)[-1]
        target = rules.defs.get(ref)
        return _value(target, rules, depth + 1) if isinstance(target, dict) else "g4_any"
    for key in ("anyOf", "oneOf"):
        if isinstance(schema.get(key), list) and schema[key]:
            return "(" + " | ".join(_value(s, rules, depth + 1) for s in schema[key]) + ")"
    if not _has_string(schema):
        return _json(closed_objects(schema))
    if "enum" in schema or "const" in schema:
        values = schema.get("enum", [schema.get("const")])
        return "(" + " | ".join(_lit(gemma4_value(v)) for v in values) + ")"
    kind = schema.get("type")
    if isinstance(kind, list):
        return "(" + " | ".join(_value({**schema, "type": k}, rules, depth + 1) for k in kind) + ")"
    if kind == "string":
        return _string(schema)
    if kind == "array" or "items" in schema:
        return _array(schema, rules, depth)
    if kind == "object" or "properties" in schema:
        return _object(schema, rules, depth)
    return "g4_any"


def _string(schema: Mapping[str, Any]) -> str:
    """A string: any text up to the closing quote, or a bounded run of characters without ``<`` (which the quote
    starts with)."""
    low, high = schema.get("minLength"), schema.get("maxLength")
    if not isinstance(low, int) and not isinstance(high, int):
        return "g4_str"
    run = f"/[^<]{{{low if isinstance(low, int) else 0},{high if isinstance(high, int) else ''}}}/"
    return f"{_QUOTE} {run} {_QUOTE}"


def _array(schema: Mapping[str, Any], rules: _Rules, depth: int) -> str:
    item = _value(schema.get("items", {}), rules, depth + 1)
    low = schema.get("minItems", 0) if isinstance(schema.get("minItems"), int) else 0
    high = schema.get("maxItems") if isinstance(schema.get("maxItems"), int) else None
    if high is not None and high < low:
        raise ConstraintUnsatisfiable("an array's maxItems is below its minItems", param=rules.param)
    if high == 0:
        return '"[" "]"'
    # The first item, then the rest: the required ones, then the optional ones nested (or any number of them).
    rest = " ".join([f'"," {item}'] * max(low - 1, 0))
    more = f'("," {item})*' if high is None else ""
    if high is not None:
        for _ in range(high - max(low, 1)):
            more = f'("," {item} {more})?'
    items = f"{item} {rest} {more}"
    return f'"[" {items} "]"' if low > 0 else f'"[" ({items})? "]"'


def _object(schema: Mapping[str, Any], rules: _Rules, depth: int) -> str:
    properties = schema.get("properties")
    if not isinstance(properties, dict) or not properties:
        if schema.get("additionalProperties") is False:
            return '"{" "}"'
        return '"{" (G4_KEY ":" g4_any ("," G4_KEY ":" g4_any)*)? "}"'
    required = set(schema.get("required") or ())
    keys = sorted(properties)
    for key in keys:
        if not WORD.fullmatch(key):
            raise ConstraintUnsatisfiable(f"the key '{key}' cannot be written bare in a Gemma 4 call",
                                          param=rules.param)
    name = rules.fresh()
    items = [f"{_lit(key + ':')} {_value(properties[key], rules, depth + 1)}" for key in keys]
    # {name}_f{i}: keys i.. when none was written yet; {name}_r{i}: the same after one (each behind ",").
    rules.rules += [f'{name}_f{len(keys)}: ""', f'{name}_r{len(keys)}: ""']
    for i in reversed(range(len(keys))):
        first, rest = f"{name}_f{i + 1}", f"{name}_r{i + 1}"
        rules.rules.append(f"{name}_f{i}: {items[i]} {rest}" + ("" if keys[i] in required else f" | {first}"))
        rules.rules.append(f'{name}_r{i}: "," {items[i]} {rest}' + ("" if keys[i] in required else f" | {rest}"))
    return f'"{{" {name}_f0 "}}"'


def _marker(text: str, control: Mapping[str, int]) -> str:
    return f"({_lit(text)} | <[{control[text]}]>)" if text in control else _lit(text)


THOUGHT = (GEMMA4_CHANNEL[0] + "thought", GEMMA4_CHANNEL[1])
"""Gemma 4's thinking block, as the model writes it before its words or calls (the template's reasoning pair)."""


def _thought_rules(control: Mapping[str, int]) -> list[str]:
    """``g4_thought``: a thinking block, any text up to its close (each mark spelled out or as its control
    token)."""
    body = raw_string({}, THOUGHT[1], control, "g4t")
    return [f"g4_thought: {piece(THOUGHT[0], control)} {body}", *raw_text_rules("g4t", THOUGHT[1])]


def gemma4_lark(tools: tuple[ToolSpec, ...], parallel: bool, param: str, control: Mapping[str, int], *,
                thinking: bool = False) -> str:
    """The grammar of a reply that is one Gemma 4 call (or, ``parallel``, several blocks in a row).

    ``thinking``: the whole reply is held (a forced call) while the template's thinking is on, so a thinking
    block may come first, as llama.cpp's Gemma 4 grammar allows (the thinking-off prompt ends in an empty one)."""
    names = []
    lines: list[str] = []
    for i, tool in enumerate(tools):
        if not WORD.fullmatch(tool.name):
            raise ConstraintUnsatisfiable(f"'{tool.name}' cannot be written as a Gemma 4 call", param=param)
        schema = tool.parameters or {"type": "object"}
        if not isinstance(schema, dict) or schema.get("type", "object") != "object":
            raise ConstraintUnsatisfiable(f"Gemma 4 calls take named arguments; the parameters of '{tool.name}' "
                                          "are not an object", param=param)
        rules = _Rules({**schema.get("definitions", {}), **schema.get("$defs", {})}, param)
        rules.count = i * 1000
        body = _object({**schema, "additionalProperties": False}, rules, 0)
        lines += rules.rules
        lines.append(f"c{i}: {_marker(GEMMA4_OPEN, control)} {_lit('call:' + tool.name)} {body} "
                     f"{_marker(GEMMA4_CLOSE, control)}")
        names.append(f"c{i}")
    start = "start: " + ("g4_thought? " if thinking else "") + ("call+" if parallel else "call")
    thought = _thought_rules(control) if thinking else []
    return "\n".join([start, f"call: {' | '.join(names)}", *lines, *_SHARED, *thought]) + "\n"


# ---- reading a value -------------------------------------------------------------------------------------------


def value_end(text: str) -> int | None:
    """Where a value at the text's start ends: the index of the ``,`` or ``}`` after it, outside quotes and
    brackets; None while it has not come."""
    depth, quoted, at = 0, False, 0
    while at < len(text):
        if text.startswith(GEMMA4_QUOTE, at):
            quoted = not quoted
            at += len(GEMMA4_QUOTE)
            continue
        ch = text[at]
        if not quoted:
            if ch in "[{":
                depth += 1
            elif ch in "]}" and depth:
                depth -= 1
            elif ch in ",}" and depth == 0:
                return at
        at += 1
    return None


def _scalar(word: str) -> Any:
    word = word.strip()
    if word in ("None", "null"):
        return None
    if word in ("true", "True", "false", "False"):
        return word in ("true", "True")
    try:
        return json.loads(word)
    except json.JSONDecodeError:
        return word


def _parse(text: str, at: int) -> tuple[Any, int]:
    """The value at ``at`` and where it ends; lenient, as a model may stray from the template's writing."""
    while at < len(text) and text[at].isspace():
        at += 1
    if text.startswith(GEMMA4_QUOTE, at):
        start = at + len(GEMMA4_QUOTE)
        end = text.find(GEMMA4_QUOTE, start)
        end = len(text) if end < 0 else end
        return text[start:end], min(len(text), end + len(GEMMA4_QUOTE))
    if text.startswith("[", at):
        items: list[Any] = []
        at += 1
        while at < len(text) and text[at] != "]":
            if text[at] in ", \n":
                at += 1
                continue
            item, at = _parse(text, at)
            items.append(item)
        return items, at + 1
    if text.startswith("{", at):
        members: dict[str, Any] = {}
        at += 1
        while at < len(text) and text[at] != "}":
            if text[at] in ", \n":
                at += 1
                continue
            colon = text.find(":", at)
            if colon < 0:
                break
            key = text[at:colon].strip().replace(GEMMA4_QUOTE, "").strip('"')
            members[key], at = _parse(text, colon + 1)
        return members, at + 1
    end = at
    while end < len(text) and text[end] not in ",}]":
        end += 1
    return _scalar(text[at:end]), end


def gemma4_json(text: str) -> str:
    """A value written Gemma's way, as JSON in the compact layout."""
    return json.dumps(_parse(text, 0)[0], ensure_ascii=False)


# ---- the reader ------------------------------------------------------------------------------------------------


class Gemma4Reader(MarkedReader):
    """``<|tool_call>call:NAME{key:value,...}<tool_call|>``; a call opens once ``call:NAME{`` is read, and each
    value is read whole and written as JSON."""

    marker = GEMMA4_OPEN

    def _open_calls(self) -> None:
        self.stage = "head"
        self.wrote_key = False
        self.index = -1

    def _emit(self, out: ParsedPiece, arguments: str) -> None:
        out.calls.append(ToolCallDelta(index=self.index, arguments=arguments))

    def _read_calls(self, out: ParsedPiece) -> bool:
        step = {"head": self._head, "key": self._key, "value": self._value, "close": self._close}
        while self.buffer and self.stage != "done":
            if not step[self.stage](out):
                return False
        return self.stage == "done"

    def _head(self, out: ParsedPiece) -> bool:
        at = self.buffer.find("{")
        if at < 0:
            return False
        name = self.buffer[:at].strip().removeprefix("call:").strip()
        self.index = self.calls_seen
        self.calls_seen += 1
        out.calls.append(ToolCallDelta(index=self.index, id=new_call_id(), name=name))
        self.buffer = self.buffer[at + 1:]
        self.stage = "key"
        return True

    def _key(self, out: ParsedPiece) -> bool:
        self.buffer = self.buffer.lstrip(", \n")
        if self.buffer.startswith("}"):
            self._emit(out, "}" if self.wrote_key else "{}")
            self.buffer = self.buffer[1:]
            self.stage = "close"
            return True
        at = self.buffer.find(":")
        if at < 0:
            return False
        key = self.buffer[:at].strip().replace(GEMMA4_QUOTE, "").strip('"')
        self._emit(out, (", " if self.wrote_key else "{") + json.dumps(key, ensure_ascii=False) + ": ")
        self.buffer = self.buffer[at + 1:]
        self.stage, self.wrote_key = "value", True
        return True

    def _value(self, out: ParsedPiece) -> bool:
        end = value_end(self.buffer)
        if end is None:
            return False
        self._emit(out, gemma4_json(self.buffer[:end]))
        self.buffer = self.buffer[end:]
        self.stage = "key"
        return True

    def _close(self, out: ParsedPiece) -> bool:
        """The closing marker, where the model wrote it."""
        self.buffer = self.buffer.lstrip()
        if len(self.buffer) < len(GEMMA4_CLOSE) and GEMMA4_CLOSE.startswith(self.buffer):
            return False
        self.buffer = self.buffer.removeprefix(GEMMA4_CLOSE)
        self.stage = "done"
        return True
