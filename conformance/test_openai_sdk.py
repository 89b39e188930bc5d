"""The official openai SDK, sync and async, against the real server on the bundled model.

Everything here is what a user of the SDK sees: typed replies, streams it can iterate, and its own
exception classes carrying the server's error body.
"""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import openai
import pytest
from openai import AsyncOpenAI, OpenAI
from openai.types.chat import ChatCompletion

# Short, deterministic generations keep the whole file fast on two cores.
GREEDY: dict[str, Any] = {"temperature": 0, "max_tokens": 8}


def _user(text: str) -> list[Any]:
    return [{"role": "user", "content": text}]


def _fresh(text: str) -> str:
    """A prompt no earlier request has sent, so the prefix cache holds at most the template's preamble."""
    return f"{text} (request {uuid.uuid4().hex[:12]})"


# ---- replies ----------------------------------------------------------------------------------------


def test_chat_completion_non_streaming(client: OpenAI, model: str) -> None:
    reply = client.chat.completions.create(model=model, messages=_user("Say hello."), **GREEDY)
    assert isinstance(reply, ChatCompletion)
    assert reply.object == "chat.completion"
    assert reply.model == model
    assert reply.id
    assert len(reply.choices) == 1
    choice = reply.choices[0]
    assert choice.index == 0
    assert choice.message.role == "assistant"
    assert isinstance(choice.message.content, str) and choice.message.content
    assert choice.finish_reason in ("stop", "length")
    usage = reply.usage
    assert usage is not None
    assert usage.prompt_tokens > 0
    assert 0 < usage.completion_tokens <= GREEDY["max_tokens"]
    assert usage.total_tokens == usage.prompt_tokens + usage.completion_tokens
    assert usage.prompt_tokens_details is not None
    assert usage.prompt_tokens_details.cached_tokens is not None


def test_chat_streaming_accumulates_deltas(client: OpenAI, model: str) -> None:
    stream = client.chat.completions.create(
        model=model, messages=_user("Count from one to five."), stream=True,
        stream_options={"include_usage": True}, **GREEDY,
    )
    chunks = list(stream)
    assert chunks, "the stream produced no chunks"
    assert {c.id for c in chunks} == {chunks[0].id}
    assert all(c.object == "chat.completion.chunk" for c in chunks)
    assert chunks[0].choices[0].delta.role == "assistant"
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text

    final = chunks[-1]
    assert final.choices and final.choices[0].finish_reason in ("stop", "length")
    assert all(c.choices[0].finish_reason is None for c in chunks[:-1] if c.choices)
    assert final.usage is not None
    assert final.usage.completion_tokens > 0
    assert final.usage.total_tokens == final.usage.prompt_tokens + final.usage.completion_tokens
    assert final.usage.prompt_tokens_details is not None
    assert isinstance(final.usage.prompt_tokens_details.cached_tokens, int)

    # The stream says the same as the non-streaming reply to the same greedy request.
    whole = client.chat.completions.create(model=model, messages=_user("Count from one to five."), **GREEDY)
    assert whole.choices[0].message.content == text
    assert whole.choices[0].finish_reason == final.choices[0].finish_reason


def test_completions_endpoint(client: OpenAI, model: str) -> None:
    reply = client.completions.create(model=model, prompt="Once upon a time", **GREEDY)
    assert reply.object == "text_completion"
    assert reply.model == model
    assert len(reply.choices) == 1
    assert reply.choices[0].text
    assert reply.choices[0].finish_reason in ("stop", "length")
    assert reply.usage is not None
    assert 0 < reply.usage.completion_tokens <= GREEDY["max_tokens"]


def test_completions_streaming(client: OpenAI, model: str) -> None:
    chunks = list(client.completions.create(model=model, prompt="Once upon a time", stream=True, **GREEDY))
    text = "".join(c.choices[0].text for c in chunks if c.choices)
    assert text
    assert chunks[-1].choices[0].finish_reason in ("stop", "length")
    whole = client.completions.create(model=model, prompt="Once upon a time", **GREEDY)
    assert whole.choices[0].text == text


def test_models_list_and_retrieve(client: OpenAI, model: str, second_model: str) -> None:
    listed = {m.id: m for m in client.models.list()}
    assert model in listed and second_model in listed
    assert listed[model].object == "model"
    one = client.models.retrieve(model)
    assert one.id == model
    assert one.object == "model"
    assert isinstance(one.created, int)
    assert one.owned_by


