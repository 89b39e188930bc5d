"""Grammar pieces for formats whose markup a vocabulary may hold as control tokens (Kimi K3's ``<|open|>``,
muse-glimmer's ``</atem:parameter>``): literal text with its markers taken either way, and raw string values
up to a close that may come as its control token.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from superfluid.engine.decoding.grammar import lark_literal as _lit
from superfluid.engine.decoding.tool_calls import ToolSpec
from superfluid.errors import ConstraintUnsatisfiable

Argument = Callable[[str, Mapping[str, Any], Mapping[str, Any]], str]
"""One argument's Lark expression from its key, its property's schema and the parameters' definitions."""


def piece(text: str, control: Mapping[str, int]) -> str:
    """``text`` as a Lark expression: each of ``control``'s markers in it either spelled out or as the control
    token that spells it; ``""`` for no text."""
    if not text:
        return '""'
    if not control:
        return _lit(text)
    split = re.compile("(" + "|".join(re.escape(m) for m in sorted(control, key=len, reverse=True)) + ")")
    items = []
    for i, bit in enumerate(split.split(text)):
        if i % 2:
            items.append(f"({_lit(bit)} | <[{control[bit]}]>)")
        elif bit:
            items.append(_lit(bit))
    return " ".join(items)


def raw_text_rules(prefix: str, close: str) -> list[str]:
    """The rules :func:`raw_string` refers to, once per grammar: any text up to ``close`` spelled out, and the
    same text before the close's control token."""
    return [f"{prefix}_text[suffix={_lit(close)}]: /((.|\\n)*)/", f"{prefix.upper()}_TEXT: /((.|\\n)*)/"]


def raw_string(prop: Mapping[str, Any], close: str, control: Mapping[str, int], prefix: str) -> str:
    """A string value written raw, and the ``close`` after it: one of its enum's words, a bounded run of
    characters without ``<`` (which every close starts with), or any text (with :func:`raw_text_rules`)."""
    after = piece(close, control)
    values = prop.get("enum")
    if isinstance(values, list) and any(isinstance(v, str) for v in values):
        return "(" + " | ".join(_lit(v) for v in values if isinstance(v, str)) + f") {after}"
    if isinstance(prop.get("const"), str):
        return f"{_lit(prop['const'])} {after}"
    low, high = prop.get("minLength"), prop.get("maxLength")
    if isinstance(low, int) or isinstance(high, int):
        return f"/[^<]{{{low if isinstance(low, int) else 0},{high if isinstance(high, int) else ''}}}/ {after}"
    marker = next((m for m in control if close.startswith(m)), None)
    if marker is None:
        return f"{prefix}_text"
    # The close may come as its control token, after text of any kind (a lazy rule cannot end at a token).
    rest = close[len(marker):]
    token = f"<[{control[marker]}]>" + (f" {piece(rest, control)}" if rest else "")
    return f"({prefix}_text | {prefix.upper()}_TEXT {token})"


def ordered_arguments(tool: ToolSpec, family: str, prefix: str, rules: list[str], param: str,
                      argument: Argument) -> str:
    """A call's key/value arguments in schema order, the required ones present: ``{prefix}_p{i}`` is one
    argument, ``{prefix}_f{i}`` the arguments from the ``i``-th on (an optional one may be skipped)."""
    schema = tool.parameters or {"type": "object"}
    if not isinstance(schema, dict) or schema.get("type", "object") != "object":
        raise ConstraintUnsatisfiable(f"{family} calls take named arguments; the parameters of '{tool.name}' are "
                                      "not an object", param=param)
    defs: dict[str, Any] = {k: schema[k] for k in ("$defs", "definitions") if k in schema}
    found = schema.get("properties")
    properties: dict[str, Any] = found if isinstance(found, dict) else {}
    required = set(schema.get("required") or ())
    keys = list(properties)
    rules.append(f'{prefix}_f{len(keys)}: ""')
    for i in reversed(range(len(keys))):
        prop = properties[keys[i]] if isinstance(properties[keys[i]], dict) else {}
        rules.append(f"{prefix}_p{i}: {argument(keys[i], prop, defs)}")
        item, rest = f"{prefix}_p{i}", f"{prefix}_f{i + 1}"
        rules.append(f"{prefix}_f{i}: {item} {rest}" + ("" if keys[i] in required else f" | {rest}"))
    return f"{prefix}_f0"
