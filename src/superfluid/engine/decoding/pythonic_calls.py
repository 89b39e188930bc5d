"""Calls written as Python: ``name(key=value, ...)``, as LFM2 and LFM2.5 write them and as Gemma 3's
``tool_code`` convention writes them with JSON values.

LFM2's calls are a Python list between two markers, ``<|tool_call_start|>[get_weather(city='Paris', days=2)]
<|tool_call_end|>``, whose values are Python literals: quoted strings (either quote), numbers, ``True``,
``False``, ``None``, lists and dicts. This module holds what the two families share (keyword arguments in schema
order, the required ones present), LFM2's grammar and writing, and the turning of a Python literal into the
JSON of the OpenAI ``arguments`` string.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable, Mapping
from typing import Any

from superfluid.engine.decoding.grammar import closed_objects
from superfluid.engine.decoding.grammar import lark_json as _json
from superfluid.engine.decoding.grammar import lark_literal as _lit
from superfluid.engine.decoding.tool_calls import LFM2_CLOSE, LFM2_OPEN, ToolSpec
from superfluid.errors import ConstraintUnsatisfiable

KEYWORD = re.compile(r"[^\s=(),`'\"\[\]]+")
"""What a function's or an argument's name may be, to be written as a keyword call."""

ValueRule = Callable[[Any, Mapping[str, Any]], str]
"""A property's schema (and the parameters' ``$defs``) -> the Lark expression of its value."""


def json_value(prop: Any, defs: Mapping[str, Any]) -> str:
    """A value written as JSON (Gemma's ``tool_code``)."""
    return _json({**prop, **defs} if isinstance(prop, dict) else prop)


def keyword_arguments(tool: ToolSpec, prefix: str, rules: list[str], param: str, *, label: str,
                      keyword: re.Pattern[str], value: ValueRule = json_value, key_terminal: str = "GEMMA_KEY") -> str:
    """The expression for a call's keyword arguments: schema order, the required ones present, each value by
    ``value``; a key must match ``keyword``. A schema without properties takes any identifier keywords
    (``key_terminal``)."""
    schema = tool.parameters or {"type": "object"}
    if not isinstance(schema, dict) or schema.get("type", "object") != "object":
        raise ConstraintUnsatisfiable(f"{label} calls take keyword arguments; the parameters of '{tool.name}' "
                                      "are not an object", param=param)
    defs: dict[str, Any] = {k: schema[k] for k in ("$defs", "definitions") if k in schema}
    properties = schema.get("properties")
    if not isinstance(properties, dict) or not properties:
        extra = schema.get("additionalProperties", properties is None)
        if extra is False:
            return '""'
        rules.append(f'{prefix}_kv: {key_terminal} "=" {_json({**(extra if isinstance(extra, dict) else {}), **defs})}')
        return f'({prefix}_kv (", " {prefix}_kv)*)?'
    required = set(schema.get("required") or ())
    keys = list(properties)
    for i, key in enumerate(keys):
        if not keyword.fullmatch(key):
            raise ConstraintUnsatisfiable(f"the argument '{key}' of '{tool.name}' cannot be written as a {label} "
                                          "keyword", param=param)
        rules.append(f"{prefix}_p{i}: {_lit(key + '=')} {value(properties[key], defs)}")
    # f{i}: arguments i.. when none was written yet; r{i}: the same after at least one (each behind ", ").
    rules.append(f'{prefix}_f{len(keys)}: ""')
    rules.append(f'{prefix}_r{len(keys)}: ""')
    for i in reversed(range(len(keys))):
        item, rest, first = f"{prefix}_p{i}", f"{prefix}_r{i + 1}", f"{prefix}_f{i + 1}"
        if keys[i] in required:
            rules.append(f"{prefix}_f{i}: {item} {rest}")
            rules.append(f'{prefix}_r{i}: ", " {item} {rest}')
        else:
            rules.append(f"{prefix}_f{i}: {item} {rest} | {first}")
            rules.append(f'{prefix}_r{i}: ", " {item} {rest} | {rest}')
    return f"{prefix}_f0"


# ---- LFM2: Python literals between <|tool_call_start|> and <|tool_call_end|> ------------------------------------

_QUOTED = r"/'([^'\\\n]|\\.)*'/"
"""A single-quoted Python string (the form LFM2.5's template writes)."""
_CONSTRAINED = ("enum", "const", "minLength", "maxLength", "pattern", "format")


def python_value(prop: Any, defs: Mapping[str, Any]) -> str:
    """A value as a Python literal where it is a plain string, a boolean or None (either quote, ``True`` or
    ``true``, as llama.cpp takes them); every other value, and a string held to a pattern or length, as JSON."""
    if not isinstance(prop, dict) or "$ref" in prop:
        return json_value(prop, defs)
    kind = prop.get("type")
    if kind == "string" and not any(k in prop for k in _CONSTRAINED):
        return f"({_json({'type': 'string'})} | {_QUOTED})"
    values = prop.get("enum")
    if isinstance(values, list) and values and all(isinstance(v, str) for v in values):
        return "(" + " | ".join(f"{_lit(json.dumps(v, ensure_ascii=False))} | {_lit(repr(v))}" for v in values) + ")"
    if kind == "boolean":
        return '("True" | "False" | "true" | "false")'
    if kind == "null":
        return '("None" | "null")'
    return json_value(closed_objects(prop), defs)


def _marker(text: str, control: Mapping[str, int]) -> str:
    return f"({_lit(text)} | <[{control[text]}]>)" if text in control else _lit(text)


def lfm2_lark(tools: tuple[ToolSpec, ...], parallel: bool, param: str, control: Mapping[str, int]) -> str:
    """The grammar of a reply that is LFM2's list of one call (or, ``parallel``, several)."""
    rules: list[str] = []
    names = []
    for i, tool in enumerate(tools):
        if not KEYWORD.fullmatch(tool.name):
            raise ConstraintUnsatisfiable(f"'{tool.name}' cannot be written as a Python call", param=param)
        names.append(f"c{i}")
        body = keyword_arguments(tool, f"c{i}", rules, param, label="Python", keyword=KEYWORD, value=python_value,
                                 key_terminal="PY_KEY")
        rules.append(f"c{i}: {_lit(tool.name + '(')} {body} \")\"")
    calls = 'call (", " call)*' if parallel else "call"
    start = f'start: {_marker(LFM2_OPEN, control)} "[" {calls} "]" {_marker(LFM2_CLOSE, control)}'
    return "\n".join([start, f"call: {' | '.join(names)}", *rules, "PY_KEY: /[A-Za-z_][A-Za-z0-9_]*/"]) + "\n"


def python_literal(value: Any) -> str:
    """A value as LFM2.5's template writes it: strings quoted, ``True``/``False``/``None``, and lists and dicts as
    JSON (which the grammar takes, and which reads back as the same value)."""
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, bool) or value is None:
        return repr(value)
    return json.dumps(value, ensure_ascii=False)


def write_lfm2(calls: list[tuple[str, Mapping[str, Any]]]) -> str:
    """Calls as LFM2.5's template writes an assistant turn's calls."""
    written = [f"{name}({', '.join(f'{k}={python_literal(v)}' for k, v in arguments.items())})"
               for name, arguments in calls]
    return f"{LFM2_OPEN}[{', '.join(written)}]{LFM2_CLOSE}"


def literal_json(text: str) -> str:
    """A value written as a Python literal (or as JSON), as JSON in the compact layout; text that is neither is a
    string."""
    text = text.strip()
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            value = text
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):  # a set, bytes or a complex number: not JSON
        return json.dumps(text, ensure_ascii=False)