def test_n_returns_that_many_choices(client: OpenAI, model: str) -> None:
    reply = client.chat.completions.create(model=model, messages=_user("Name a colour."), n=2,
                                           temperature=0.9, seed=7, max_tokens=6)
    assert sorted(c.index for c in reply.choices) == [0, 1]
    for choice in reply.choices:
        assert choice.message.role == "assistant"
        assert choice.finish_reason in ("stop", "length")
    assert reply.usage is not None
    assert reply.usage.completion_tokens <= 2 * 6


def test_stop_string_is_excluded(client: OpenAI, model: str) -> None:
    free = client.chat.completions.create(model=model, messages=_user("Say hello."), temperature=0, max_tokens=16)
    free_text = free.choices[0].message.content or ""
    assert " " in free_text, f"the greedy reply has no space to stop on: {free_text!r}"
    stopped = client.chat.completions.create(model=model, messages=_user("Say hello."), temperature=0,
                                             max_tokens=16, stop=[" "])
    text = stopped.choices[0].message.content or ""
    assert " " not in text
    assert stopped.choices[0].finish_reason == "stop"
    assert free_text.startswith(text)


def test_stop_string_is_excluded_when_streaming(client: OpenAI, model: str) -> None:
    stream = client.chat.completions.create(model=model, messages=_user("Say hello."), temperature=0,
                                            max_tokens=16, stop=" ", stream=True)
    chunks = list(stream)
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert " " not in text
    assert chunks[-1].choices[0].finish_reason == "stop"


def test_max_completion_tokens_wins_over_max_tokens(client: OpenAI, model: str) -> None:
    reply = client.chat.completions.create(
        model=model, messages=_user("Tell me a long story about a dragon."), temperature=0,
        max_tokens=16, max_completion_tokens=3, extra_body={"ignore_eos": True},
    )
    assert reply.choices[0].finish_reason == "length"
    assert reply.usage is not None
    assert reply.usage.completion_tokens == 3


def test_max_tokens_alone_caps_the_reply(client: OpenAI, model: str) -> None:
    reply = client.chat.completions.create(
        model=model, messages=_user("Tell me a long story about a dragon."), temperature=0,
        max_tokens=5, extra_body={"ignore_eos": True},
    )
    assert reply.choices[0].finish_reason == "length"
    assert reply.usage is not None
    assert reply.usage.completion_tokens == 5


def test_temperature_zero_with_seed_is_deterministic(client: OpenAI, model: str) -> None:
    """Repeats of a request are the same reply. The first request warms the prefix cache: a cold prompt's last
    position is computed within its prefill batch, a warm one's alone, and with flash attention off (the default
    where lanes have KV cells of their own) llama.cpp rounds those differently, so a near tie can flip between the
    cold reply and the warm ones (shared lanes promise no bit-identical arithmetic; docs/api.md,
    "Reproducibility")."""
    messages = _user("Write one sentence about the sea.")
    client.chat.completions.create(model=model, messages=messages, temperature=0, seed=1234, max_tokens=12)
    first = client.chat.completions.create(model=model, messages=messages, temperature=0, seed=1234, max_tokens=12)
    second = client.chat.completions.create(model=model, messages=messages, temperature=0, seed=1234, max_tokens=12)
    assert first.choices[0].message.content == second.choices[0].message.content
    assert first.choices[0].finish_reason == second.choices[0].finish_reason


def test_repeated_prompt_is_served_warm(client: OpenAI, model: str) -> None:
    messages = _user(_fresh("Describe a quiet library in a few words."))
    first = client.chat.completions.with_raw_response.create(model=model, messages=messages, **GREEDY)
    second = client.chat.completions.with_raw_response.create(model=model, messages=messages, **GREEDY)
    cold, warm = first.parse(), second.parse()
    assert cold.usage is not None and warm.usage is not None
    assert cold.usage.prompt_tokens_details is not None and warm.usage.prompt_tokens_details is not None
    cold_cached = cold.usage.prompt_tokens_details.cached_tokens or 0
    warm_cached = warm.usage.prompt_tokens_details.cached_tokens or 0
    assert warm_cached > 0
    assert warm_cached > cold_cached
    assert warm_cached < warm.usage.prompt_tokens
    assert first.headers["x-superfluid-warm"] == str(cold_cached)
    assert second.headers["x-superfluid-warm"] == str(warm_cached)


# ---- async client --------------------------------------------------------------------------------


