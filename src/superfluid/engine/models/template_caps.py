"""What a chat template can show, found by rendering it, and the rewrites for what it cannot.

Templates differ in what they accept: some have no system role (Gemma 2 refuses one), some read tool-call
arguments as a mapping and others as a JSON string, some have no tool role at all. Reading the source for
this is guesswork; rendering small probe conversations with marker strings and looking for the markers in the
output is not (llama.cpp's ``caps`` check does the same with usage statistics of its own Jinja engine).

The rewrites follow llama.cpp's: a system message the template cannot show is folded into the first user
turn; a ``developer`` message is a system message (except for gpt-oss, whose template has that role); an
assistant turn with calls and no text gets empty text; arguments take the form the template reads; and where
the template has no tool role, results become user turns (adjacent ones joined, so templates that insist on
alternating roles still render). A template that refuses several calls in one turn (Llama 3.x) gets one turn a
call, each followed by its result.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

Render = Callable[[list[dict[str, Any]], list[dict[str, Any]] | None], str]
"""Renders messages (and tools) with the generation prompt; raises whatever the template raises."""

_SYSTEM_MARK = "SYSTEM_PROBE_7f3a"
_ARG_MARK = "ARGUMENT_PROBE_7f3a"
_RESULT_MARK = "RESULT_PROBE_7f3a"
_TOOL_NAME = "probe_tool_7f3a"

_PROBE_TOOLS = [{"type": "function", "function": {
    "name": _TOOL_NAME, "description": "A probe.",
    "parameters": {"type": "object", "properties": {"arg": {"type": "string"}}, "required": ["arg"]}}}]


@dataclass(frozen=True)
class TemplateCaps:
    system_role: bool = True
    tools: bool = False
    """Declared tools appear in the prompt."""
    tool_calls: bool = False
    """An assistant turn's calls appear in the prompt."""
    object_arguments: bool = True
    """Calls' ``function.arguments`` are read as a mapping (else as a JSON string)."""
    tool_role: bool = True
    """A ``tool`` message's content appears in the prompt."""
    parallel_calls: bool = True
    """An assistant turn may hold several calls (Llama 3.x's templates refuse that)."""
    harmony: bool = False
    """gpt-oss's channel format, which keeps ``developer`` as a role of its own."""


def _call_history(arguments: Any, calls: int = 1) -> list[dict[str, Any]]:
    ids = [f"call0000{i + 1}" for i in range(calls)]
    return [
        {"role": "user", "content": "Call the probe."},
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": i, "type": "function", "function": {"name": _TOOL_NAME, "arguments": arguments}} for i in ids]},
        *({"role": "tool", "tool_call_id": i, "name": _TOOL_NAME, "content": _RESULT_MARK} for i in ids),
    ]


def _try(render: Render, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None) -> str | None:
    try:
        return render(messages, tools)
    except Exception:
        return None


def probe(render: Render, source: str) -> TemplateCaps:
    system = _try(render, [{"role": "system", "content": _SYSTEM_MARK}, {"role": "user", "content": "Hi."}], None)
    declared = _try(render, [{"role": "user", "content": "Hi."}], _PROBE_TOOLS)
    as_object = _try(render, _call_history({"arg": _ARG_MARK}), _PROBE_TOOLS)
    object_arguments = as_object is not None and _ARG_MARK in as_object
    calls = as_object if object_arguments else _try(render, _call_history(json.dumps({"arg": _ARG_MARK})),
                                                    _PROBE_TOOLS)
    if calls is None and as_object is not None:
        calls = as_object
    arguments: Any = {"arg": _ARG_MARK} if object_arguments else json.dumps({"arg": _ARG_MARK})
    parallel = calls is None or _try(render, _call_history(arguments, calls=2), _PROBE_TOOLS) is not None
    return TemplateCaps(
        system_role=system is not None and _SYSTEM_MARK in system,
        tools=declared is not None and _TOOL_NAME in declared,
        tool_calls=calls is not None and (_ARG_MARK in calls or _TOOL_NAME in calls),
        object_arguments=object_arguments or calls is None,
        tool_role=calls is not None and _RESULT_MARK in calls,
        parallel_calls=parallel,
        harmony="<|channel|>" in source,
    )


