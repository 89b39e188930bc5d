"""Call formats described as data: the literal pieces a family writes around a call's name and arguments.

Most native formats that are not a JSON object per call share one of two shapes::

    [section_open] call (call_sep call)* [section_close]
    call = call_open NAME name_end ARGUMENTS call_close

where ARGUMENTS is either one JSON object (DeepSeek, Kimi K2, Mistral's ``[ARGS]``, Functionary v3.1, and the
JSON call objects between markers of Nemotron Nano 2, Apriel, MiniMax M1, FireFunction, Granite 3.3, GigaChat and
Apertus, whose ``{"name": "`` is a piece like any other) or a
run of ``arg_open KEY arg_mid VALUE arg_close`` pairs (Qwen3-Coder, Seed-OSS, GLM, MiniMax M2, DeepSeek's DSML,
Hunyuan, MiniCPM), whose string values are written raw and other values as JSON. One
:class:`CallSyntax` per family holds the pieces exactly as the family's template writes them (the tests render
each published template and compare); from it come the family's generation grammar
(:func:`syntax_lark`), its streaming reader (:class:`SyntaxReader`) and an example call for a prompt
(:meth:`CallSyntax.write`).

The reader is lenient where models are: whitespace around the pieces is skipped, and a value written on its
own line (Qwen3-Coder's ``<parameter=city>\\nParis\\n</parameter>``) loses those two newlines only.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from superfluid.engine.decoding.grammar import closed_objects
from superfluid.engine.decoding.grammar import lark_json as _json
from superfluid.engine.decoding.grammar import lark_literal as _lit
from superfluid.engine.decoding.json_stream import ValueReader
from superfluid.engine.decoding.tool_calls import ParsedPiece, ToolCallDelta, ToolSpec, new_call_id
from superfluid.errors import ConstraintUnsatisfiable

PLACEHOLDER = re.compile(r"\{(index|id)\}")
"""What stands in ``call_open`` or ``name_end`` for a call's 0-based position in the reply (``{index}``: Kimi K2's
``functions.name:0``) or for its id (``{id}``: Mistral's ``[CALL_ID]``, nine letters and digits)."""


def _fill(piece: str, index: int) -> str:
    return piece.replace("{index}", str(index)).replace("{id}", f"{index:09d}")


@dataclass(frozen=True)
class CallSyntax:
    family: str
    call_open: str
    name_end: str
    call_close: str
    section_open: str = ""
    section_close: str = ""
    call_sep: str = ""
    xml: bool = False
    """Arguments as key/value pairs; else one JSON object."""
    arg_open: str = ""
    arg_mid: str = ""
    """Between a key and a string value (and every value, unless ``arg_mid_json`` is set)."""
    arg_close: str = ""
    arg_mid_json: str = ""
    """Between a key and a value written as JSON, where the family marks the two apart (DSML's
    ``string="false"``)."""

    @property
    def trigger(self) -> str:
        """What starts the calls: the grammar of ``auto`` engages from here."""
        return PLACEHOLDER.split((self.section_open or self.call_open).strip().split("\n")[0])[0]

    def markers(self) -> tuple[str, ...]:
        """The pieces' special-token-like parts (``<tool_call>``, ``<｜tool▁sep｜>``, ``[ARGS]``): a vocabulary
        may hold them as control tokens, which the reply must then write out."""
        found: list[str] = []
        for piece in (self.section_open, self.section_close, self.call_open, self.name_end, self.call_close,
                      self.arg_open, self.arg_mid, self.arg_mid_json, self.arg_close):
            for part in _split(piece):
                if _SPECIAL.fullmatch(part) and part not in found:
                    found.append(part)
        return tuple(found)

    def write(self, calls: list[tuple[str, Mapping[str, Any]]]) -> str:
        """Calls as this family writes them (JSON in the compact layout)."""
        out = []
        for index, (name, arguments) in enumerate(calls):
            if self.xml:
                body = "".join(self._write_argument(key, value) for key, value in arguments.items())
            else:
                body = json.dumps(dict(arguments), ensure_ascii=False)
            out.append(_fill(self.call_open, index) + name + _fill(self.name_end, index) + body + self.call_close)
        return self.section_open + self.call_sep.join(out) + self.section_close

    def _write_argument(self, key: str, value: Any) -> str:
        if isinstance(value, str):
            return self.arg_open + key + self.arg_mid + value + self.arg_close
        return self.arg_open + key + (self.arg_mid_json or self.arg_mid) + json.dumps(value, ensure_ascii=False) \
            + self.arg_close


_SPECIAL = re.compile(r"<[^<>\s]+>|\[[A-Z_]+\]")
_PARTS = re.compile(r"(<[^<>\s]+>|\[[A-Z_]+\]|\s+)")


def _split(piece: str) -> list[str]:
    return [part for part in _PARTS.split(piece) if part]


# ---- the families ---------------------------------------------------------------------------------------------

_QWEN3_CODER = CallSyntax(
    "qwen3_coder", call_open="<tool_call>\n<function=", name_end=">\n", call_close="</function>\n</tool_call>",
    call_sep="\n", xml=True, arg_open="<parameter=", arg_mid=">\n", arg_close="\n</parameter>\n")
_SEED_OSS = CallSyntax(
    "seed_oss", call_open="<seed:tool_call>\n<function=", name_end=">\n",
    call_close="</function>\n</seed:tool_call>", call_sep="\n", xml=True, arg_open="<parameter=", arg_mid=">",
    arg_close="</parameter>\n")
_GLM = CallSyntax(
    "glm", call_open="<tool_call>", name_end="\n", call_close="</tool_call>", call_sep="\n", xml=True,
    arg_open="<arg_key>", arg_mid="</arg_key>\n<arg_value>", arg_close="</arg_value>\n")
_GLM_COMPACT = CallSyntax(
    "glm_compact", call_open="<tool_call>", name_end="", call_close="</tool_call>", xml=True,
    arg_open="<arg_key>", arg_mid="</arg_key><arg_value>", arg_close="</arg_value>")
_MINIMAX_M2 = CallSyntax(
    "minimax_m2", section_open="<minimax:tool_call>\n", section_close="</minimax:tool_call>",
    call_open='<invoke name="', name_end='">\n', call_close="</invoke>\n", xml=True,
    arg_open='<parameter name="', arg_mid='">', arg_close="</parameter>\n")
_DSML_FUNCTIONS = CallSyntax(
    "dsml", section_open="<｜DSML｜function_calls>\n", section_close="</｜DSML｜function_calls>",
    call_open='<｜DSML｜invoke name="', name_end='">\n', call_close="</｜DSML｜invoke>\n", xml=True,
    arg_open='<｜DSML｜parameter name="', arg_mid='" string="true">', arg_mid_json='" string="false">',
    arg_close="</｜DSML｜parameter>\n")
_DSML_TOOLS = replace(_DSML_FUNCTIONS, family="dsml_tools", section_open="<｜DSML｜tool_calls>\n",
                      section_close="</｜DSML｜tool_calls>")
_HUNYUAN = CallSyntax(
    "hunyuan", section_open="<tool_calls:opensource>\n", section_close="</tool_calls:opensource>",
    call_open="<tool_call:opensource>", name_end="<tool_sep:opensource>\n", call_close="</tool_call:opensource>\n",
    xml=True, arg_open="<arg_key:opensource>", arg_mid="</arg_key:opensource>\n<arg_value:opensource>",
    arg_close="</arg_value:opensource>\n")
_MINICPM = CallSyntax(
    "minicpm", call_open='<function name="', name_end='">', call_close="</function>", xml=True,
    arg_open='<param name="', arg_mid='">', arg_close="</param>")
_KIMI_K2 = CallSyntax(
    "kimi_k2", section_open="<|tool_calls_section_begin|>", section_close="<|tool_calls_section_end|>",
    call_open="<|tool_call_begin|>functions.", name_end=":{index}<|tool_call_argument_begin|>",
    call_close="<|tool_call_end|>")
_DEEPSEEK_R1 = CallSyntax(
    "deepseek_r1", section_open="<｜tool▁calls▁begin｜>", section_close="<｜tool▁calls▁end｜>",
    call_open="<｜tool▁call▁begin｜>function<｜tool▁sep｜>", name_end="\n```json\n",
    call_close="\n```<｜tool▁call▁end｜>", call_sep="\n")
_DEEPSEEK_V3 = CallSyntax(
    "deepseek_v3", section_open="<｜tool▁calls▁begin｜>", section_close="<｜tool▁calls▁end｜>",
    call_open="<｜tool▁call▁begin｜>", name_end="<｜tool▁sep｜>", call_close="<｜tool▁call▁end｜>")
_MISTRAL_ARGS = CallSyntax("mistral_args", call_open="[TOOL_CALLS]", name_end="[ARGS]", call_close="")
_MISTRAL_CALL_ID = CallSyntax("mistral_call_id", call_open="[TOOL_CALLS]", name_end="[CALL_ID]{id}[ARGS]",
                              call_close="")
_FUNCTIONARY = CallSyntax("functionary_v3_1", call_open="<function=", name_end=">", call_close="</function>")

# JSON call objects between markers: the object's opening, its name and its arguments key are pieces too.
_NEMOTRON_V2 = CallSyntax("nemotron_v2", section_open="<TOOLCALL>[", section_close="]</TOOLCALL>", call_sep=", ",
                          call_open='{"name": "', name_end='", "arguments": ', call_close="}")
_APRIEL = replace(_NEMOTRON_V2, family="apriel", section_open="<tool_calls>[", section_close="]</tool_calls>")
_MINIMAX_M1 = replace(_NEMOTRON_V2, family="minimax_m1", section_open="<tool_calls>\n",
                      section_close="\n</tool_calls>", call_sep="\n")
_FIREFUNCTION = replace(_NEMOTRON_V2, family="firefunction_v2", section_open=" functools[", section_close="]")
_GRANITE = replace(_NEMOTRON_V2, family="granite", section_open="<|tool_call|>[", section_close="]")
_GIGACHAT = CallSyntax("gigachat", call_open='<|function_call|>{"name": "', name_end='", "arguments": ',
                       call_close="}")
_COMMAND = CallSyntax("command_r7b", section_open="<|START_ACTION|>[\n    ", section_close="\n]<|END_ACTION|>",
                      call_sep=",\n    ", call_open='{"tool_call_id": "{index}", "tool_name": "',
                      name_end='", "parameters": ', call_close="}")
_APERTUS = CallSyntax("apertus", section_open="<|tools_prefix|>[", section_close="]<|tools_suffix|>",
                      call_sep=", ", call_open='{"', name_end='": ', call_close="}")


_DETECTION: tuple[tuple[tuple[str, ...], CallSyntax], ...] = (
    # (pieces the source must all hold, the family), most specific first: several families share <tool_call>.
    (("<seed:tool_call>",), _SEED_OSS),
    (("<minimax:tool_call>",), _MINIMAX_M2),
    (("DSML", "invoke name=", "function_calls"), _DSML_FUNCTIONS),
    (("DSML", "invoke name="), _DSML_TOOLS),
    (("<arg_key:opensource>",), _HUNYUAN),
    (("<arg_key>", "<tool_call>"), _GLM),  # or its compact layout: see layouts()
    (("<tool_call>", "<function=", "<parameter="), _QWEN3_CODER),
    (("<|tool_calls_section_begin|>",), _KIMI_K2),
    (("tool▁calls▁begin", "```json"), _DEEPSEEK_R1),
    (("tool▁calls▁begin",), _DEEPSEEK_V3),
    (("<tool_calls>",), _APRIEL),  # or MiniMax M1's layout: see layouts()
    (("<TOOLCALL>",), _NEMOTRON_V2),
    (("functools[",), _FIREFUNCTION),
    (("<|tool_call|>",), _GRANITE),
    (("<|START_ACTION|>",), _COMMAND),
    (("<|tools_prefix|>",), _APERTUS),
    (("<|function_call|>",), _GIGACHAT),
    (("[TOOL_CALLS]", "[ARGS]", "[CALL_ID]"), _MISTRAL_CALL_ID),
    (("[TOOL_CALLS]", "[ARGS]"), _MISTRAL_ARGS),
    (('<function name="', '<param name="'), _MINICPM),
    (("<function=", "<|python_tag|>"), _FUNCTIONARY),
)


def detect_syntax(source: str) -> CallSyntax | None:
    """The family a template's source writes its calls in, by the pieces only that family's templates hold."""
    for pieces, syntax in _DETECTION:
        if all(piece in source for piece in pieces):
            return syntax
    return None


SYNTAXES: dict[str, CallSyntax] = {s.family: s for s in (
    _QWEN3_CODER, _SEED_OSS, _GLM, _GLM_COMPACT, _MINIMAX_M2, _DSML_FUNCTIONS, _DSML_TOOLS, _HUNYUAN, _MINICPM,
    _KIMI_K2, _DEEPSEEK_R1, _DEEPSEEK_V3, _MISTRAL_ARGS, _MISTRAL_CALL_ID, _FUNCTIONARY, _NEMOTRON_V2, _APRIEL,
    _MINIMAX_M1, _FIREFUNCTION, _GRANITE, _GIGACHAT, _APERTUS, _COMMAND)}
"""Every syntax by its format name (a family with two layouts has a name for each)."""

_LAYOUTS = {"glm": ("glm", "glm_compact"), "apriel": ("apriel", "minimax_m1")}
"""Families whose templates differ in layout only: the one a template writes is found by rendering a call."""


def layouts(fmt: str) -> tuple[str, ...]:
    """The layouts a detected format may be written in, the detected one first."""
    return _LAYOUTS.get(fmt, (fmt,))


PROBE_CALL = ("get_weather", {"city": "Paris", "days": 2})
"""The call rendered to tell layouts apart."""


# ---- grammar --------------------------------------------------------------------------------------------------


def _piece(text: str, control: Mapping[str, int], index: str | None = None) -> str:
    """A piece as a Lark expression: its special parts either as text or as the control token that spells
    them, ``{index}`` as the call's position (``index``, or any number) and ``{id}`` as nine letters and
    digits."""
    items: list[str] = []
    for part in _split(text):
        for i, bit in enumerate(PLACEHOLDER.split(part)):
            if i % 2:
                items.append(_lit(index) if bit == "index" and index is not None else
                             "/[0-9]+/" if bit == "index" else "/[A-Za-z0-9]{9}/")
            elif bit in control:
                items.append(f"({_lit(bit)} | <[{control[bit]}]>)")
            elif bit:
                items.append(_lit(bit))
    return " ".join(items) if items else '""'


def syntax_lark(syntax: CallSyntax, tools: tuple[ToolSpec, ...], *, parallel: bool, param: str,
                control: Mapping[str, int] | None = None) -> str:
    """The grammar of a reply that is one call (or, ``parallel``, several) to ``tools`` in this syntax."""
    control = control or {}
    rules: list[str] = []
    names = []
    for i, tool in enumerate(tools):
        if _SPECIAL.search(tool.name) or any(ch.isspace() for ch in tool.name):
            raise ConstraintUnsatisfiable(f"'{tool.name}' cannot be written as a {syntax.family} call", param=param)
        if syntax.xml:
            body = _xml_arguments(syntax, tool, f"c{i}", rules, control, param)
        else:
            body = _json(closed_objects(tool.parameters or {"type": "object"}))
        # A call's position only shows in Kimi's pieces; one call per reply writes 0.
        index = None if parallel else "0"
        rules.append(f"c{i}: {_piece(syntax.call_open, control, index)} {_lit(tool.name)} "
                     f"{_piece(syntax.name_end, control, index)} {body} {_piece(syntax.call_close, control, index)}")
        names.append(f"c{i}")
    calls = f"call ({_piece(syntax.call_sep, control)} call)*" if parallel else "call"
    start = f"start: {_piece(syntax.section_open, control)} {calls} {_piece(syntax.section_close, control)}"
    return "\n".join([start, f"call: {' | '.join(names)}", *rules]) + "\n"


def _xml_arguments(syntax: CallSyntax, tool: ToolSpec, prefix: str, rules: list[str],
                   control: Mapping[str, int], param: str) -> str:
    """A call's key/value pairs in schema order, the required ones present."""
    schema = tool.parameters or {"type": "object"}
    if not isinstance(schema, dict) or schema.get("type", "object") != "object":
        raise ConstraintUnsatisfiable(f"{syntax.family} calls take named arguments; the parameters of "
                                      f"'{tool.name}' are not an object", param=param)
    defs: dict[str, Any] = {k: schema[k] for k in ("$defs", "definitions") if k in schema}
    properties = schema.get("properties") or {}
    if not isinstance(properties, dict):
        properties = {}
    required = set(schema.get("required") or ())
    keys = list(properties)
    for i, key in enumerate(keys):
        prop = properties[key] if isinstance(properties[key], dict) else {}
        item = f"{prefix}_p{i}"
        head = f"{_piece(syntax.arg_open, control)} {_lit(key)}"
        if _is_plain_string(prop):
            text = _string_text(prop, syntax.arg_close)
            rules.append(f"{item}_v[suffix={_lit(syntax.arg_close)}]: {text}" if text.startswith("/(")
                         else f"{item}_v: {text} {_piece(syntax.arg_close, control)}")
            rules.append(f"{item}: {head} {_piece(syntax.arg_mid, control)} {item}_v")
        else:
            value = _json(closed_objects({**prop, **defs}))
            rules.append(f"{item}: {head} {_piece(syntax.arg_mid_json or syntax.arg_mid, control)} {value} "
                         f"{_piece(syntax.arg_close, control)}")
    # f{i}: the arguments from i on; a required one must be written, an optional one may be skipped.
    rules.append(f'{prefix}_f{len(keys)}: ""')
    for i in reversed(range(len(keys))):
        item, rest = f"{prefix}_p{i}", f"{prefix}_f{i + 1}"
        rules.append(f"{prefix}_f{i}: {item} {rest}" if keys[i] in required else
                     f"{prefix}_f{i}: {item} {rest} | {rest}")
    return f"{prefix}_f0"


def _is_plain_string(prop: Mapping[str, Any]) -> bool:
    """A value the family writes raw: a string-typed property (an enum of strings included)."""
    if "$ref" in prop:
        return False
    if prop.get("type") == "string":
        return True
    values = prop.get("enum")
    return isinstance(values, list) and bool(values) and all(isinstance(v, str) for v in values)


def _string_text(prop: Mapping[str, Any], close: str) -> str:
    """A raw string value: its enum's words, a bounded run of characters, or any text up to the close."""
    values = prop.get("enum")
    if isinstance(values, list) and values:
        return "(" + " | ".join(_lit(str(v)) for v in values) + ")"
    if "const" in prop:
        return _lit(str(prop["const"]))
    low, high = prop.get("minLength"), prop.get("maxLength")
    if isinstance(low, int) or isinstance(high, int):
        # A bounded value cannot hold the close's first character; the close is written after it.
        stop = re.escape(close.strip()[:1])
        return f"/[^{stop}]{{{low if isinstance(low, int) else 0},{high if isinstance(high, int) else ''}}}/"
    return "/((.|\\n)*)/"


# ---- reading --------------------------------------------------------------------------------------------------


class _Piece:
    """A piece as the reader meets it: whitespace around it and between its parts is whatever the model wrote
    (GLM-family models differ on the newlines between ``</arg_key>`` and ``<arg_value>``), and a placeholder
    (Command's ``"tool_call_id": "{index}"``) is whatever position or id the model wrote there."""

    def __init__(self, text: str) -> None:
        bits = PLACEHOLDER.split(text)
        pattern = []
        for i, bit in enumerate(bits):
            if i % 2:
                pattern.append(r"\s*[0-9]+\s*" if bit == "index" else r"\s*[A-Za-z0-9]+\s*")
            elif bit.split():
                pattern.append(r"\s*".join(re.escape(p) for p in bit.split()))
        # What may_start compares with: the piece up to its first placeholder, and how long it may grow after.
        self.text = "".join(bits[0].split())
        self.rest = sum(len("".join(b.split())) + 12 for b in bits[1:])
        self.regex = re.compile(r"\s*".join(pattern)) if pattern else None

    def __bool__(self) -> bool:
        return bool(self.text)

    def find(self, buffer: str) -> tuple[int, int] | None:
        """Where the piece first appears: (start, end)."""
        found = self.regex.search(buffer) if self.regex else None
        return (found.start(), found.end()) if found else None

    def may_start(self, text: str) -> bool:
        """Whether ``text`` (whitespace aside) is the piece's beginning, not yet all of it (past a placeholder:
        it begins as the piece does and is not yet too long to be it)."""
        squashed = "".join(text.split())
        if len(squashed) < len(self.text):
            return self.text.startswith(squashed)
        return bool(self.rest) and squashed.startswith(self.text) and len(squashed) < len(self.text) + self.rest

    def take(self, buffer: str) -> int | bool | None:
        """At the buffer's start (after whitespace): the end of the piece there; None while the buffer may still
        grow into it; False when it cannot."""
        head = buffer.lstrip()
        found = self.regex.match(head) if self.regex else None
        if found:
            return len(buffer) - len(head) + found.end()
        return None if self.may_start(head) else False

    def held_back(self, buffer: str) -> int:
        """How much of the buffer's tail may still grow into the piece (and must wait)."""
        for size in range(min(len(buffer), len(self.text) * 2), 0, -1):
            tail = buffer[-size:]
            if not tail[0].isspace() and self.may_start(tail):
                return size
        return 0


def _as_json(text: str) -> str:
    """A value written raw: itself where it reads as JSON, else a JSON string of it."""
    try:
        json.loads(text)
    except json.JSONDecodeError:
        return json.dumps(text, ensure_ascii=False)
    return text.strip()


class SyntaxReader:
    """Reads calls in one :class:`CallSyntax` out of a streamed reply, with the contract of
    :mod:`.tool_readers`: ``content`` for the client, ``ToolCallDelta``s in OpenAI's partial shape.

    String values stream as they arrive when the function's schema says they are strings (or DSML marks them
    so); other values are read whole, then written as JSON where they parse and as strings where they do not."""

    def __init__(self, syntax: CallSyntax, tools: tuple[ToolSpec, ...] = ()) -> None:
        self.s = syntax
        self.string_keys = {t.name: {k for k, v in ((t.parameters or {}).get("properties") or {}).items()
                                     if isinstance(v, dict) and _is_plain_string(v)} for t in tools}
        self.trigger = _Piece(syntax.trigger)
        # Without a section the trigger is the call's opening; what it leaves of the opening comes after it.
        opening = syntax.call_open.strip()
        self.open = _Piece(opening if syntax.section_open else opening[len(syntax.trigger):])
        self.close = _Piece(syntax.call_close)
        self.section_close = _Piece(syntax.section_close)
        self.sep = _Piece(syntax.call_sep)
        # The name ends where name_end starts; a placeholder in name_end (Kimi's position, Mistral's id) is
        # skipped up to the literal text after it.
        parts = PLACEHOLDER.split(syntax.name_end)
        self.name_stop = _Piece(parts[0])
        self.name_tail = _Piece(parts[-1]) if len(parts) > 1 else _Piece("")
        self.arg_open = _Piece(syntax.arg_open)
        self.mids = [_Piece(m) for m in (syntax.arg_mid, syntax.arg_mid_json) if m.strip()]
        self.arg_close = _Piece(syntax.arg_close)
        # Values on their own line (Qwen3-Coder): the newline after the key and the one before the close go.
        self.own_line = syntax.arg_mid.endswith("\n")
        self.buffer = ""
        self.stage = "text"
        self.calls_seen = 0
        self.name = ""
        self.keys_written = 0
        self.value_is_string = False
        self.value_streams = False
        self.value_started = False
        self.args = ValueReader()

    def feed(self, text: str) -> ParsedPiece:
        out = ParsedPiece()
        self.buffer += text
        while getattr(self, f"_{self.stage}")(out):
            pass
        return out

    def finish(self) -> ParsedPiece:
        rest = ParsedPiece()
        if self.stage == "text":
            rest.content, self.buffer = self.buffer, ""
        return rest

    def _emit(self, out: ParsedPiece, arguments: str) -> None:
        out.calls.append(ToolCallDelta(index=self.calls_seen - 1, arguments=arguments))

    def _skip(self, piece: _Piece, then: str) -> bool:
        """Drop the buffer up to and through ``piece`` and move to stage ``then``; False while it has not come."""
        found = piece.find(self.buffer)
        if found is None:
            return False
        self.buffer = self.buffer[found[1]:]
        self.stage = then
        return True

    # Each stage reads what it can and says whether to go on (True) or wait for more text (False).

    def _text(self, out: ParsedPiece) -> bool:
        found = self.trigger.find(self.buffer)
        if found is None:
            keep = self.trigger.held_back(self.buffer)
            out.content += self.buffer[: len(self.buffer) - keep]
            self.buffer = self.buffer[len(self.buffer) - keep:]
            return False
        out.content += self.buffer[: found[0]]
        self.buffer = self.buffer[found[1]:]
        self.stage = "section" if self.s.section_open else "opening"
        return True

    def _section(self, out: ParsedPiece) -> bool:
        """Inside a section: another call, or the section's end."""
        if self.sep:
            taken = self.sep.take(self.buffer)
            if taken is None:
                return False
            if taken:
                self.buffer = self.buffer[taken:]
        closed = self.section_close.take(self.buffer) if self.section_close else False
        if closed:
            self.buffer = self.buffer[closed:]
            self.stage = "after"
            return True
        opened = self.open.take(self.buffer)
        if opened:
            self.buffer = self.buffer[opened:]
            self.stage = "name"
            return True
        if opened is None or closed is None:
            return False
        self.stage = "text"  # not a call after all: the rest is words
        return True

    def _optional(self, piece: _Piece, then: str) -> bool:
        """Drop ``piece`` where the buffer starts with it and move to stage ``then``; False while it may still be
        arriving."""
        taken = piece.take(self.buffer) if piece else False
        if taken is None:
            return False
        if taken:
            self.buffer = self.buffer[taken:]
        self.stage = then
        return True

    def _opening(self, out: ParsedPiece) -> bool:
        """The rest of a call's opening after the trigger (Qwen3-Coder's ``<function=``)."""
        return self._optional(self.open, "name")

    def _name(self, out: ParsedPiece) -> bool:
        head = self.buffer.lstrip()
        stops = [self.name_stop, self.close] + ([self.arg_open] if self.s.xml else [])
        ends = [found[0] for found in (p.find(head) for p in stops if p) if found is not None]
        if not ends and self.name_stop and self.name_stop.held_back(head):
            self.buffer = head  # the name's ending may be arriving (JSON objects' '", "arguments":')
            return False
        space = re.search(r"\s", head)
        if space is not None and space.start() > 0:
            ends.append(space.start())
        if not ends:
            self.buffer = head
            return False
        at = min(ends)
        self.name = head[:at].strip()
        self.buffer = head[at:]
        out.calls.append(ToolCallDelta(index=self.calls_seen, id=new_call_id(), name=self.name))
        self.calls_seen += 1
        self.keys_written = 0
        self.args = ValueReader()
        self.stage = "name_end"
        return True

    @property
    def _body(self) -> str:
        return "pairs" if self.s.xml else "arguments"

    def _name_end(self, out: ParsedPiece) -> bool:
        """What ends the name, where the family writes it (DeepSeek R1's fence may come after a newline)."""
        return self._optional(self.name_stop, "name_tail" if self.name_tail else self._body)

    def _name_tail(self, out: ParsedPiece) -> bool:
        """What follows a placeholder in the name's ending (Kimi's ``<|tool_call_argument_begin|>``)."""
        return self._skip(self.name_tail, self._body)

    def _arguments(self, out: ParsedPiece) -> bool:
        value, rest = self.args.feed_trimmed(self.buffer)
        self.buffer = ""
        if value:
            self._emit(out, value)
        if not self.args.done:
            return False
        self.buffer = rest
        self.stage = "call_close"
        return True

    def _pairs(self, out: ParsedPiece) -> bool:
        """Another key/value pair, or the end of the call."""
        taken = self.arg_open.take(self.buffer)
        if taken:
            self.buffer = self.buffer[taken:]
            self.stage = "key"
            return True
        if taken is None and not self.close.take(self.buffer):
            return False
        self._emit(out, "}" if self.keys_written else "{}")
        self.stage = "call_close"
        return True

    def _key(self, out: ParsedPiece) -> bool:
        found = [(span, i) for i, span in enumerate(m.find(self.buffer) for m in self.mids) if span is not None]
        if not found:
            return False
        (start, end), which = min(found)
        key = self.buffer[:start].strip()
        self.buffer = self.buffer[end:]
        known = self.string_keys.get(self.name)
        if len(self.mids) > 1:
            self.value_is_string = which == 0
            self.value_streams = self.value_is_string
        else:
            self.value_is_string = known is None or key in known
            self.value_streams = known is not None and key in known
        self._emit(out, ("{" if not self.keys_written else ", ") + json.dumps(key, ensure_ascii=False) + ": ")
        self.keys_written += 1
        self.value_started = False
        self.stage = "value"
        return True

    def _value(self, out: ParsedPiece) -> bool:
        found = self.arg_close.find(self.buffer)
        if found is None:
            if self.value_streams:
                # Stream what cannot be part of the close (nor the newline a value on its own line ends with).
                ready = self.buffer[: len(self.buffer) - self.arg_close.held_back(self.buffer)]
                if self.own_line and ready.endswith("\n"):
                    ready = ready[:-1]
                self._stream(out, ready)
                self.buffer = self.buffer[len(ready):]
            return False
        text = self.buffer[: found[0]]
        self.buffer = self.buffer[found[1]:]
        if self.own_line:
            text = text.removesuffix("\n")
        if self.value_streams:
            self._stream(out, text)
            self._emit(out, '"' if self.value_started else '""')
        else:
            self._emit(out, _as_json(text.removeprefix("\n") if self.own_line else text))
        self.stage = "pairs"
        return True

    def _stream(self, out: ParsedPiece, text: str) -> None:
        if not text:
            return
        if not self.value_started:
            text = text.removeprefix("\n") if self.own_line else text
            self.value_started = True
            self._emit(out, '"' + json.dumps(text, ensure_ascii=False)[1:-1])
        else:
            self._emit(out, json.dumps(text, ensure_ascii=False)[1:-1])

    def _call_close(self, out: ParsedPiece) -> bool:
        then = "section" if self.s.section_open else "after"
        if not self.close:
            self.stage = then
            return True
        return self._skip(self.close, then)

    def _after(self, out: ParsedPiece) -> bool:
        """Whitespace after the calls is not content; anything else is words again (another call may follow)."""
        self.buffer = self.buffer.lstrip()
        if not self.buffer:
            return False
        self.stage = "text"
        return True
