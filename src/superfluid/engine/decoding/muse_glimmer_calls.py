"""Muse Glimmer's calls: each a message to the function, whose body is an ATEM block.

Muse Glimmer's template writes an assistant turn as messages ``<|start|>assistant to=RECIPIENT<|message|>BODY``,
each ended by ``<|eom|>`` (more follow) or ``<|eot|>`` (the turn ends), as gpt-oss's harmony does with channels:
``self`` is the reasoning, ``user`` the words, and any other recipient a function called with::

    <atem:function_calls>
    <atem:invoke name="get_weather">
    <atem:parameter name="city">Paris</atem:parameter>
    <atem:parameter name="days">2</atem:parameter>
    </atem:invoke>
    </atem:function_calls>

A string value is written raw; ``true``, ``false`` and ``null`` as such; a list or an object as JSON; a number
as Python writes it. The prompt ends in ``<|start|>assistant``, so a reply begins with its first message's
`` to=RECIPIENT``. This module holds the family's writing and its generation grammar; the reader is
:mod:`.muse_glimmer_reader`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from superfluid.engine.decoding.call_syntax import CallSyntax, is_plain_string
from superfluid.engine.decoding.grammar import closed_objects
from superfluid.engine.decoding.grammar import lark_json as _json
from superfluid.engine.decoding.markup_grammar import ordered_arguments, raw_string, raw_text_rules
from superfluid.engine.decoding.markup_grammar import piece as _piece
from superfluid.engine.decoding.tool_calls import ToolSpec
from superfluid.errors import ConstraintUnsatisfiable

ATEM = CallSyntax("muse_glimmer", section_open="<atem:function_calls>\n", section_close="</atem:function_calls>",
                  call_open='<atem:invoke name="', name_end='">\n', call_close="</atem:invoke>\n", xml=True,
                  arg_open='<atem:parameter name="', arg_mid='">', arg_close="</atem:parameter>\n")
"""The ATEM block as the call-syntax pieces its reader takes (one call a block, as the template writes it)."""
BLOCK_CLOSE = "</atem:invoke>\n</atem:function_calls>"
NEXT_MESSAGE = "<|eom|><|start|>assistant"
MESSAGE = "<|message|>"
TRIGGER = MESSAGE + "<atem:function_calls>"
"""Where ``auto`` engages: a message whose body is an ATEM block (a call; llama.cpp's trigger is the header of a
message to anyone but ``self`` or ``user``)."""
"""Between two messages of one turn."""

# ---- writing ---------------------------------------------------------------------------------------------------


def muse_value(value: Any) -> str:
    """A value as the template's ``render_atem`` writes it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, (Mapping, list, tuple)):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def write_muse_glimmer(calls: list[tuple[str, Mapping[str, Any]]]) -> str:
    """Calls as the template writes an assistant turn's calls, after its first ``<|start|>assistant`` and
    before the turn's end."""
    messages = []
    for name, arguments in calls:
        pairs = "".join(f'<atem:parameter name="{key}">{muse_value(value)}</atem:parameter>\n'
                        for key, value in arguments.items())
        messages.append(f' to={name}<|message|><atem:function_calls>\n<atem:invoke name="{name}">\n{pairs}'
                        "</atem:invoke>\n</atem:function_calls>")
    return NEXT_MESSAGE.join(messages)


# ---- the grammar -----------------------------------------------------------------------------------------------


def _argument(key: str, prop: Mapping[str, Any], defs: Mapping[str, Any], control: Mapping[str, int]) -> str:
    """One parameter: a string written raw up to ``</atem:parameter>``, any other value as JSON."""
    head = _piece(f'<atem:parameter name="{key}">', control)
    if is_plain_string(prop):
        return f'{head} {raw_string(prop, "</atem:parameter>", control, "mg")} "\\n"'
    return f"{head} {_json(closed_objects({**prop, **defs}))} {_piece(ATEM.arg_close, control)}"


def muse_glimmer_lark(tools: tuple[ToolSpec, ...], *, parallel: bool, forced: bool, param: str,
                      control: Mapping[str, int] | None = None) -> str:
    """The grammar of a reply's calls: one message to a function (or, ``parallel``, several in a row).

    ``forced``: the whole reply is the calls, from the first message's `` to=NAME``, which continues the
    prompt's ``<|start|>assistant``. Otherwise (``auto``) the grammar holds the reply from :data:`TRIGGER` on
    (the recipient before it was the model's own); ATEM markup elsewhere (quoted in words or in the reasoning)
    leaves the reply free."""
    control = control or {}
    rules: list[str] = []
    for i, tool in enumerate(tools):
        if any(ch.isspace() or ch in '<>"' for ch in tool.name) or not tool.name:
            raise ConstraintUnsatisfiable(f"'{tool.name}' cannot be a Muse Glimmer recipient", param=param)
        body = ordered_arguments(tool, "Muse Glimmer", f"c{i}", rules, param,
                                 lambda key, prop, defs: _argument(key, prop, defs, control))
        opening = _piece(f'<atem:function_calls>\n<atem:invoke name="{tool.name}">\n', control)
        rules.append(f"b{i}: {opening} {body} {_piece(BLOCK_CLOSE, control)}")
        rules.append(f"m{i}: {_piece(f' to={tool.name}', control)} {_piece(MESSAGE, control)} b{i}")
    blocks = " | ".join(f"b{i}" for i in range(len(tools)))
    messages = " | ".join(f"m{i}" for i in range(len(tools)))
    more = f" ({_piece(NEXT_MESSAGE, control)} message)*" if parallel else ""
    start = f"start: {'message' if forced else _piece(MESSAGE, control) + ' block'}{more}"
    return "\n".join([start, f"block: {blocks}", f"message: {messages}", *rules,
                      *raw_text_rules("mg", "</atem:parameter>")]) + "\n"
