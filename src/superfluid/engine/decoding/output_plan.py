"""How a chat request's reply is shaped: tool prompting, the grammar it decodes under, how calls are read."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from superfluid.engine.decoding.call_syntax import SYNTAXES
from superfluid.engine.decoding.gemma4_calls import TOOL_ROLE_NOTE, fold_tool_responses
from superfluid.engine.decoding.grammar import Constraint, LazyGrammar, compile_constraint
from superfluid.engine.decoding.pythonic_calls import write_lfm2
from superfluid.engine.decoding.tool_calls import ToolFormat, ToolPolicy, ToolSpec, mistral_call_id, solar_call_id
from superfluid.engine.decoding.tool_grammars import (
    CallGrammar,
    call_grammar,
    calls_or_answer,
    generic_system_prompt,
    syntax_system_prompt,
)
from superfluid.engine.decoding.tool_readers import CallReader, call_reader
from superfluid.engine.models.chat_template import ChatTemplate
from superfluid.engine.models.template_caps import one_call_a_turn
from superfluid.engine.types import ChatMessage
from superfluid.errors import UnsupportedParameter

# Formats whose framing comes out of every reply, tools or not: the words between the framing tokens (harmony's
# channel names, Kimi K3's block names, Muse Glimmer's recipients) are not the answer.
_FRAMED = frozenset({"harmony", "kimi_k3", "muse_glimmer"})
# Formats whose replies are framed otherwise (harmony's channels; functionary's recipients from the first token;
# Muse Glimmer's recipients): structured output beside tools is refused there, as before.
_NO_ANSWER_BESIDE_CALLS = frozenset({"harmony", "functionary_v3_2", "muse_glimmer"})


class PendingGrammar:
    """A plan's grammar before it is written out: ``build`` gives its constraint and, for a lazy plan, the
    trigger that starts it. Called once, on first use."""

    __slots__ = ("_build", "_built")

    def __init__(self, build: Callable[[], CallGrammar]) -> None:
        self._build = build
        self._built: CallGrammar | None = None

    def built(self) -> CallGrammar:
        if self._built is None:
            self._built = self._build()
        return self._built

    def fields(self) -> dict[str, Any]:
        """The plan's fields for this grammar compiled: ``grammar`` for a whole reply, else ``lazy`` (its
        trigger starts it). ConstraintUnsatisfiable names what cannot be expressed."""
        calls = self.built()
        grammar = compile_constraint(calls.constraint)
        if calls.trigger is None:
            return {"grammar": grammar}
        return {"lazy": LazyGrammar(calls.trigger, grammar, at_start=calls.at_start)}


@dataclass(frozen=True)
class OutputPlan:
    messages: list[dict[str, Any]]
    template_tools: list[dict[str, Any]] | None = None
    grammar: str | None = None
    lazy: LazyGrammar | None = None
    pending: PendingGrammar | None = None
    """The grammar, not yet written out (``plan_output(..., defer=True)``); :meth:`compiled` writes and compiles
    it. A request whose prompt turns out too long for the window is refused without it: 2,000 tools' grammar
    took ~25 ms of Python to write out (the tools' schemas closed, then dumped)."""
    reader: ToolFormat | None = None
    reader_tools: tuple[ToolSpec, ...] = ()
    """The functions the reply may call: a call-syntax reader streams the values their schemas type as strings."""
    preserve: frozenset[int] = frozenset()
    """Control tokens the reply writes out as text instead of dropping them: the call format's markers."""
    extra: dict[str, Any] = field(default_factory=dict)
    json_answer: bool = False
    """The generic format's reply without calls is JSON matching the request's schema (structured output beside
    tools)."""

    def call_reader(self) -> CallReader | None:
        if self.reader is None:
            return None
        return call_reader(self.reader, self.reader_tools, json_answer=self.json_answer)

    @property
    def whole_reply_grammar(self) -> bool:
        """A grammar holds the reply from its first token (not a lazy one), compiled or pending."""
        return bool(self.grammar) or (self.pending is not None and self.pending.built().trigger is None)

    def compiled(self) -> OutputPlan:
        """This plan with its pending grammar written out and compiled."""
        if self.pending is None:
            return self
        return dataclasses.replace(self, pending=None, **self.pending.fields())


_HISTORY_IDS: dict[str, Callable[[str], str]] = {"mistral": mistral_call_id, "mistral_args": mistral_call_id,
                                                 "mistral_call_id": mistral_call_id, "solar_open": solar_call_id}
"""Formats whose templates take call ids of one shape only: how an earlier turn's id is made to fit."""


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


def _native_history(messages: tuple[ChatMessage, ...], fmt: ToolFormat, shows_calls: bool) -> list[dict[str, Any]]:
    """For templates that speak a call format: calls and results as the template reads them. LFM2's own
    templates (all but LFM2.5 8B's) never read ``tool_calls``, so there the calls are written into the turn's
    text in the format the model writes them.

    Mistral's templates refuse call ids that are not 9 alphanumeric characters, and Solar Open's asks for 10
    lowercase letters and digits, so other ids (``call_...`` from other servers, or this server's own) are
    mapped to stable ones of that shape, the same for a call and its result. A call without an id (Ollama's
    have none) gets one from its place in the conversation, and the results after it take the ids of the calls
    in order."""
    out = [_template_message(m) for m in messages]
    if fmt == "lfm2" and not shows_calls:
        return [_calls_in_text(entry) for entry in out]
    shape = _HISTORY_IDS.get(fmt)
    if shape is None:
        return out
    pending: list[str] = []  # ids of the latest assistant turn's calls that no result has named yet
    for turn, entry in enumerate(out):
        if entry.get("tool_calls"):
            calls = [{**c, "id": shape(c["id"] if isinstance(c.get("id"), str) else f"{turn}.{i}")}
                     for i, c in enumerate(entry["tool_calls"])]
            entry["tool_calls"] = calls
            pending = [c["id"] for c in calls]
        elif entry.get("role") == "tool":
            named = entry.get("tool_call_id")
            entry["tool_call_id"] = shape(named) if isinstance(named, str) else \
                (pending[0] if pending else shape(f"{turn}"))
            if entry["tool_call_id"] in pending:
                pending.remove(entry["tool_call_id"])
    return out


def _calls_in_text(entry: dict[str, Any]) -> dict[str, Any]:
    calls = entry.pop("tool_calls", None)
    if calls:
        functions = [c.get("function") or {} for c in calls]
        written = write_lfm2([(f.get("name", ""), f["arguments"] if isinstance(f.get("arguments"), dict) else {})
                              for f in functions])
        entry["content"] = f"{entry.get('content') or ''}{written}"
    return entry


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
                                           "tool_call_id": message.tool_call_id})
        out.append(entry)
    return out


