"""What a served model's prompt preparation (engine/models/prompts.py) decides before any token work: which
requests are light enough for the event loop, and how much of a message survives a template's trimming."""

from __future__ import annotations

from superfluid.engine.decoding.grammar import ANY_JSON_OBJECT, Constraint
from superfluid.engine.models.prompts import (
    COUNT_SLICE,
    LIGHT_MESSAGES,
    LIGHT_PROMPT_CHARS,
    UNICODE_SPACE,
    is_light,
    least_rendered_chars,
)
from superfluid.engine.types import ChatMessage, ChatPrompt, FimPrompt, GenerationRequest, PastCall, TextPrompt


def _chat(*contents: str, **extra: object) -> GenerationRequest:
    messages = tuple(ChatMessage(role="user", content=c) for c in contents)
    return GenerationRequest(model="m", prompt=ChatPrompt(messages=messages), **extra)  # type: ignore[arg-type]


def test_small_plain_requests_are_light() -> None:
    assert is_light(_chat("hello"))
    assert is_light(GenerationRequest(model="m", prompt=TextPrompt("x" * LIGHT_PROMPT_CHARS)))
    assert is_light(GenerationRequest(model="m", prompt=FimPrompt(prefix="a", suffix="b")))


def test_long_many_or_constrained_requests_are_not() -> None:
    assert not is_light(_chat("x" * (LIGHT_PROMPT_CHARS + 1)))
    assert not is_light(_chat(*["hi"] * (LIGHT_MESSAGES + 1)))
    assert not is_light(_chat("hi", constraint=Constraint.for_schema(ANY_JSON_OBJECT)))
    assert not is_light(GenerationRequest(model="m", prompt=TextPrompt("x" * (LIGHT_PROMPT_CHARS + 1))))
    calls = ChatMessage(role="assistant", content="", tool_calls=(PastCall("f", "{}", "1"),))
    assert not is_light(GenerationRequest(model="m", prompt=ChatPrompt(messages=(calls,))))


def test_least_rendered_chars_discounts_every_kind_of_whitespace() -> None:
    assert "".join(c for c in map(chr, range(0x110000)) if c.isspace()) == UNICODE_SPACE
    assert least_rendered_chars("  ab c \n") == 3
    assert least_rendered_chars("\u3000é\u2003") == 1
    text = "word " * 1000
    assert least_rendered_chars(text) <= len(text.strip())


def test_least_rendered_chars_counts_slice_by_slice_and_stops_once_enough() -> None:
    """A huge message is counted a slice at a time (each a short hold of the GIL), and only as far as needed."""
    text = "ab \n" * COUNT_SLICE  # several slices, a slice boundary inside a run of whitespace
    assert least_rendered_chars(text) == 2 * COUNT_SLICE
    assert least_rendered_chars("é \u3000" + text) == 2 * COUNT_SLICE + 1
    stopped = least_rendered_chars(text, enough=10)
    assert 10 <= stopped <= COUNT_SLICE  # the first slice already holds enough
