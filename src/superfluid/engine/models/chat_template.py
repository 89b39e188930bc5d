"""Chat templates: the model's own Jinja template (or a built-in one) rendered in a sandbox.

Templates get the variables real GGUF templates use: ``messages``, ``tools``, ``add_generation_prompt``,
``bos_token``, ``eos_token``, ``raise_exception`` and ``strftime_now``, plus any request template
variables (``enable_thinking``, ``reasoning_effort``, ...). Which variables a template reads is found by
parsing it, so a request variable the template never reads can be refused with a clear 400.
"""

from __future__ import annotations

import datetime
import json
from dataclasses import dataclass
from importlib import resources
from typing import Any, NoReturn

import jinja2
import jinja2.meta
from jinja2.ext import loopcontrols
from jinja2.sandbox import ImmutableSandboxedEnvironment

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
_PROVIDED = frozenset(
    {"messages", "tools", "add_generation_prompt", "bos_token", "eos_token", "raise_exception", "strftime_now"}
)

# Thinking switches a request may send to any template: off is what a non-thinking template does anyway.
_HARMLESS_WHEN_OFF = frozenset({"enable_thinking"})


class TemplateError(InvalidRequest):
    """The template refused the conversation (its own raise_exception, or a render failure)."""


def _raise_exception(message: str) -> NoReturn:
    raise TemplateError(f"chat template refused the request: {message}", param="messages")


def _strftime_now(fmt: str) -> str:
    return datetime.datetime.now().strftime(fmt)


def _tojson(value: Any, indent: int | None = None, ensure_ascii: bool = False, **_: Any) -> str:
    return json.dumps(value, indent=indent, ensure_ascii=ensure_ascii)


def _make_environment() -> ImmutableSandboxedEnvironment:
    env = ImmutableSandboxedEnvironment(
        trim_blocks=True, lstrip_blocks=True, extensions=[loopcontrols], undefined=jinja2.Undefined
    )
    env.filters["tojson"] = _tojson
    env.globals["raise_exception"] = _raise_exception
    env.globals["strftime_now"] = _strftime_now
    return env


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


class ChatTemplate:
    """One compiled template plus what it accepts."""

    def __init__(self, source: str, *, name: str, bos_token: str, eos_token: str) -> None:
        self.source = source
        self.name = name
        self._bos = bos_token
        self._eos = eos_token
        env = _make_environment()
        self._template = env.from_string(source)
        self.variables: frozenset[str] = frozenset(jinja2.meta.find_undeclared_variables(env.parse(source)))
        self.thinks = "<think>" in source or "enable_thinking" in self.variables
        self.reasoning_levels = "reasoning_effort" in self.variables
        self.supports_tools = "tools" in self.variables

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

    def render(
        self,
        messages: list[dict[str, Any]],
        *,
        tools: list[dict[str, Any]] | None = None,
        add_generation_prompt: bool = True,
        kwargs: dict[str, Any] | None = None,
    ) -> RenderedPrompt:
        extra = dict(kwargs or {})
        self.check_kwargs(extra)
        try:
            text = self._template.render(
                messages=messages,
                tools=tools or None,
                add_generation_prompt=add_generation_prompt,
                bos_token=self._bos,
                eos_token=self._eos,
                **extra,
            )
        except TemplateError:
            raise
        except jinja2.TemplateError as exc:
            raise TemplateError(f"chat template failed to render: {exc}", param="messages") from exc
        tail = text.rstrip()
        opened = self.thinks and tail.endswith("<think>")
        return RenderedPrompt(text=text, starts_in_reasoning=opened)