def _with_system(messages: list[dict[str, Any]], text: str) -> list[dict[str, Any]]:
    if messages and messages[0].get("role") == "system":
        first = dict(messages[0])
        first["content"] = f"{first.get('content') or ''}\n\n{text}".strip()
        return [first, *messages[1:]]
    return [{"role": "system", "content": text}, *messages]


def plan_output(messages: tuple[ChatMessage, ...], template: ChatTemplate, *, tools: ToolPolicy | None,
                constraint: Constraint | None, control: Mapping[str, int] | None = None,
                thinking: bool = False, defer: bool = False) -> OutputPlan:
    """``control``: the call format's markers that the model's vocabulary holds as control tokens; ``thinking``:
    the request leaves the template's thinking on (:meth:`ChatTemplate.thinking_on`); ``defer``: leave the
    grammar uncompiled (``pending``) for :meth:`OutputPlan.compiled`."""

    def grammar(build: Callable[[], CallGrammar]) -> dict[str, Any]:
        """The plan's grammar fields: ``pending`` when deferred, else ``grammar`` or ``lazy`` compiled now."""
        pending = PendingGrammar(build)
        return {"pending": pending} if defer else pending.fields()

    fmt = template.call_format
    answer: Any = None  # the schema a reply without calls must match, beside active tools
    if tools is not None and tools.active and constraint is not None:
        if tools.choice != "auto":  # the reply is a call: the schema has no text to shape
            constraint = None
        elif constraint.lark is not None or fmt in _NO_ANSWER_BESIDE_CALLS:
            raise UnsupportedParameter(f"'{constraint.param}' cannot be combined with tools"
                                       + (" in this model's call format" if constraint.lark is None else ""),
                                       param=constraint.param)
        else:
            answer = constraint.schema
    whole = constraint if answer is None else None
    answer_grammar = grammar(lambda: CallGrammar(whole)) if whole is not None else {}
    # Earlier calls and results belong in the prompt in the form this template can show: its own, where it
    # renders an assistant turn's calls, else written out as the generic format's JSON.
    native = fmt != "generic" or template.caps.tool_calls
    history = _native_history(messages, fmt, "tool_calls" in template.source) if native else _generic_history(messages)
    if fmt == "gemma4" and TOOL_ROLE_NOTE not in template.source:
        history = fold_tool_responses(history)
    if fmt in SYNTAXES and SYNTAXES[fmt].one_call:  # the template writes one call a turn and drops the rest
        history = one_call_a_turn(history)
    control = control or {}
    if tools is None or not tools.active:
        if fmt in _FRAMED:
            return OutputPlan(messages=history, reader=fmt, preserve=frozenset(control.values()), **answer_grammar)
        return OutputPlan(messages=history, **answer_grammar)
    def calls() -> CallGrammar:
        built = call_grammar(fmt, tools, control, answer, thinking=thinking)
        if fmt == "generic":  # the whole reply: a call or an answer, in one JSON object
            return CallGrammar(built.constraint)
        if answer is not None and built.constraint.lark is not None:
            # Either a call or the schema's JSON, from the reply's first token: no lazy start.
            assert constraint is not None
            return CallGrammar(Constraint(lark=calls_or_answer(built.constraint.lark, answer),
                                          param=constraint.param))
        return built

    if fmt == "generic":
        history = _with_system(history, generic_system_prompt(tools, answer))
        return OutputPlan(messages=history, reader="generic", json_answer=answer is not None, **grammar(calls))
    if fmt in SYNTAXES and not template.supports_tools:
        history = _with_system(history, syntax_system_prompt(fmt, tools))
    return OutputPlan(
        messages=history,
        template_tools=[t.as_template_tool() for t in tools.callable_tools()],
        reader=fmt,
        reader_tools=tools.callable_tools(),
        preserve=frozenset(control.values()),
        **grammar(calls),
    )
