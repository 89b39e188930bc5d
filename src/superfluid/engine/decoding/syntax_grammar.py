"""The generation grammar of a call-syntax family (:mod:`.call_syntax`): a Lark grammar built from the family's
pieces, with every call's arguments held to its function's schema.

A special part of a piece (``<tool_call>``, ``[ARGS]``) is taken either as text or as the control token that
spells it in the model's vocabulary. Key/value families write string values raw, up to the argument's close;
every other value is JSON.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from superfluid.engine.decoding.call_syntax import PLACEHOLDER, SPECIAL_PART, CallSyntax, is_plain_string, piece_parts
from superfluid.engine.decoding.grammar import closed_objects
from superfluid.engine.decoding.grammar import lark_json as _json
from superfluid.engine.decoding.grammar import lark_literal as _lit
from superfluid.engine.decoding.tool_calls import ToolSpec
from superfluid.errors import ConstraintUnsatisfiable


def _piece(text: str, control: Mapping[str, int], index: str | None = None) -> str:
    """A piece as a Lark expression: its special parts either as text or as the control token that spells
    them, ``{index}`` as the call's position (``index``, or any number) and ``{id}`` as nine letters and
    digits (``{id10}`` as ten lowercase letters and digits)."""
    items: list[str] = []
    for part in piece_parts(text):
        for i, bit in enumerate(PLACEHOLDER.split(part)):
            if i % 2:
                items.append(_lit(index) if bit == "index" and index is not None else
                             "/[0-9]+/" if bit == "index" else "/[a-z0-9]{10}/" if bit == "id10" else
                             "/[A-Za-z0-9]{9}/")
            elif bit in control:
                items.append(f"({_lit(bit)} | <[{control[bit]}]>)")
            elif bit:
                items.append(_lit(bit))
    return " ".join(items) if items else '""'


def syntax_lark(syntax: CallSyntax, tools: tuple[ToolSpec, ...], *, parallel: bool, param: str,
                control: Mapping[str, int] | None = None) -> str:
    """The grammar of a reply that is one call (or, ``parallel``, several) to ``tools`` in this syntax."""
    control = control or {}
    parallel = parallel and not syntax.one_call
    rules: list[str] = []
    names = []
    for i, tool in enumerate(tools):
        if SPECIAL_PART.search(tool.name) or any(ch.isspace() for ch in tool.name):
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
        if is_plain_string(prop):
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
