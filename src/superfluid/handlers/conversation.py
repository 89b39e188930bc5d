"""What the chat dialects' converters share (OpenAI chat, Anthropic messages, Ollama chat): refusing input a
model cannot read, refusing to think on a template that cannot, and reading finished tool calls."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any, NoReturn

from superfluid.engine.types import FinishReason
from superfluid.errors import EngineFailure, UnsupportedInput, UnsupportedParameter


def refuse_media(model: str, what: str, param: str) -> NoReturn:
    """400 unsupported_input naming the part, block or field that carries media (``what``: "images", "a
    'image_url' part"). No runtime this server drives reads images or audio yet: every model is text-only."""
    raise UnsupportedInput(f"model '{model}' reads text only; it cannot take {what}", param=param)


def refuse_thinking(model: str, dialect: Mapping[str, Any], *, param: str) -> None:
    """400 naming ``param`` when a request asks to think on a model whose chat template has no thinking switch.
    (Asking not to think always passes: it is what such a model does anyway.)"""
    if not dialect.get("enable_thinking"):
        raise UnsupportedParameter(f"model '{model}' does not think: its chat template has no thinking switch",
                                   param=param)


def parsed_calls(calls: Iterable[dict[str, Any]], finish: FinishReason) -> list[tuple[dict[str, Any], Any]]:
    """Finished calls ({"id", "name", "arguments" as JSON text}) with their arguments parsed.

    A call whose arguments do not parse was cut off by the token budget (the reply finished on "length"); it
    is left out rather than sent broken. Under the call grammar nothing else can leave arguments unparseable.
    """
    out: list[tuple[dict[str, Any], Any]] = []
    for call in calls:
        try:
            arguments = json.loads(call["arguments"] or "{}")
        except json.JSONDecodeError:
            if finish == "length":
                continue
            raise EngineFailure(f"tool call '{call['name']}' came back with arguments that are not JSON") from None
        out.append((call, arguments))
    return out
