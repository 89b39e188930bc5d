"""Tool calling: how tools reach the prompt, how calls are constrained, and how they are read back out.

Two formats, chosen from the chat template (never the model name):

* ``hermes`` — templates that read ``tools`` and speak ``<tool_call>{"name": ..., "arguments": ...}</tool_call>``
  (Hermes, Qwen and their kin). The template renders the tools itself. ``required`` and a named function
  constrain the whole reply to calls; ``auto`` engages the call grammar lazily, once the model writes
  ``<tool_call>``.
* ``generic`` — every other template (the bundled SmolLM2's included). The tools and a JSON reply format are
  described in a system message, and the reply is always constrained JSON: ``{"tool_calls": [...]}`` or, when
  the model may answer in words (``auto``), ``{"response": "..."}``.

Llama 3 (``{"name": ..., "parameters": ...}``) and Mistral (``[TOOL_CALLS] [...]``) replies are read by
:func:`parse_calls_text` for templates of those families; their constrained streaming uses the generic path.

Calls are read incrementally from the constrained text, so a stream carries OpenAI's partial deltas: an
opening entry with id and name, then fragments of the arguments JSON.
"""

from __future__ import annotations

import json
import re
import secrets
from dataclasses import dataclass, field
from typing import Any, Literal

from superfluid.engine.grammar import Constraint
from superfluid.errors import InvalidRequest

ToolChoice = Literal["auto", "none", "required"] | str
"""auto, none, required, or the name of one function that must be called."""

HERMES_OPEN = "<tool_call>"
HERMES_CLOSE = "</tool_call>"


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    parameters: dict[str, Any]

    def as_template_tool(self) -> dict[str, Any]:
        return {"type": "function", "function": {"name": self.name, "description": self.description,
                                                 "parameters": self.parameters}}


@dataclass(frozen=True)
class ToolPolicy:
    tools: tuple[ToolSpec, ...]
    choice: ToolChoice = "auto"
    parallel: bool = False

    @property
    def active(self) -> bool:
        return bool(self.tools) and self.choice != "none"

    def callable_tools(self) -> tuple[ToolSpec, ...]:
        if self.choice in ("auto", "required", "none"):
            return self.tools
        return tuple(t for t in self.tools if t.name == self.choice)


@dataclass(frozen=True)
class ToolCallDelta:
    """A piece of a call: ``name`` and ``id`` open it; ``arguments`` fragments follow on the same index."""

    index: int
    id: str | None = None
    name: str | None = None
    arguments: str = ""


def new_call_id() -> str:
    return "call_" + secrets.token_hex(12)


# ---- constraints ----------------------------------------------------------------------------------------


def closed_objects(schema: Any, *, deep: bool) -> Any:
    """Objects that do not say otherwise take no extra properties (OpenAI's strict-mode reading).

    Only ``properties``-bearing objects are closed; ``deep`` closes nested ones too."""
    if not isinstance(schema, dict):
        return schema
    out = dict(schema)
    if out.get("type") == "object" and "properties" in out and "additionalProperties" not in out:
        out["additionalProperties"] = False
    if deep:
        for key in ("properties", "$defs", "definitions"):
            if isinstance(out.get(key), dict):
                out[key] = {k: closed_objects(v, deep=True) for k, v in out[key].items()}
        for key in ("items", "additionalProperties"):
            if isinstance(out.get(key), dict):
                out[key] = closed_objects(out[key], deep=True)
        for key in ("anyOf", "oneOf", "allOf", "prefixItems"):
            if isinstance(out.get(key), list):
                out[key] = [closed_objects(v, deep=True) for v in out[key]]
    return out


def _call_schema(tool: ToolSpec) -> dict[str, Any]:
    params = closed_objects(tool.parameters or {"type": "object"}, deep=False)
    return {
        "type": "object",
        "properties": {"name": {"const": tool.name}, "arguments": params},
        "required": ["name", "arguments"],
        "additionalProperties": False,
    }


def _calls_array(policy: ToolPolicy) -> dict[str, Any]:
    tools = policy.callable_tools()
    item = _call_schema(tools[0]) if len(tools) == 1 else {"anyOf": [_call_schema(t) for t in tools]}
    array: dict[str, Any] = {"type": "array", "items": item, "minItems": 1}
    if not policy.parallel:
        array["maxItems"] = 1
    return array


