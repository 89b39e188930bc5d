"""Kimi K3's calls: XTML blocks, each argument in a block of its own that names its JSON type.

Kimi K3's template frames everything in blocks built from four control tokens: ``<|open|>TAG attr="v"<|sep|>``
opens a block, ``<|close|>TAG<|sep|>`` closes it, and ``<|end_of_msg|>`` ends a message. An assistant turn is an
optional ``think`` block (the reasoning), a ``response`` block (the words) and, where it calls tools, a ``tools``
block::

    <|open|>tools<|sep|><|open|>call tool="get_weather" index="1"<|sep|>
    <|open|>argument key="city" type="string"<|sep|>Paris<|close|>argument<|sep|>
    <|open|>argument key="days" type="number"<|sep|>2<|close|>argument<|sep|>
    <|close|>call<|sep|><|close|>tools<|sep|><|close|>message<|sep|>

(one line here, none in the template). A string value is written raw; every other value as JSON, its type
(``number``, ``boolean``, ``null``, ``object``, ``array``) in the argument's ``type`` attribute. Attribute values
escape ``&`` and ``"``. This module holds the family's writing and its generation grammar; the reader is
:mod:`.kimi_k3_reader`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from superfluid.engine.decoding.call_syntax import is_plain_string
from superfluid.engine.decoding.grammar import closed_objects
from superfluid.engine.decoding.grammar import lark_json as _json
from superfluid.engine.decoding.grammar import lark_literal as _lit
from superfluid.engine.decoding.markup_grammar import ordered_arguments, raw_string, raw_text_rules
from superfluid.engine.decoding.markup_grammar import piece as _piece
from superfluid.engine.decoding.tool_calls import KIMI_K3_MARKERS, KIMI_K3_TOOLS, ToolSpec
from superfluid.errors import ConstraintUnsatisfiable

ARGUMENT_CLOSE = "<|close|>argument<|sep|>"
RESPONSE_CLOSE = "<|close|>response<|sep|>"
SEP_AFTER_ATTRIBUTE = '"<|sep|>'
"""What ends a block's opening after its last attribute."""
_TOOLS_CLOSE = "<|close|>tools<|sep|>"
_MESSAGE_CLOSE = "<|close|>message<|sep|>"
_END_OF_MSG = KIMI_K3_MARKERS[3]

_KINDS = {"string": "string", "integer": "number", "number": "number", "boolean": "boolean", "null": "null",
          "object": "object", "array": "array"}
"""A JSON schema type -> the ``type`` attribute Kimi K3's template writes for a value of it (``xtml_type``)."""
_JSON_KINDS = ("number", "boolean", "null", "object", "array")

# ---- writing ---------------------------------------------------------------------------------------------------


def attribute(value: str) -> str:
    """An attribute's value as the template escapes it."""
    return value.replace("&", "&amp;").replace('"', "&quot;")


def kind(value: Any) -> str:
    """The ``type`` attribute of a value, as the template's ``xtml_type`` writes it."""
    if isinstance(value, bool):
        return "boolean"
    if value is None:
        return "null"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    return "object" if isinstance(value, Mapping) else "array"


def write_kimi_k3(calls: list[tuple[str, Mapping[str, Any]]]) -> str:
    """Calls as Kimi K3's template writes an assistant turn's ``tools`` block."""
    out = [KIMI_K3_TOOLS]
    for index, (name, arguments) in enumerate(calls, start=1):
        out.append(f'<|open|>call tool="{attribute(name)}" index="{index}"<|sep|>')
        for key, value in arguments.items():
            text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
            out.append(f'<|open|>argument key="{attribute(key)}" type="{kind(value)}"<|sep|>{text}{ARGUMENT_CLOSE}')
        out.append("<|close|>call<|sep|>")
    out.append(_TOOLS_CLOSE)
    return "".join(out)


# ---- the grammar -----------------------------------------------------------------------------------------------


def _kinds(prop: Mapping[str, Any]) -> list[str]:
    """The ``type`` attributes a value of ``prop`` may be written with (every one where the schema does not
    say)."""
    if is_plain_string(prop):
        return ["string"]
    declared = prop.get("type")
    types = declared if isinstance(declared, list) else [declared] if isinstance(declared, str) else []
    if types and all(t in _KINDS for t in types):
        return sorted({_KINDS[t] for t in types})
    values = prop.get("enum", [prop["const"]] if "const" in prop else None)
    if isinstance(values, list) and values and "$ref" not in prop:
        return sorted({kind(v) for v in values})
    return ["string", *_JSON_KINDS]


def _argument(key: str, prop: Mapping[str, Any], defs: Mapping[str, Any], control: Mapping[str, int]) -> str:
    """One argument: its opening with the key and the type, its value and its close."""
    head = _piece(f'<|open|>argument key="{attribute(key)}" type="', control)
    sep, close = _piece(SEP_AFTER_ATTRIBUTE, control), _piece(ARGUMENT_CLOSE, control)
    kinds = _kinds(prop)
    branches = []
    if "string" in kinds:
        branches.append(f'"string" {sep} {raw_string(prop, ARGUMENT_CLOSE, control, "k3")}')
    others = [k for k in kinds if k != "string"]
    if others:
        schema = dict(prop)
        declared = prop.get("type")
        if isinstance(declared, list):  # the value's schema without the string it may also be
            schema["type"] = [t for t in declared if t != "string"]
        value = _json(closed_objects({**schema, **defs}))
        branches.append(f"({' | '.join(_lit(k) for k in others)}) {sep} {value} {close}")
    return f"{head} ({' | '.join(branches)})"


def kimi_k3_lark(tools: tuple[ToolSpec, ...], *, parallel: bool, forced: bool, param: str,
                 control: Mapping[str, int] | None = None) -> str:
    """The grammar of a reply's ``tools`` block: one call (or, ``parallel``, several), then the message's close.

    ``forced``: the whole reply is the calls, and it starts inside the response block the prompt opened (the
    thinking-off form's prompt ends there, and so does a prompt whose reasoning the server closed), so it
    first closes that block, with no words. Otherwise (``auto``, from the trigger on) the close is optional."""
    control = control or {}
    rules: list[str] = []
    names = []
    for i, tool in enumerate(tools):
        if "<|" in tool.name or "|>" in tool.name:
            raise ConstraintUnsatisfiable(f"'{tool.name}' cannot be written as a Kimi K3 call", param=param)
        body = ordered_arguments(tool, "Kimi K3", f"c{i}", rules, param,
                                 lambda key, prop, defs: _argument(key, prop, defs, control))
        opening = _piece(f'<|open|>call tool="{attribute(tool.name)}" index="', control)
        index = "/[1-9][0-9]*/" if parallel else '"1"'
        rules.append(f"c{i}: {opening} {index} {_piece(SEP_AFTER_ATTRIBUTE, control)} {body} "
                     f"{_piece('<|close|>call<|sep|>', control)}")
        names.append(f"c{i}")
    head = _piece(RESPONSE_CLOSE, control)
    head = head if forced else f"({head})?"
    calls = "call+" if parallel else "call"
    trailer = f"({_piece(_MESSAGE_CLOSE, control)} ({_piece(_END_OF_MSG, control)})?)?"
    start = f"start: {head} {_piece(KIMI_K3_TOOLS, control)} {calls} {_piece(_TOOLS_CLOSE, control)} {trailer}"
    return "\n".join([start, f"call: {' | '.join(names)}", *rules, *raw_text_rules("k3", ARGUMENT_CLOSE)]) + "\n"
