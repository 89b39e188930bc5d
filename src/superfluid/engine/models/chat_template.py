"""Chat templates: the model's own Jinja template (or a built-in one) rendered in a sandbox.

The contract every template is held to (``tests/engine/models/test_published_templates.py`` renders each of
llama.cpp's published templates through it):

* Variables as Hugging Face's renderer and llama.cpp give them: ``messages``, ``add_generation_prompt``,
  ``bos_token``, ``eos_token``, ``tools`` (None when the request has none, as both pass it, or left undefined
  for a template that only renders so: Hermes' ``{% for tool in tools %}``), ``date_string`` and
  ``datetime`` (today, as llama.cpp sets them), ``functions`` (the tools as JSON, for templates that read
  that instead), plus request template variables (``enable_thinking``, ``reasoning_effort``, ...). Which
  variables a template reads is found by parsing it, so a request variable the template never reads can be
  refused with a clear 400. ``enable_thinking`` is the request's name for the thinking switch: a template that
  reads ``thinking`` instead (Kimi K3, Granite 3.3) gets the request's value under that name.
* The environment of :mod:`.template_env` (``generation`` blocks, ``raise_exception``, ``strftime_now``,
  ``tojson``/``from_json``, mutable lists), and the message rewrites of :mod:`.template_caps` for what the
  template cannot show (system folded into the first user turn, arguments in the form it reads, tool results as
  user turns).
* A template's own ``raise_exception`` is a 400 quoting it, and so is any other failure while rendering: no
  template makes a 5xx. A template that does not compile is a :class:`TemplateCompileError` naming its line.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Collection
from dataclasses import dataclass
from importlib import resources
from typing import Any, ClassVar

import jinja2
import jinja2.meta

from superfluid.engine.decoding.call_syntax import PROBE_CALL, SYNTAXES, layouts
from superfluid.engine.decoding.tool_calls import ToolFormat, tool_format
from superfluid.engine.models.template_caps import TemplateCaps, adapt, probe
from superfluid.engine.models.template_env import TemplateRaised, date_context, template_environment
from superfluid.errors import InvalidRequest, UnsupportedParameter

BUILTIN_TEMPLATES = ("chatml", "gemma", "llama3", "mistral")

# Model family (GGUF general.architecture) -> built-in template used when the GGUF carries none.
_FAMILY_TEMPLATES = {
    "gemma": "gemma",
    "gemma2": "gemma",
    "gemma3": "gemma",
    "gemma3n": "gemma",
    "llama": "llama3",
    "mistral": "mistral",
}

# Variables every render provides; they are never "request template variables".
_PROVIDED = frozenset({"messages", "tools", "functions", "add_generation_prompt", "bos_token", "eos_token",
                       "raise_exception", "strftime_now"})

# Thinking switches a request may send to any template: off is what a non-thinking template does anyway.
_HARMLESS_WHEN_OFF = frozenset({"enable_thinking"})


class TemplateError(InvalidRequest):
    """The template refused the conversation (its own raise_exception, or a render failure)."""


class TemplateCompileError(ValueError):
    """A template that cannot be compiled; the message names the template and the line."""


def builtin_template_source(name: str) -> str:
    if name not in BUILTIN_TEMPLATES:
        raise ValueError(f"unknown built-in chat template {name!r}; choose one of {', '.join(BUILTIN_TEMPLATES)}")
    return resources.files("superfluid.engine.models").joinpath(f"templates/{name}.jinja").read_text("utf-8")


def family_template_name(architecture: str) -> str:
    """The built-in template for a model family whose GGUF has no chat template."""
    return _FAMILY_TEMPLATES.get(architecture, "chatml")


@dataclass(frozen=True)
class RenderedPrompt:
    text: str
    starts_in_reasoning: bool
    """The rendered prompt already opened a reasoning block the reply continues."""


REASONING_MARKERS: tuple[tuple[str, str], ...] = (
    ("<seed:think>", "</seed:think>"),  # Seed-OSS
    ("<think:opensource>", "</think:opensource>"),  # Hunyuan, whose template builds its pieces at render time
    ("<mm:think>", "</mm:think>"),  # MiniMax M3
    ("<|START_THINKING|>", "<|END_THINKING|>"),  # Command R7B, Command A
    ("<|channel>thought", "<channel|>"),  # Gemma 4
    ("[THINK]", "[/THINK]"),  # Magistral, Ministral 3 Reasoning
    ("<|open|>think<|sep|>", "<|close|>think<|sep|>"),  # Kimi K3
    (" to=self<|message|>", "<|eom|>"),  # Muse Glimmer (a message to itself, after the prompt's <|start|>assistant)
    ("<|channel|>analysis<|message|>", "<|end|>"),  # gpt-oss (harmony's analysis channel)
    ("<think>", "</think>"),  # Qwen3, DeepSeek R1, GLM, Kimi, MiniMax M2, Nemotron and most others
)
"""The reasoning blocks templates write, as (open, close); the first whose pair a template renders around an
assistant turn's ``reasoning_content`` is that template's."""

THINK = ("<think>", "</think>")

ANSWER_TAGS: tuple[tuple[str, str], ...] = (
    ("<response>", "</response>"),  # Granite 3.2 and 3.3 ("write your response between <response></response>")
)
"""Tags some templates ask the model to wrap its answer in, as (open, close); the reply's content is read without
them (:class:`~superfluid.engine.decoding.text_output.AnswerTags`). A template uses a pair when its source writes
the two side by side, as Granite's instruction does: MiniMax M2 and M3 write ``<response>`` too, around tool results
in the prompt, never so, and their replies are left alone."""

HERMES_PROBE = f'<tool_call>\n{{"name": "{PROBE_CALL[0]}", "arguments": '
"""How a Hermes template writes the probe call's opening."""