def generic_constraint(policy: ToolPolicy) -> Constraint:
    calls = {"type": "object", "properties": {"tool_calls": _calls_array(policy)}, "required": ["tool_calls"],
             "additionalProperties": False}
    if policy.choice != "auto":
        return Constraint.for_schema(calls, param="tool_choice")
    words = {"type": "object", "properties": {"response": {"type": "string"}}, "required": ["response"],
             "additionalProperties": False}
    return Constraint.for_schema({"anyOf": [calls, words]}, param="tools")


def _lark_json(schema: dict[str, Any]) -> str:
    return "%json " + json.dumps(schema)


def hermes_constraint(policy: ToolPolicy) -> tuple[Constraint, bool]:
    """The call grammar, and whether it is lazy (engaged only after the model writes ``<tool_call>``)."""
    tools = policy.callable_tools()
    item = _call_schema(tools[0]) if len(tools) == 1 else {"anyOf": [_call_schema(t) for t in tools]}
    options = {"x-guidance": {"whitespace_flexible": False, "item_separator": ", ", "key_separator": ": "}}
    body = _lark_json({**item, **options})
    one_call = f'"{HERMES_OPEN}\\n" call "\\n{HERMES_CLOSE}"'
    repeat = f"({one_call} \"\\n\")* {one_call}" if policy.parallel else one_call
    if policy.choice == "auto":
        # After the trigger: the rest of this call, then optionally more calls.
        after = '"\\n" call "\\n' + HERMES_CLOSE + '"'
        more = f"(\"\\n\" {one_call})*" if policy.parallel else ""
        lark = f"start: {after} {more}\ncall: {body}\n"
        return Constraint(lark=lark, param="tools"), True
    return Constraint(lark=f"start: {repeat}\ncall: {body}\n", param="tool_choice"), False


# ---- prompting ------------------------------------------------------------------------------------------


def generic_system_prompt(policy: ToolPolicy) -> str:
    lines = ["You can call these tools. Each is described as JSON:"]
    for tool in policy.callable_tools():
        lines.append(json.dumps({"name": tool.name, "description": tool.description,
                                 "parameters": tool.parameters}, ensure_ascii=False))
    lines.append('To call tools, reply with JSON: {"tool_calls": [{"name": <tool name>, "arguments": <arguments '
                 'object>}]}.')
    if policy.choice == "auto":
        lines.append('To answer without a tool, reply with JSON: {"response": <your answer as a string>}.')
    return "\n".join(lines)


# ---- reading calls back ---------------------------------------------------------------------------------


class _JsonStringReader:
    """Decodes the body of a JSON string as it streams in; stops at the closing quote."""

    def __init__(self) -> None:
        self.pending = ""
        self.closed = False

    def feed(self, text: str) -> tuple[str, str]:
        """Returns (decoded text ready to emit, text after the closing quote)."""
        data = self.pending + text
        self.pending = ""
        out: list[str] = []
        i = 0
        while i < len(data):
            ch = data[i]
            if ch == '"':
                self.closed = True
                return "".join(out), data[i + 1:]
            if ch == "\\":
                need = 6 if data[i + 1: i + 2] == "u" else 2
                if need == 6 and len(data) - i >= 6 and 0xD800 <= int(data[i + 2: i + 6], 16) <= 0xDBFF:
                    need = 12  # a surrogate pair is decoded whole
                if len(data) - i < need:
                    self.pending = data[i:]
                    break
                out.append(json.loads('"' + data[i: i + need] + '"'))
                i += need
                continue
            out.append(ch)
            i += 1
        return "".join(out), ""


class _ValueReader:
    """Finds where one JSON value ends in a stream, passing its text through."""

    def __init__(self) -> None:
        self.depth = 0
        self.in_string = False
        self.escaped = False
        self.started = False
        self.done = False

    def feed(self, text: str) -> tuple[str, str]:
        """Returns (value text, text after the value)."""
        for i, ch in enumerate(text):
            if self.in_string:
                if self.escaped:
                    self.escaped = False
                elif ch == "\\":
                    self.escaped = True
                elif ch == '"':
                    self.in_string = False
                    if self.depth == 0:
                        self.done = True
                        return text[: i + 1], text[i + 1:]
                continue
            if ch == '"':
                self.in_string = True
                self.started = True
            elif ch in "{[":
                self.depth += 1
                self.started = True
            elif ch in "}]":
                if self.depth == 0:  # a scalar value ends where its container closes
                    self.done = True
                    return text[:i], text[i:]
                self.depth -= 1
                if self.depth == 0:
                    self.done = True
                    return text[: i + 1], text[i + 1:]
            elif ch in ",\n" and self.started and self.depth == 0:
                self.done = True
                return text[:i], text[i:]
            elif not ch.isspace():
                self.started = True
        return text, ""

    def feed_trimmed(self, text: str) -> tuple[str, str]:
        """Like feed, dropping whitespace before the value starts."""
        if not self.started:
            text = text.lstrip()
        return self.feed(text)