def test_async_client(base_url: str, model: str) -> None:
    async def scenario() -> tuple[list[str], str, list[str]]:
        async with AsyncOpenAI(base_url=base_url + "/v1", api_key="unused", max_retries=0, timeout=120) as sdk:
            # Two requests at once share the engine's lanes.
            replies = await asyncio.gather(
                sdk.chat.completions.create(model=model, messages=_user("Say hello."), **GREEDY),
                sdk.chat.completions.create(model=model, messages=_user("Say goodbye."), **GREEDY),
            )
            stream = await sdk.chat.completions.create(model=model, messages=_user("Say hello."), stream=True,
                                                       **GREEDY)
            pieces: list[str] = []
            finishes: list[str] = []
            async for chunk in stream:
                if chunk.choices:
                    pieces.append(chunk.choices[0].delta.content or "")
                    if chunk.choices[0].finish_reason:
                        finishes.append(chunk.choices[0].finish_reason)
            return [r.choices[0].message.content or "" for r in replies], "".join(pieces), finishes

    texts, streamed, finishes = asyncio.run(scenario())
    assert all(texts)
    assert streamed
    assert len(finishes) == 1 and finishes[0] in ("stop", "length")


def test_async_client_raises_sdk_errors(base_url: str) -> None:
    async def scenario() -> openai.NotFoundError:
        async with AsyncOpenAI(base_url=base_url + "/v1", api_key="unused", max_retries=0) as sdk:
            with pytest.raises(openai.NotFoundError) as caught:
                await sdk.chat.completions.create(model="no-such-model", messages=_user("hi"), max_tokens=2)
            return caught.value

    error = asyncio.run(scenario())
    assert error.status_code == 404


# ---- errors as the SDK's own exception classes ----------------------------------------------------


def test_unknown_model_is_not_found_error(client: OpenAI) -> None:
    with pytest.raises(openai.NotFoundError) as caught:
        client.chat.completions.create(model="no-such-model", messages=_user("hi"), max_tokens=2)
    assert caught.value.status_code == 404
    assert caught.value.param == "model"
    assert isinstance(caught.value.body, dict) and caught.value.body.get("message")


def test_unknown_model_retrieve_is_not_found_error(client: OpenAI) -> None:
    with pytest.raises(openai.NotFoundError):
        client.models.retrieve("no-such-model")


def test_missing_field_is_bad_request_naming_it(client: OpenAI, model: str) -> None:
    with pytest.raises(openai.BadRequestError) as caught:
        client.post("/chat/completions", body={"model": model}, cast_to=ChatCompletion)
    assert caught.value.status_code == 400
    assert caught.value.param == "messages"
    assert caught.value.type == "invalid_request_error"


@pytest.mark.parametrize(
    ("field", "value"),
    [("n", 0), ("n", 129), ("temperature", -1), ("top_p", 2), ("max_tokens", 0)],
)
def test_bad_value_is_bad_request_naming_it(client: OpenAI, model: str, field: str, value: Any) -> None:
    with pytest.raises(openai.BadRequestError) as caught:
        client.chat.completions.create(model=model, messages=_user("hi"), extra_body={field: value})
    assert caught.value.param == field


def test_context_overflow_is_bad_request(client: OpenAI, model: str) -> None:
    with pytest.raises(openai.BadRequestError) as caught:
        client.chat.completions.create(model=model, messages=_user("word " * 9000), max_tokens=2)
    assert caught.value.code == "context_length_exceeded"


def test_oversized_body_is_413(client: OpenAI, model: str) -> None:
    huge = "a" * (101 * 1024 * 1024)
    with pytest.raises(openai.APIStatusError) as caught:
        client.chat.completions.create(model=model, messages=_user(huge), max_tokens=2)
    assert caught.value.status_code == 413
    assert caught.value.code == "payload_too_large"


def test_completions_report_warm_prefix(client: OpenAI, model: str) -> None:
    prompt = _fresh("A short note about rivers:")
    client.completions.create(model=model, prompt=prompt, **GREEDY)
    raw = client.completions.with_raw_response.create(model=model, prompt=prompt, **GREEDY)
    reply = raw.parse()
    assert reply.usage is not None and reply.usage.prompt_tokens_details is not None
    cached = reply.usage.prompt_tokens_details.cached_tokens
    assert cached is not None and 0 < cached < reply.usage.prompt_tokens
    assert raw.headers["x-superfluid-warm"] == str(cached)
    extra = reply.model_extra or {}
    assert extra["superfluid"]["cached"] == cached
    assert extra["superfluid"]["served_by"] == model


def test_completions_ignore_n_and_stop(client: OpenAI, model: str) -> None:
    """/v1/completions reads neither n nor stop: one choice, cut only by the token cap."""
    reply = client.completions.create(model=model, prompt="Once upon a time", temperature=0, max_tokens=6, n=3,
                                      stop=[" "], extra_body={"ignore_eos": True})
    assert len(reply.choices) == 1
    assert reply.choices[0].finish_reason == "length"
    assert reply.usage is not None and reply.usage.completion_tokens == 6
