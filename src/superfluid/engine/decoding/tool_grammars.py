"""The grammars that keep tool calls well-formed, one per call format, and the generic format's prompt.

``required`` and a named function constrain the whole reply to calls. ``auto`` constrains lazily: the reply is
free until the model writes the format's trigger, and from the trigger on the same grammar holds. Every
call's arguments match its function's ``parameters`` schema, closed at the top level (no invented keys).
JSON is written in one compact layout (``", "`` and ``": "``) that the readers rely on.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from superfluid.engine.decoding.call_syntax import SYNTAXES
from superfluid.engine.decoding.gemma4_calls import gemma4_lark
from superfluid.engine.decoding.grammar import Constraint, closed_objects
from superfluid.engine.decoding.grammar import lark_json as _json
from superfluid.engine.decoding.grammar import lark_literal as _lit
from superfluid.engine.decoding.kimi_k3_calls import kimi_k3_lark
from superfluid.engine.decoding.muse_glimmer_calls import TRIGGER as MUSE_GLIMMER_TRIGGER
from superfluid.engine.decoding.muse_glimmer_calls import muse_glimmer_lark
from superfluid.engine.decoding.pythonic_calls import keyword_arguments, lfm2_lark
from superfluid.engine.decoding.recipient_reader import functionary_v3_2_lark
from superfluid.engine.decoding.syntax_grammar import syntax_lark
from superfluid.engine.decoding.tool_calls import (
    GEMMA4_OPEN,
    GEMMA_CLOSE,
    GEMMA_OPEN,
    HARMONY_CALL,
    HERMES_CLOSE,
    HERMES_OPEN,
    KIMI_K3_TOOLS,
    LFM2_OPEN,
    LLAMA3_OPEN,
    MISTRAL_OPEN,
    ToolFormat,
    ToolPolicy,
    ToolSpec,
)
from superfluid.errors import ConstraintUnsatisfiable


@dataclass(frozen=True)
class CallGrammar:
    constraint: Constraint
    trigger: str | None = None
    """``auto``: the grammar engages where the reply writes this text (and matches from it on)."""
    at_start: bool = False
    """The trigger counts only at the start of the reply (after whitespace)."""


def call_grammar(fmt: ToolFormat, policy: ToolPolicy, control: Mapping[str, int] | None = None,
                 answer: Any = None, *, thinking: bool = False) -> CallGrammar:
    """The constraint for a policy with active tools, in a template's call format.

    ``control`` maps the format's markers that the model's vocabulary holds as control tokens to their ids:
    the grammar then takes the marker either as that token or spelled out. ``thinking``: the template's thinking
    is on, and a forced Gemma 4 call may follow a thinking block (the other formats' forced replies start where
    the prompt left them: after a reasoning block the server closed, or in a framing of their own)."""
    control = control or {}
    if fmt == "generic":
        return CallGrammar(generic_constraint(policy, answer))
    param = "tools" if policy.choice == "auto" else "tool_choice"
    tools = policy.callable_tools()
    if fmt == "harmony":
        return _harmony_grammar(policy, tools, param, control)
    if fmt in SYNTAXES:
        syntax = SYNTAXES[fmt]
        lark = syntax_lark(syntax, tools, parallel=policy.parallel, param=param, control=control)
        trigger, at_start = syntax.trigger, False
    elif fmt == "hermes":
        newline = _lit("\n")
        block = f"{_marker(HERMES_OPEN, control)} {newline} call {newline} {_marker(HERMES_CLOSE, control)}"
        start = f"{block} ({newline} {block})*" if policy.parallel else block
        lark = f"start: {start}\ncall: {_json(_any_call(tools, 'arguments'))}\n"
        trigger, at_start = HERMES_OPEN, False
    elif fmt == "llama3":
        # One call, as llama.cpp's Llama 3.x handler: the whole reply is the call object.
        lark = f"start: {_json(_any_call(tools, 'parameters'))}\n"
        trigger, at_start = LLAMA3_OPEN, True
    elif fmt == "mistral":
        array = {"type": "array", "items": _any_call(tools, "arguments"), "minItems": 1}
        if not policy.parallel:
            array["maxItems"] = 1
        lark = f"start: {_marker(MISTRAL_OPEN, control)} {_json(array)}\n"
        trigger, at_start = MISTRAL_OPEN, False
    elif fmt == "functionary_v3_2":  # the prompt ends in the first >>>: auto holds the reply from its start
        lark = functionary_v3_2_lark(tools, parallel=policy.parallel, auto=policy.choice == "auto", param=param)
        return CallGrammar(Constraint(lark=lark, param=param))
    elif fmt == "gemma4":
        lark = gemma4_lark(tools, policy.parallel, param, control, thinking=thinking and policy.choice != "auto")
        trigger, at_start = GEMMA4_OPEN, False
    elif fmt == "kimi_k3":  # a forced reply starts in the response block the prompt opened
        lark = kimi_k3_lark(tools, parallel=policy.parallel, forced=policy.choice != "auto", param=param,
                            control=control)
        trigger, at_start = KIMI_K3_TOOLS, False
    elif fmt == "muse_glimmer":  # a forced reply continues the prompt's <|start|>assistant with a recipient
        lark = muse_glimmer_lark(tools, parallel=policy.parallel, forced=policy.choice != "auto", param=param,
                                 control=control)
        trigger, at_start = MUSE_GLIMMER_TRIGGER, False
    elif fmt == "lfm2":
        lark = lfm2_lark(tools, policy.parallel, param, control)
        trigger, at_start = LFM2_OPEN, False
    else:
        lark = _gemma_lark(tools, policy.parallel, param)
        trigger, at_start = GEMMA_OPEN, False
    constraint = Constraint(lark=lark, param=param)
    if policy.choice == "auto":
        return CallGrammar(constraint, trigger=trigger, at_start=at_start)
    return CallGrammar(constraint)


def _marker(text: str, control: Mapping[str, int]) -> str:
    """A format's marker: its text, or the control token that spells it where the vocabulary has one."""
    return f"({_lit(text)} | <[{control[text]}]>)" if text in control else _lit(text)