_NAME_PREFIX = re.compile(r'\s*\{\s*"name"\s*:\s*"')
_ARGS_PREFIX = re.compile(r'\s*,\s*"(?:arguments|parameters)"\s*:\s*')


class CallObjectReader:
    """Reads one ``{"name": "...", "arguments": {...}}`` object incrementally, emitting ToolCallDeltas."""

    def __init__(self, index: int) -> None:
        self.index = index
        self.stage = "open"
        self.buffer = ""
        self.name = _JsonStringReader()
        self.name_text = ""
        self.args = _ValueReader()
        self.done = False

    def feed(self, text: str) -> tuple[list[ToolCallDelta], str]:
        """Returns deltas, and text left over after the object closed."""
        out: list[ToolCallDelta] = []
        self.buffer += text
        while self.buffer and not self.done:
            if self.stage == "open":
                match = _NAME_PREFIX.match(self.buffer)
                if match is None:
                    return out, ""
                self.buffer = self.buffer[match.end():]
                self.stage = "name"
            elif self.stage == "name":
                decoded, rest = self.name.feed(self.buffer)
                self.name_text += decoded
                self.buffer = rest
                if not self.name.closed:
                    return out, ""
                out.append(ToolCallDelta(index=self.index, id=new_call_id(), name=self.name_text))
                self.stage = "args_key"
            elif self.stage == "args_key":
                match = _ARGS_PREFIX.match(self.buffer)
                if match is None:
                    return out, ""
                self.buffer = self.buffer[match.end():]
                self.stage = "args"
            elif self.stage == "args":
                value, rest = self.args.feed_trimmed(self.buffer)
                self.buffer = ""
                if value:
                    out.append(ToolCallDelta(index=self.index, arguments=value))
                if self.args.done:
                    self.buffer = rest
                    self.stage = "close"
            elif self.stage == "close":
                at = self.buffer.find("}")
                if at < 0:
                    return out, ""
                self.done = True
                rest = self.buffer[at + 1:]
                self.buffer = ""
                return out, rest
        return out, ""


@dataclass
class ParsedPiece:
    content: str = ""
    calls: list[ToolCallDelta] = field(default_factory=list)


_WORDS_OPEN = re.compile(r'\s*\{\s*"response"\s*:\s*"')
_CALLS_OPEN = re.compile(r'\s*\{\s*"tool_calls"\s*:\s*\[')


class GenericReader:
    """Reads the generic format: ``{"response": "..."}`` streams as content, ``{"tool_calls": [...]}`` as calls."""

    def __init__(self) -> None:
        self.buffer = ""
        self.mode = "start"
        self.words = _JsonStringReader()
        self.call: CallObjectReader | None = None
        self.calls_seen = 0

    def feed(self, text: str) -> ParsedPiece:
        out = ParsedPiece()
        self.buffer += text
        while self.buffer:
            if self.mode == "start":
                words, calls = _WORDS_OPEN.match(self.buffer), _CALLS_OPEN.match(self.buffer)
                opened = words or calls
                if opened is None:
                    return out
                self.mode = "words" if words else "calls"
                self.buffer = self.buffer[opened.end():]
            elif self.mode == "words":
                decoded, _ = self.words.feed(self.buffer)
                out.content += decoded
                self.buffer = ""
                if self.words.closed:
                    self.mode = "end"
            elif self.mode == "calls" and self.call is None:
                self.buffer = self.buffer.lstrip(", \n")
                if self.buffer.startswith("]"):
                    self.mode = "end"
                elif self.buffer:
                    self.call = CallObjectReader(self.calls_seen)
                    self.calls_seen += 1
            elif self.mode == "calls":
                assert self.call is not None
                deltas, self.buffer = self.call.feed(self.buffer)
                out.calls.extend(deltas)
                if not self.call.done:
                    return out
                self.call = None
            else:
                self.buffer = ""
        return out

    def finish(self) -> ParsedPiece:
        return ParsedPiece()


