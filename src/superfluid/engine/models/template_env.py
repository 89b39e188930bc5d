"""The Jinja environment chat templates run in: what Hugging Face's renderer and llama.cpp's give them.

Published templates are written against ``transformers``' ``apply_chat_template`` (and, since 2025, tested
against llama.cpp's own Jinja engine too), so a template may use any of:

* the ``{% generation %}`` ... ``{% endgeneration %}`` block (Hugging Face marks the assistant's tokens with
  it; here it renders its body and nothing else);
* ``raise_exception(message)`` and ``strftime_now(format)``;
* ``tojson`` with ``indent``, ``separators``, ``sort_keys`` and ``ensure_ascii`` (never escaping non-ASCII by
  default), over generators too (``tools | map(attribute='function') | tojson``), and ``from_json``;
* undefined values the way llama.cpp's engine has them (:class:`LenientUndefined`);
* mutating methods of its own lists and dicts (``ns.ids.append(x)``): the sandbox is the mutable one, and
  every render gets copies of the request's data, so nothing a template changes outlives its render.

Attribute access to Python internals stays refused by the sandbox.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Iterable, Mapping
from typing import Any, NoReturn

import jinja2
from jinja2 import nodes
from jinja2.ext import Extension, loopcontrols
from jinja2.parser import Parser
from jinja2.sandbox import SandboxedEnvironment


class TemplateRaised(Exception):
    """The template called ``raise_exception``: its message is the reason the conversation was refused."""


def _raise_exception(message: str) -> NoReturn:
    raise TemplateRaised(str(message))


def _strftime_now(fmt: str) -> str:
    return datetime.datetime.now().strftime(fmt)


def _plain(value: Any) -> Any:
    """JSON's fallback for what templates build: generators and other iterables become lists, Undefined null."""
    if isinstance(value, jinja2.Undefined):
        return None
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, Iterable) and not isinstance(value, (str, bytes)):
        return list(value)
    raise TypeError(f"{type(value).__name__} cannot be written as JSON")


def _tojson(value: Any, indent: int | None = None, separators: tuple[str, str] | list[str] | None = None,
            sort_keys: bool = False, ensure_ascii: bool = False, **_: Any) -> str:
    seps = tuple(separators) if separators is not None else None
    return json.dumps(value, indent=indent, separators=seps, sort_keys=sort_keys,  # type: ignore[arg-type]
                      ensure_ascii=ensure_ascii, default=_plain)


def _from_json(text: Any) -> Any:
    if not isinstance(text, str):
        return text
    return json.loads(text)


class LenientUndefined(jinja2.ChainableUndefined):
    """An undefined value as llama.cpp's Jinja engine treats it: attributes of it are undefined too, and joined
    to a string it is the empty string (Command R's ``'): ' + param.description`` with no description)."""

    def __add__(self, other: Any) -> Any:
        if isinstance(other, str):
            return other
        return super().__add__(other)

    def __radd__(self, other: Any) -> Any:
        if isinstance(other, str):
            return other
        return super().__radd__(other)


class GenerationBlock(Extension):
    """``{% generation %}body{% endgeneration %}`` renders ``body``: Hugging Face uses the block to find the
    assistant's tokens for training masks, which serving has no use for."""

    tags = {"generation"}  # noqa: RUF012 - jinja reads the class attribute

    def parse(self, parser: Parser) -> nodes.Node:
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(("name:endgeneration",), drop_needle=True)
        return nodes.Scope(body, lineno=lineno)


def _unsafe(value: Any) -> Any:
    return str(value) if isinstance(value, str) else value


def template_environment() -> SandboxedEnvironment:
    env = SandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[loopcontrols, GenerationBlock],
                               undefined=LenientUndefined)
    env.filters["tojson"] = _tojson
    env.filters["from_json"] = _from_json
    # Prompts are not HTML: `"text"|safe + value` must not escape value's quotes (Functionary v3.1 writes its
    # tools so), as llama.cpp's renderer, which has no markup strings, does not.
    env.filters["safe"] = _unsafe
    env.globals["raise_exception"] = _raise_exception
    env.globals["strftime_now"] = _strftime_now
    return env


def date_context(now: datetime.datetime | None = None) -> dict[str, str]:
    """The dates llama.cpp hands every template (Llama 3.x reads ``date_string``, firefunction ``datetime``)."""
    now = now or datetime.datetime.now()
    return {"date_string": now.strftime("%d %b %Y"), "datetime": now.strftime("%b %d %Y")}