def _arguments(value: Any, as_object: bool) -> Any:
    if as_object and isinstance(value, str):
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return value
    if not as_object and not isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    return value


def _call(call: Any, as_object: bool) -> Any:
    if not isinstance(call, dict):
        return call
    function = dict(call.get("function") or {})
    if "arguments" in function:
        function["arguments"] = _arguments(function["arguments"], as_object)
    return {**call, "type": call.get("type", "function"), "function": function}


def _fold_system(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    if not messages or messages[0].get("role") != "system":
        return messages
    system, rest = messages[0], messages[1:]
    if not rest:
        return rest
    first = dict(rest[0])
    first["content"] = f"{system.get('content') or ''}\n{first.get('content') or ''}"
    return [first, *rest[1:]]


def _results_as_user_turns(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Tool results as user turns; a result next to another user turn joins it."""
    out: list[dict[str, Any]] = []
    joinable = False  # the last entry of ``out`` is a user turn that holds a tool result
    for message in messages:
        result = message.get("role") == "tool"
        if result:
            message = {"role": "user", "content": message.get("content") or ""}
        if out and message.get("role") == "user" and out[-1].get("role") == "user" and (result or joinable):
            out[-1] = {**out[-1], "content": f"{out[-1].get('content') or ''}\n{message.get('content') or ''}"}
            joinable = True
            continue
        out.append(message)
        joinable = result
    return out


def one_call_a_turn(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A turn of several calls and the results after it, as one turn a call, each followed by its result."""
    out: list[dict[str, Any]] = []
    i = 0
    while i < len(messages):
        message = messages[i]
        calls = message.get("tool_calls") or []
        if message.get("role") != "assistant" or len(calls) < 2:
            out.append(message)
            i += 1
            continue
        results = []
        j = i + 1
        while j < len(messages) and messages[j].get("role") == "tool":
            results.append(messages[j])
            j += 1
        by_id = {r.get("tool_call_id"): r for r in results}
        unmatched = [r for r in results if r.get("tool_call_id") not in {c.get("id") for c in calls}]
        for n, call in enumerate(calls):
            out.append({**message, "content": message.get("content") if n == 0 else "", "tool_calls": [call]})
            result = by_id.get(call.get("id")) or (unmatched.pop(0) if unmatched else None)
            if result is not None:
                out.append(result)
        out.extend(unmatched)
        i = j
    return out


_ATOMS = (str, int, float, bool, type(None))


def _copy_message(message: dict[str, Any]) -> dict[str, Any]:
    """A deep copy of one message: a plain dict copy when every value is a string, number or None (the same
    thing as ``copy.deepcopy`` there, at a tenth of its cost; a 20,000-message body spent 25 ms deep-copying)."""
    if all(isinstance(value, _ATOMS) for value in message.values()):
        return dict(message)
    return copy.deepcopy(message)


def adapt(messages: list[dict[str, Any]], caps: TemplateCaps) -> list[dict[str, Any]]:
    """A copy of ``messages`` in the shape this template renders (the request's own data is never touched)."""
    out = [_copy_message(message) for message in messages]
    if not caps.harmony:
        for message in out:
            if message.get("role") == "developer":
                message["role"] = "system"
    else:  # gpt-oss's template reads an assistant turn's reasoning as `thinking`, as Hugging Face passes it
        for message in out:
            if message.get("reasoning_content") and not message.get("thinking"):
                message["thinking"] = message["reasoning_content"]
    if not caps.system_role:
        out = _fold_system(out)
    for message in out:
        calls = message.get("tool_calls")
        if calls:
            message["tool_calls"] = [_call(c, caps.object_arguments) for c in calls]
            if message.get("content") is None:
                message["content"] = ""
    if not caps.parallel_calls:
        out = one_call_a_turn(out)
    if not caps.tool_role:
        out = _results_as_user_turns(out)
    return out