def _call_schema(tool: ToolSpec, args_key: str) -> dict[str, Any]:
    params = closed_objects(tool.parameters or {"type": "object"})
    return {
        "type": "object",
        "properties": {"name": {"const": tool.name}, args_key: params},
        "required": ["name", args_key],
        "additionalProperties": False,
    }


def _any_call(tools: tuple[ToolSpec, ...], args_key: str) -> dict[str, Any]:
    if len(tools) == 1:
        return _call_schema(tools[0], args_key)
    return {"anyOf": [_call_schema(t, args_key) for t in tools]}


# ---- harmony (gpt-oss): a commentary message to functions.NAME ---------------------------------------------


def _harmony_grammar(policy: ToolPolicy, tools: tuple[ToolSpec, ...], param: str,
                     control: Mapping[str, int]) -> CallGrammar:
    """One call, as gpt-oss makes one call per message (the message ends at ``<|call|>``, an end token).

    A forced call continues the prompt's ``<|start|>assistant`` with the header the template writes for a call
    (`` to=functions.NAME<|channel|>commentary json<|message|>``). ``auto`` engages at ``to=functions.`` in
    either place harmony allows it, the header's start or after the channel's name, and takes what the header
    may still hold before ``<|message|>``."""
    channel, message, constrain = (_marker(m, control) for m in ("<|channel|>", "<|message|>", "<|constrain|>"))
    if policy.choice == "auto":
        start, header = _lit(HARMONY_CALL), f'(({channel} "commentary")? (" json" | " " {constrain} "json")? {message})'
    else:
        start, header = _lit(" " + HARMONY_CALL), f'{channel} "commentary json" {message}'
    calls = " | ".join(f"{_lit(t.name)} {header} {_json(closed_objects(t.parameters or {'type': 'object'}))}"
                       for t in tools)
    constraint = Constraint(lark=f"start: {start} call\ncall: {calls}\n", param=param)
    return CallGrammar(constraint, trigger=HARMONY_CALL if policy.choice == "auto" else None)


# ---- Gemma: ```tool_code\nname(key=value, ...)\n``` ------------------------------------------------------

_GEMMA_KEY = re.compile(r"[^\s=(),`]+")


