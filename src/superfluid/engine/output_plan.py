"""How a chat request's reply is shaped: tool prompting, the grammar it decodes under, how calls are read."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

from superfluid.engine.chat_template import ChatTemplate
from superfluid.engine.grammar import Constraint, compile_constraint
from superfluid.engine.tool_calls import (
    HERMES_OPEN,
    CallReader,
    GenericReader,
    HermesReader,
    ToolPolicy,
    generic_constraint,
    generic_system_prompt,
    hermes_constraint,
    tool_format,
)
from superfluid.engine.types import ChatMessage
from superfluid.errors import UnsupportedParameter


@dataclass(frozen=True)
class OutputPlan:
    messages: list[dict[str, Any]]
    template_tools: list[dict[str, Any]] | None = None
    grammar: str | None = None
    lazy: tuple[str, str] | None = None
    reader: Literal["generic", "hermes"] | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def call_reader(self) -> CallReader | None:
        if self.reader == "generic":
            return GenericReader()
        if self.reader == "hermes":
            return HermesReader()
        return None


def _arguments_object(raw: Any) -> Any:
    if isinstance(raw, str):
        try:
            return json.loads(raw)
        except json.JSONDecodeError:
            return raw
    return raw


def _template_message(message: ChatMessage) -> dict[str, Any]:
    """Template view of a message: tool-call arguments as objects, as real templates expect."""
    out = message.as_template_dict()
    calls = out.get("tool_calls")
    if calls:
        out["tool_calls"] = [
            {**call, "function": {**call.get("function", {}),
                                  "arguments": _arguments_object(call.get("function", {}).get("arguments"))}}
            for call in calls
        ]
    return out


def _generic_history(messages: tuple[ChatMessage, ...]) -> list[dict[str, Any]]:
    """For templates without tool support: calls and results written in the generic JSON format."""
    out = []
    for message in messages:
        entry = _template_message(message)
        calls = entry.pop("tool_calls", None)
        if message.role == "assistant" and calls:
            entry["content"] = json.dumps({"tool_calls": [
                {"name": c.get("function", {}).get("name"), "arguments": c.get("function", {}).get("arguments")}
                for c in calls]})
        elif message.role == "tool":
            entry["content"] = json.dumps({"tool_result": message.content,
                                           "tool_call_id": message.extra.get("tool_call_id")})
        out.append(entry)
    return out


def _with_system(messages: list[dict[str, Any]], text: str) -> list[dict[str, Any]]:
    if messages and messages[0].get("role") == "system":
        first = dict(messages[0])
        first["content"] = f"{first.get('content') or ''}\n\n{text}".strip()
        return [first, *messages[1:]]
    return [{"role": "system", "content": text}, *messages]


def plan_output(messages: tuple[ChatMessage, ...], template: ChatTemplate, *, tools: ToolPolicy | None,
                constraint: Constraint | None) -> OutputPlan:
    if tools is not None and tools.active and constraint is not None:
        raise UnsupportedParameter(f"'{constraint.param}' cannot be combined with tools", param=constraint.param)
    grammar = compile_constraint(constraint) if constraint is not None else None
    generic = tool_format(template.source, template.supports_tools) == "generic"
    if tools is None or not tools.active:
        # Earlier calls and results still belong in the prompt, in the form this template can show.
        history = _generic_history(messages) if generic else [_template_message(m) for m in messages]
        return OutputPlan(messages=history, grammar=grammar)
    if not generic:
        rule, lazy = hermes_constraint(tools)
        compiled = compile_constraint(rule)
        return OutputPlan(
            messages=[_template_message(m) for m in messages],
            template_tools=[t.as_template_tool() for t in tools.callable_tools()],
            grammar=None if lazy else compiled,
            lazy=(HERMES_OPEN, compiled) if lazy else None,
            reader="hermes",
        )
    history = _with_system(_generic_history(messages), generic_system_prompt(tools))
    return OutputPlan(messages=history, grammar=compile_constraint(generic_constraint(tools)), reader="generic")
