"""What the chat dialects' converters share (OpenAI chat, Anthropic messages, Responses, Ollama chat): refusing
input a model cannot read, the reasoning settings as a template can take them, and reading finished tool calls."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any, NoReturn

from superfluid.engine import ChatTemplate, FinishReason, ToolChoice, ToolPolicy, ToolSpec, can_switch_thinking
from superfluid.errors import EngineFailure, InvalidRequest, UnsupportedInput, UnsupportedParameter


def refuse_media(model: str, what: str, param: str) -> NoReturn:
    """400 unsupported_input naming the part, block or field that carries media (``what``: "images", "a
    'image_url' part"). No runtime this server drives reads images or audio yet: every model is text-only."""
    raise UnsupportedInput(f"model '{model}' reads text only; it cannot take {what}", param=param)


THINKING_EFFORT = {"minimal": "low", "low": "low", "medium": "high", "high": "high", "xhigh": "max", "max": "max"}
"""OpenAI's reasoning levels as a template that reads ``thinking_effort`` takes them (Kimi K3: low, high, max, and
max when unset): minimal and low are low, medium and high are high, xhigh and max are max."""


def reasoning_kwargs(effort: str | None, template: ChatTemplate) -> dict[str, Any]:
    """A reasoning level (chat's ``reasoning_effort``, the Responses API's ``reasoning.effort``) as the model's
    template can take it: a template that reads ``reasoning_effort`` gets the level; one with a thinking switch
    (:func:`can_switch_thinking`) gets ``enable_thinking`` (false for "none"), plus the level as
    :data:`THINKING_EFFORT` maps it where it reads ``thinking_effort`` (Kimi K3). Granite 3.3's switch is off by
    default, so any level but "none" turns its thinking on; its answer then comes wrapped in ``<response>`` tags,
    which the engine takes out. A template that cannot think gets nothing: the setting is accepted and the model
    answers as it always does, as llama-server does, since agents send these settings by default (docs/api.md,
    "Reasoning settings")."""
    if effort is None:
        return {}
    switch = can_switch_thinking(template)
    if effort == "none":
        return {"enable_thinking": False} if switch else {}
    if "reasoning_effort" in template.variables:
        return {"reasoning_effort": effort}
    if not switch:
        return {}
    if "thinking_effort" in template.variables:
        return {"enable_thinking": True, "thinking_effort": THINKING_EFFORT.get(effort, effort)}
    return {"enable_thinking": True}


def refuse_thinking(model: str, dialect: Mapping[str, Any], *, param: str) -> None:
    """400 naming ``param`` when a request asks to think on a model whose chat template has no thinking switch
    (Ollama's ``think``, as Ollama refuses it). Asking not to think always passes: it is what such a model does
    anyway."""
    if not dialect.get("enable_thinking"):
        raise UnsupportedParameter(f"model '{model}' does not think: its chat template has no thinking switch",
                                   param=param)


def parsed_calls(calls: Iterable[dict[str, Any]], finish: FinishReason) -> list[tuple[dict[str, Any], Any]]:
    """Finished calls ({"id", "name", "arguments" as JSON text}) with their arguments parsed.

    A call whose arguments do not parse was cut off by the token budget (the reply finished on "length"): it is
    kept with the arguments written so far, closed into an object (``{"city": "Par`` reads as
    ``{"city": "Par"}``), as a streaming client that accumulates the fragments sees it, and as OpenAI's routes
    return the partial text. Under the call grammar nothing else can leave arguments unparseable.
    """
    out: list[tuple[dict[str, Any], Any]] = []
    for call in calls:
        try:
            arguments = json.loads(call["arguments"] or "{}")
        except json.JSONDecodeError:
            if finish != "length":
                raise EngineFailure(f"tool call '{call['name']}' came back with arguments that are not JSON") \
                    from None
            arguments = partial_object(call["arguments"])
        out.append((call, arguments))
    return out


def partial_object(text: str) -> Any:
    """The JSON a cut-off text begins, closed where it stopped: an unfinished string is ended, an unfinished key
    or value is dropped, open arrays and objects are closed. ``{}`` when nothing of it is whole."""
    for end in [len(text), *sorted((i for i, ch in enumerate(text) if ch in ",{[:"), reverse=True)]:
        head = text[:end].rstrip()
        if head.endswith((",", ":")):
            head = head[:-1]
        closed = _closed(head)
        if closed is None:
            continue
        try:
            value = json.loads(closed)
        except json.JSONDecodeError:
            continue
        return value if isinstance(value, dict) else {}
    return {}


def _closed(head: str) -> str | None:
    """``head`` with its open string, arrays and objects closed; None where it ends inside an escape."""
    stack: list[str] = []
    in_string = escaped = False
    for ch in head:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "{[":
            stack.append("}" if ch == "{" else "]")
        elif ch in "}]" and stack:
            stack.pop()
    if escaped:
        return None
    return head + ('"' if in_string else "") + "".join(reversed(stack))


def choose_tools(specs: list[ToolSpec], picked: ToolChoice, *, parallel: bool, named: bool, param: str) -> ToolPolicy:
    """The policy of a request's tools and choice, whatever its dialect; ``named``: ``picked`` is the name of
    the one function that must be called. A choice that names a missing tool, or asks for a call with no tools
    at all, is a 400 naming ``param``."""
    if named and picked not in {s.name for s in specs}:
        raise InvalidRequest(f"{param} names '{picked}', which is not in tools", param=param)
    if picked not in ("auto", "none") and not specs:
        raise InvalidRequest(f"{param} asks for a call but no tools were given", param=param)
    return ToolPolicy(tools=tuple(specs), choice=picked, parallel=parallel)