def _gemma_lark(tools: tuple[ToolSpec, ...], parallel: bool, param: str) -> str:
    rules: list[str] = []
    names = []
    for i, tool in enumerate(tools):
        if not _GEMMA_KEY.fullmatch(tool.name):
            raise ConstraintUnsatisfiable(f"'{tool.name}' cannot be written as a tool_code call", param=param)
        names.append(f"c{i}")
        body = keyword_arguments(tool, f"c{i}", rules, param, label="tool_code", keyword=_GEMMA_KEY)
        rules.append(f"c{i}: {_lit(tool.name + '(')} {body} \")\"")
    call = f"call: {' | '.join(names)}"
    body = 'call ("\\n" call)*' if parallel else "call"
    start = f"start: {_lit(GEMMA_OPEN + chr(10))} {body} {_lit(chr(10) + GEMMA_CLOSE)}"
    return "\n".join([start, call, *rules, 'GEMMA_KEY: /[A-Za-z_][A-Za-z0-9_]*/']) + "\n"


# ---- generic: constrained JSON for templates without tool support --------------------------------------------


def _calls_array(policy: ToolPolicy) -> dict[str, Any]:
    array: dict[str, Any] = {"type": "array", "items": _any_call(policy.callable_tools(), "arguments"),
                             "minItems": 1}
    if not policy.parallel:
        array["maxItems"] = 1
    return array


def generic_constraint(policy: ToolPolicy, answer: Any = None) -> Constraint:
    """``answer``: the schema a reply without calls must match (structured output beside tools); its value then
    stands under ``response`` as JSON instead of a string."""
    calls = {"type": "object", "properties": {"tool_calls": _calls_array(policy)}, "required": ["tool_calls"],
             "additionalProperties": False}
    if policy.choice != "auto":
        return Constraint.for_schema(calls, param="tool_choice")
    words = {"type": "object", "properties": {"response": {"type": "string"} if answer is None else answer},
             "required": ["response"], "additionalProperties": False}
    return Constraint.for_schema({"anyOf": [calls, words]}, param="tools")


def calls_or_answer(calls_lark: str, answer: Any) -> str:
    """A call grammar widened so that the whole reply may instead be JSON matching ``answer``: structured output
    beside tools in a template's own call format (the call markers then open the reply, no text before them)."""
    head, _, rest = calls_lark.partition("start:")
    if head.strip():
        raise ValueError("a call grammar begins with its start rule")
    return f"start: sf_calls | sf_answer\nsf_answer: {_json(closed_objects(answer))}\nsf_calls:{rest}"


def _described_tools(policy: ToolPolicy) -> list[str]:
    """The lines that describe the callable tools, each as JSON, in a system prompt of the server's own."""
    return ["You can call these tools. Each is described as JSON:", *(
        json.dumps({"name": t.name, "description": t.description, "parameters": t.parameters}, ensure_ascii=False)
        for t in policy.callable_tools())]


def generic_system_prompt(policy: ToolPolicy, answer: Any = None) -> str:
    lines = _described_tools(policy)
    lines.append('To call tools, reply with JSON: {"tool_calls": [{"name": <tool name>, "arguments": <arguments '
                 'object>}]}.')
    if policy.choice == "auto" and answer is None:
        lines.append('To answer without a tool, reply with JSON: {"response": <your answer as a string>}.')
    elif policy.choice == "auto":
        lines.append('To answer without a tool, reply with JSON: {"response": <your answer>}, where your answer is '
                     f'JSON matching this schema: {json.dumps(answer, ensure_ascii=False)}')
    return "\n".join(lines)


def syntax_system_prompt(fmt: ToolFormat, policy: ToolPolicy) -> str:
    """For a template that writes calls in a known syntax but never reads ``tools``: the tools, and a call in
    that syntax to copy."""
    syntax = SYNTAXES[fmt]
    tools = policy.callable_tools()
    lines = _described_tools(policy)
    example = syntax.write([(tools[0].name, {key: f"<{key}>" for key in (tools[0].parameters or {}).get(
        "properties", {})})])
    lines.append(f"To call a tool, write the call like this (with real values):\n{example}")
    return "\n".join(lines)