class HermesReader:
    """Content streams until ``<tool_call>``; each call body is read incrementally until ``</tool_call>``."""

    def __init__(self) -> None:
        self.buffer = ""
        self.call: CallObjectReader | None = None
        self.calls_seen = 0
        self.in_call = False
        self.after_call = False

    def feed(self, text: str) -> ParsedPiece:
        out = ParsedPiece()
        self.buffer += text
        while self.buffer:
            if not self.in_call:
                if self.after_call:  # whitespace between calls is not content
                    self.buffer = self.buffer.lstrip()
                    if not self.buffer:
                        return out
                    self.after_call = False
                at = self.buffer.find(HERMES_OPEN)
                if at < 0:
                    keep = _partial_tail(self.buffer, HERMES_OPEN)
                    out.content += self.buffer[: len(self.buffer) - keep]
                    self.buffer = self.buffer[len(self.buffer) - keep:]
                    return out
                out.content += self.buffer[:at]
                self.buffer = self.buffer[at + len(HERMES_OPEN):]
                self.in_call = True
                self.call = CallObjectReader(self.calls_seen)
                self.calls_seen += 1
            else:
                assert self.call is not None
                if not self.call.done:
                    deltas, rest = self.call.feed(self.buffer)
                    out.calls.extend(deltas)
                    self.buffer = rest
                    if not self.call.done:
                        return out
                at = self.buffer.find(HERMES_CLOSE)
                if at < 0:
                    return out
                self.buffer = self.buffer[at + len(HERMES_CLOSE):]
                self.in_call = False
                self.after_call = True
                self.call = None
        return out

    def finish(self) -> ParsedPiece:
        rest = ParsedPiece()
        if not self.in_call:
            rest.content, self.buffer = self.buffer, ""
        return rest


def _partial_tail(text: str, needle: str) -> int:
    for size in range(min(len(needle) - 1, len(text)), 0, -1):
        if text.endswith(needle[:size]):
            return size
    return 0


CallReader = GenericReader | HermesReader


def tool_format(template_source: str, supports_tools: bool) -> Literal["hermes", "generic"]:
    """Hermes when the template reads ``tools`` and writes ``<tool_call>``; generic otherwise."""
    if supports_tools and HERMES_OPEN in template_source:
        return "hermes"
    return "generic"


def parse_calls_text(text: str) -> list[dict[str, Any]]:
    """Whole-reply parsing for the Llama 3 and Mistral shapes (and bare call objects).

    Returns ``[{"name", "arguments"}]`` (arguments as a JSON string); empty when the text holds no call.
    """
    body = text.strip()
    if body.startswith("[TOOL_CALLS]"):
        body = body[len("[TOOL_CALLS]"):].strip()
    if body.startswith("<|python_tag|>"):
        body = body[len("<|python_tag|>"):].strip()
    try:
        value = json.loads(body)
    except json.JSONDecodeError:
        return []
    items = value if isinstance(value, list) else [value]
    calls = []
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            return []
        args = item.get("arguments", item.get("parameters", {}))
        calls.append({"name": item["name"], "arguments": args if isinstance(args, str) else json.dumps(args)})
    return calls


def policy_from_openai(tools: list[dict[str, Any]] | None, choice: Any, parallel: bool | None) -> ToolPolicy:
    """OpenAI ``tools`` / ``tool_choice`` / ``parallel_tool_calls`` -> a ToolPolicy (400 on a bad choice)."""
    specs = []
    for i, tool in enumerate(tools or []):
        fn = tool.get("function") if isinstance(tool, dict) else None
        if tool.get("type", "function") != "function" or not isinstance(fn, dict) or not fn.get("name"):
            raise InvalidRequest("each tool must be {\"type\": \"function\", \"function\": {\"name\", ...}}",
                                 param=f"tools[{i}]")
        specs.append(ToolSpec(name=str(fn["name"]), description=str(fn.get("description") or ""),
                              parameters=fn.get("parameters") or {"type": "object", "properties": {}}))
    if choice is None:
        picked: ToolChoice = "auto"
    elif isinstance(choice, str):
        if choice not in ("auto", "none", "required"):
            raise InvalidRequest(f"tool_choice must be auto, none, required or a function; got '{choice}'",
                                 param="tool_choice")
        picked = choice
    else:
        name = (choice.get("function") or {}).get("name") if isinstance(choice, dict) else None
        if not name:
            raise InvalidRequest('tool_choice must name a function: {"type": "function", "function": {"name"}}',
                                 param="tool_choice")
        if name not in {s.name for s in specs}:
            raise InvalidRequest(f"tool_choice names '{name}', which is not in tools", param="tool_choice")
        picked = str(name)
    if picked not in ("auto", "none") and not specs:
        raise InvalidRequest("tool_choice asks for a call but no tools were given", param="tool_choice")
    # As llama-server does, one call per reply unless the client asks for parallel calls.
    return ToolPolicy(tools=tuple(specs), choice=picked, parallel=parallel is True)