CLOSED_AS: dict[str, str] = {"<|close|>think<|sep|>": "<|close|>think<|sep|><|open|>response<|sep|>"}
"""Closes written as they are, and what the template writes after them: Kimi K3's blocks take no newlines, and
its thinking-off prompt ends inside the response block."""


def close_reasoning(prompt: str, close: str = "</think>") -> str:
    """What closes the reasoning block a prompt ends in, as thinking-off templates write it
    (``<think>\n\n</think>\n\n``; Kimi K3's ``<|close|>think<|sep|><|open|>response<|sep|>``)."""
    if close in CLOSED_AS:
        return CLOSED_AS[close]
    return f"\n{close}\n\n" if prompt.endswith("\n") else f"\n\n{close}\n\n"


def can_switch_thinking(template: ChatTemplate) -> bool:
    """Whether a request can switch this template's thinking: its switch (``ChatTemplate.thinking_switch``) is
    ``enable_thinking``, or ``thinking`` on a template that thinks (Kimi K3, on by default; Granite 3.3, off by
    default), which gets the request's ``enable_thinking`` under that name (``ChatTemplate.request_variables``)."""
    return template.thinking_switch == "enable_thinking" or (template.thinking_switch == "thinking" and template.thinks)


class ChatTemplate:
    """One compiled template plus what it accepts."""

    THINKING_SWITCHES: ClassVar[tuple[str, ...]] = ("enable_thinking", "thinking")
    """The names a template's thinking switch goes by, the first a template reads being its own."""

    def __init__(self, source: str, *, name: str, bos_token: str, eos_token: str) -> None:
        self.source = source
        self.name = name
        self._bos = bos_token
        self._eos = eos_token
        env = template_environment()
        try:
            self._template = env.from_string(source)
            parsed = env.parse(source)
        except jinja2.TemplateSyntaxError as exc:
            raise TemplateCompileError(f"chat template {name}, line {exc.lineno}: {exc.message}") from exc
        self.variables: frozenset[str] = frozenset(jinja2.meta.find_undeclared_variables(parsed))
        # FireFunction's template reads the tools as `functions` (a JSON string), as llama.cpp hands them to it.
        self.supports_tools = "tools" in self.variables or "functions" in self.variables
        self._tools_none = self._renders_with_tools_none()
        self.caps: TemplateCaps = probe(self._raw_render, source)
        found = self._reasoning_markers()
        self.reasoning: tuple[str, str] = found or THINK
        """The (open, close) of this template's reasoning block."""
        self.answer_tags: tuple[str, str] | None = next(
            ((opening, closing) for opening, closing in ANSWER_TAGS if opening + closing in source), None)
        """The (open, close) this template's replies wrap their answer in (Granite 3.3's ``<response>``), None for
        most: the reply's content is read without them."""
        self.thinks = found is not None or "<think>" in source or "enable_thinking" in self.variables
        self.thinking_switch = self.switch_among(self.variables)
        """The variable this template's thinking switch reads (``enable_thinking`` for most, ``thinking`` for Kimi
        K3 and Granite 3.3), None where it has none."""
        self.reasoning_levels = "reasoning_effort" in self.variables or (
            "thinking_effort" in self.variables and can_switch_thinking(self))
        """Whether a request's reasoning level reaches this template: it reads ``reasoning_effort``, or it can
        switch its thinking and reads ``thinking_effort`` (Kimi K3; see handlers.conversation.reasoning_kwargs)."""
        self._thinks_by_default = self._switch_default()

    @classmethod
    def switch_among(cls, variables: Collection[str]) -> str | None:
        """The thinking switch of a template that reads ``variables``: the first of THINKING_SWITCHES it reads."""
        return next((name for name in cls.THINKING_SWITCHES if name in variables), None)

    def _switch_default(self) -> bool:
        """Whether the thinking switch is on when a request leaves it alone: ``enable_thinking`` is passed on
        (see :meth:`render`); a template that reads ``thinking`` decides for itself (Kimi K3 on, Granite off),
        which a render with the switch left undefined shows."""
        if self.thinking_switch != "thinking":
            return True
        plain = [{"role": "user", "content": "Hi."}]
        try:
            return self._raw_render(plain, None) == self._raw_render(plain, None, extra={"thinking": True})
        except Exception:
            return True

    def request_variables(self, kwargs: dict[str, Any] | None) -> dict[str, Any]:
        """A request's template variables as this template reads them: ``enable_thinking`` under the name of the
        template's own switch, where that is ``thinking`` (a ``thinking`` the request sends itself wins)."""
        extra = dict(kwargs or {})
        if self.thinking_switch == "thinking" and "enable_thinking" in extra:
            extra.setdefault("thinking", extra.pop("enable_thinking"))
        return extra

    def thinking_on(self, kwargs: dict[str, Any] | None) -> bool:
        """Whether a render with these request variables leaves the model to think: the template thinks and the
        request does not turn its switch off (nor, for a switch that is off by default, leave it off)."""
        if not self.thinks:
            return False
        if self.thinking_switch is None:
            return True
        return bool(self.request_variables(kwargs).get(self.thinking_switch, self._thinks_by_default))

    def _reasoning_markers(self) -> tuple[str, str] | None:
        """The reasoning block this template renders around an assistant turn's ``reasoning_content``."""
        turn = {"role": "assistant", "content": "The answer.", "reasoning_content": "A thought."}
        try:
            text = self._raw_render(adapt([{"role": "user", "content": "Hi."}, turn], self.caps), None,
                                    add_generation_prompt=False, extra={"enable_thinking": True})
        except Exception:
            text = ""
        at = text.find("A thought.")
        for opening, closing in REASONING_MARKERS:
            if at >= 0 and opening in text[:at] and closing in text[at:]:
                return opening, closing
        for opening, closing in REASONING_MARKERS:  # a template that drops reasoning from the history
            if opening in self.source and closing in self.source:
                return opening, closing
        return None

    def _renders_with_tools_none(self) -> bool:
        """Whether a request without tools passes ``tools=None`` (as Hugging Face and llama.cpp do) rather than
        leaving ``tools`` undefined: None, unless only an undefined ``tools`` renders (Hermes' tool_use templates
        iterate ``tools`` unguarded)."""
        plain = [{"role": "user", "content": "Hi."}]
        for tools_none in (True, False):
            try:
                self._raw_render(plain, None, tools_none=tools_none)
                return tools_none
            except Exception:
                continue
        return True

    @functools.cached_property
    def call_format(self) -> ToolFormat:
        """The call format this template speaks: :func:`tool_format` on its source, then its own rendering of a
        call, which tells a family's layouts apart, finds the family of a template that builds its pieces at
        render time (Hunyuan's ``'<arg_key{}>'.format(...)``), and turns down Hermes for a template that only
        mentions ``<tool_call>`` but writes its calls otherwise (MiniMax M3): such a template gets the generic
        format rather than one its model was not trained on."""
        fmt = tool_format(self.source, self.supports_tools)
        if fmt in SYNTAXES:
            candidates = layouts(fmt)
            if len(candidates) == 1:
                return fmt
        elif fmt in ("generic", "hermes") and self.caps.tool_calls:
            candidates = tuple(SYNTAXES)
        else:
            return fmt
        text = self._probe_call_rendering()
        if text is None:
            return fmt
        if fmt == "hermes" and HERMES_PROBE in text:
            return fmt
        for candidate in candidates:
            if SYNTAXES[candidate].write([PROBE_CALL]) in text:
                return candidate  # type: ignore[return-value]
        return "generic" if fmt == "hermes" else fmt

    def _probe_call_rendering(self) -> str | None:
        """The template's rendering of a conversation holding one call (PROBE_CALL) and its result."""
        name, arguments = PROBE_CALL
        call = {"id": "abcDEF123", "type": "function", "function": {"name": name, "arguments": arguments}}
        messages: list[dict[str, Any]] = [{"role": "user", "content": "Hi."},
                                          {"role": "assistant", "content": "", "tool_calls": [call]},
                                          {"role": "tool", "tool_call_id": "abcDEF123", "name": name,
                                           "content": "Sunny."}]
        tool = {"type": "function", "function": {"name": name, "description": "", "parameters": {"type": "object"}}}
        try:
            return self._raw_render(adapt(messages, self.caps), [tool])
        except Exception:
            return None

    def check_kwargs(self, kwargs: dict[str, Any]) -> None:
        """Refuse request template variables this template never reads."""
        for key, value in kwargs.items():
            if key in self.variables and key not in _PROVIDED:
                continue
            if key in _HARMLESS_WHEN_OFF and value is False:
                continue
            raise UnsupportedParameter(
                f"chat template '{self.name}' does not accept the variable '{key}'",
                param=f"chat_template_kwargs.{key}",
            )

    def _raw_render(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None, *,
                    add_generation_prompt: bool = True, extra: dict[str, Any] | None = None,
                    tools_none: bool | None = None) -> str:
        """``tools_none``: whether no tools are passed as None or left undefined (default: this template's way)."""
        variables: dict[str, Any] = {
            **date_context(),
            "messages": messages,
            "add_generation_prompt": add_generation_prompt,
            "bos_token": self._bos,
            "eos_token": self._eos,
            "functions": json.dumps(tools, indent=2, ensure_ascii=False) if tools else "",
        }
        if tools or (self._tools_none if tools_none is None else tools_none):
            variables["tools"] = tools or None
        variables.update(extra or {})
        return self._template.render(**variables)

    def render(
        self,
        messages: list[dict[str, Any]],
        *,
        tools: list[dict[str, Any]] | None = None,
        add_generation_prompt: bool = True,
        kwargs: dict[str, Any] | None = None,
    ) -> RenderedPrompt:
        extra = self.request_variables(kwargs)
        self.check_kwargs(extra)
        if "enable_thinking" in self.variables:
            # As llama-server passes it: llama.cpp's published templates are written for a thinking switch that is
            # on unless a request turns it off (QwQ's renders an empty block when it is undefined).
            extra.setdefault("enable_thinking", True)
        shaped = adapt(messages, self.caps)
        try:
            text = self._raw_render(shaped, [dict(t) for t in tools] if tools else None,
                                    add_generation_prompt=add_generation_prompt, extra=extra)
        except TemplateRaised as exc:
            raise TemplateError(f"chat template refused the request: {exc}", param="messages") from exc
        except jinja2.TemplateError as exc:
            raise TemplateError(f"chat template failed to render: {exc}", param="messages") from exc
        except Exception as exc:  # a template's own fault (None iterated, a bad filter argument): still a 400
            raise TemplateError(f"chat template failed to render: {type(exc).__name__}: {exc}",
                                param="messages") from exc
        tail = text.rstrip()
        opened = self.thinks and tail.endswith(self.reasoning[0])
        return RenderedPrompt(text=text, starts_in_reasoning=opened)
