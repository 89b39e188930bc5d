"""The Anthropic Messages API through the official anthropic SDK, on the real server and the real bundled model.

Bodies and events are held to the SDK's own pydantic types with no key the SDK does not declare
(conformance/anthropic_checks.py), streams are read byte for byte, and every error surfaces as the SDK's typed
exception. This SDK release takes sampling fields only through ``extra_body``; greedy requests send
``temperature: 0`` that way.

Thinking runs on a second server whose chat template thinks (conformance/templates/thinking.jinja, the one
test_reasoning.py uses); it also requires an API key, for the authentication error.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anthropic
import httpx
import jsonschema
import pytest
from anthropic import Anthropic

from conformance.anthropic_checks import (
    check_sequence,
    sse_events,
    strict_count,
    strict_error,
    strict_message,
    strict_stream,
    validate_anthropic,
)
from conformance.server import DEFAULT_MODEL, RunningServer, start_server, stop_server

THINKING_TEMPLATE = Path(__file__).parent / "templates" / "thinking.jinja"
KEY = "anthropic-conformance-key"
GREEDY: Any = {"temperature": 0}
COLORS: Any = [{"role": "user", "content": "Name three primary colors."}]
WEATHER: Any = {
    "name": "get_weather",
    "description": "The current weather in a city",
    "input_schema": {"type": "object", "properties": {"city": {"type": "string", "maxLength": 20}},
                     "required": ["city"]},
}
ONE_CALL: Any = {"type": "any", "disable_parallel_tool_use": True}
LIMIT = 100 * 1024 * 1024


@pytest.fixture(scope="module")
def sdk(base_url: str) -> Iterator[Anthropic]:
    with Anthropic(base_url=base_url, api_key="unused", max_retries=0, timeout=180) as client:
        yield client


@pytest.fixture(scope="module")
def thinker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    log = tmp_path_factory.mktemp("anthropic-thinking") / "serve.log"
    running = start_server([DEFAULT_MODEL, "--chat-template-file", str(THINKING_TEMPLATE), "--parallel", "2",
                            "--ctx-size", "2048", "--threads", "1", "--api-key", KEY], log)
    yield running
    stop_server(running)


@pytest.fixture(scope="module")
def thinking_sdk(thinker: RunningServer) -> Iterator[Anthropic]:
    with Anthropic(base_url=thinker.base_url, api_key=KEY, max_retries=0, timeout=180) as client:
        yield client


def _create(sdk: Anthropic, **fields: Any) -> tuple[anthropic.types.Message, httpx.Response]:
    """A message, its raw body held strictly to the SDK's Message."""
    fields = {"model": DEFAULT_MODEL, "max_tokens": 16, "messages": COLORS, "extra_body": GREEDY, **fields}
    raw = sdk.messages.with_raw_response.create(**fields)
    strict_message(raw.http_response.json())
    return raw.parse(), raw.http_response


def _raw_stream(http: httpx.Client, body: dict[str, Any]) -> tuple[httpx.Response, list[tuple[str, Any]]]:
    with http.stream("POST", "/v1/messages", json={**body, "stream": True}) as response:
        raw = b"".join(response.iter_raw())
    events = sse_events(raw)
    check_sequence(events)
    strict_stream(events)
    return response, events


def _text(message: anthropic.types.Message) -> str:
    return "".join(block.text for block in message.content if block.type == "text")


# ---- create and stream --------------------------------------------------------------------------------------


def test_create_answers_with_a_message(sdk: Anthropic) -> None:
    message, response = _create(sdk)
    assert message.id.startswith("msg_") and message.type == "message" and message.role == "assistant"
    assert message.model == DEFAULT_MODEL
    assert [block.type for block in message.content] == ["text"] and _text(message)
    assert message.stop_reason == "max_tokens" and message.stop_sequence is None
    usage = message.usage
    assert usage.output_tokens == 16 and usage.cache_creation_input_tokens == 0
    assert usage.input_tokens > 0 and usage.cache_read_input_tokens is not None
    assert response.headers["x-superfluid-warm"] == str(usage.cache_read_input_tokens)


def test_a_repeated_prompt_is_read_from_the_prefix_cache(sdk: Anthropic) -> None:
    messages = [{"role": "user", "content": "Tell me one fact about the Moon. (cache check)"}]
    first, _ = _create(sdk, messages=messages, max_tokens=2)
    again, _ = _create(sdk, messages=messages, max_tokens=2)
    total = first.usage.input_tokens + (first.usage.cache_read_input_tokens or 0)
    assert again.usage.cache_read_input_tokens and again.usage.cache_read_input_tokens > 0
    assert again.usage.input_tokens + again.usage.cache_read_input_tokens == total


def test_superfluid_headers_apply(sdk: Anthropic) -> None:
    """QoS classes and batch-invariant lanes come with the chat handler's engine request."""
    _create(sdk, max_tokens=2)
    warm, _ = _create(sdk, max_tokens=2)
    cold, response = _create(sdk, max_tokens=2, extra_headers={"x-superfluid-batch-invariant": "1",
                                                                "x-superfluid-qos": "background"})
    assert warm.usage.cache_read_input_tokens and cold.usage.cache_read_input_tokens == 0
    assert response.headers["x-superfluid-warm"] == "0"
    with pytest.raises(anthropic.BadRequestError):
        _create(sdk, max_tokens=2, extra_headers={"x-superfluid-qos": "urgent"})


def test_stream_helpers_assemble_the_same_message(sdk: Anthropic) -> None:
    plain, _ = _create(sdk, max_tokens=24)
    with sdk.messages.stream(model=DEFAULT_MODEL, max_tokens=24, messages=COLORS, extra_body=GREEDY) as stream:
        text = "".join(stream.text_stream)
        final = stream.get_final_message()
    assert text == _text(final) == _text(plain)
    assert final.stop_reason == plain.stop_reason
    assert final.usage.output_tokens == plain.usage.output_tokens
    strict_message(final.to_dict())


def test_stream_framing_byte_for_byte(http: httpx.Client) -> None:
    response, events = _raw_stream(http, {"model": DEFAULT_MODEL, "max_tokens": 8, "messages": COLORS, **GREEDY})
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    start = events[0][1]["message"]
    assert start["content"] == [] and start["stop_reason"] is None and start["usage"]["output_tokens"] == 0
    assert response.headers["x-superfluid-warm"] == str(start["usage"]["cache_read_input_tokens"])
    deltas = [data["delta"] for name, data in events if name == "content_block_delta"]
    assert deltas and all(d["type"] == "text_delta" and d["text"] for d in deltas)
    final = events[-2][1]
    assert final["delta"] == {"stop_reason": "max_tokens", "stop_sequence": None}
    assert final["usage"]["output_tokens"] == 8


def test_stop_sequences_end_the_reply_and_are_named(sdk: Anthropic) -> None:
    full, _ = _create(sdk, max_tokens=24)
    stop = _text(full).split()[2]
    message, _ = _create(sdk, max_tokens=24, stop_sequences=["no such words here", stop])
    assert message.stop_reason == "stop_sequence" and message.stop_sequence == stop
    assert stop not in _text(message) and _text(full).startswith(_text(message))
    with sdk.messages.stream(model=DEFAULT_MODEL, max_tokens=24, messages=COLORS, stop_sequences=[stop],
                             extra_body=GREEDY) as stream:
        final = stream.get_final_message()
    assert final.stop_reason == "stop_sequence" and final.stop_sequence == stop


def test_system_prompt_as_string_or_blocks_and_unknown_fields(sdk: Anthropic) -> None:
    as_string, _ = _create(sdk, system="Answer in one word.", max_tokens=6)
    as_blocks, _ = _create(sdk, max_tokens=6, system=[
        {"type": "text", "text": "Answer in one word.", "cache_control": {"type": "ephemeral"}}],
        metadata={"user_id": "u-1"}, extra_body={**GREEDY, "no_such_field": {"x": 1}},
        extra_headers={"anthropic-beta": "prompt-caching-2024-07-31,interleaved-thinking-2025-05-14",
                       "anthropic-version": "2023-06-01"})
    assert _text(as_string) == _text(as_blocks)


def test_a_trailing_assistant_turn_is_continued(sdk: Anthropic) -> None:
    full, _ = _create(sdk, max_tokens=16)
    start = " ".join(_text(full).split()[:3])
    message, _ = _create(sdk, max_tokens=8, messages=[*COLORS, {"role": "assistant", "content": start}])
    assert _text(message) and not _text(message).lstrip().startswith(start)
    with pytest.raises(anthropic.BadRequestError):
        sdk.messages.create(model=DEFAULT_MODEL, max_tokens=4, tools=[WEATHER], tool_choice={"type": "any"},
                            messages=[*COLORS, {"role": "assistant", "content": start}])


def test_output_format_constrains_the_text_to_the_schema(sdk: Anthropic) -> None:
    planet = {"type": "object", "properties": {"name": {"type": "string", "maxLength": 12}}, "required": ["name"]}
    message, _ = _create(sdk, max_tokens=32, messages=[{"role": "user", "content": "Name a planet, as JSON."}],
                         output_config={"format": {"type": "json_schema", "schema": planet}})
    assert message.stop_reason == "end_turn"
    jsonschema.validate(json.loads(_text(message)), {**planet, "additionalProperties": False})


# ---- tools ----------------------------------------------------------------------------------------------------


def _one_call(message: anthropic.types.Message) -> anthropic.types.ToolUseBlock:
    calls = [block for block in message.content if block.type == "tool_use"]
    assert len(calls) == 1, message.content
    call = calls[0]
    assert call.id.startswith("toolu_") and call.name == "get_weather"
    jsonschema.validate(call.input, WEATHER["input_schema"])
    return call


def test_a_tool_use_round_trip(sdk: Anthropic) -> None:
    ask: Any = [{"role": "user", "content": "What is the weather in Paris?"}]
    first, _ = _create(sdk, messages=ask, tools=[WEATHER], tool_choice=ONE_CALL, max_tokens=60)
    assert first.stop_reason == "tool_use"
    call = _one_call(first)
    history = [*ask, {"role": "assistant", "content": [block.to_dict() for block in first.content]},
               {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call.id,
                                             "content": "Sunny, 24 degrees."}]}]
    second, _ = _create(sdk, messages=history, tools=[WEATHER], tool_choice={"type": "none"}, max_tokens=24)
    assert [block.type for block in second.content] == ["text"] and _text(second)
    assert second.stop_reason in ("end_turn", "max_tokens")
    counted = sdk.messages.count_tokens(model=DEFAULT_MODEL, messages=history, tools=[WEATHER],
                                        tool_choice={"type": "none"})
    assert counted.input_tokens == second.usage.input_tokens + (second.usage.cache_read_input_tokens or 0)
    failed, _ = _create(sdk, messages=[*history[:2], {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": call.id, "content": "city not found", "is_error": True}]}],
        tools=[WEATHER], tool_choice={"type": "none"}, max_tokens=8)
    assert _text(failed)


def test_a_streamed_tool_use_is_assembled_by_the_helpers(sdk: Anthropic, http: httpx.Client) -> None:
    ask: Any = [{"role": "user", "content": "What is the weather in Paris?"}]
    with sdk.messages.stream(model=DEFAULT_MODEL, max_tokens=60, messages=ask, tools=[WEATHER],
                             tool_choice=ONE_CALL, extra_body=GREEDY) as stream:
        final = stream.get_final_message()
    assert final.stop_reason == "tool_use"
    _one_call(final)
    _, events = _raw_stream(http, {"model": DEFAULT_MODEL, "max_tokens": 60, "messages": ask, "tools": [WEATHER],
                                   "tool_choice": ONE_CALL, **GREEDY})
    kinds = [data["delta"]["type"] for name, data in events if name == "content_block_delta"]
    assert "input_json_delta" in kinds


def test_a_tool_use_cut_by_max_tokens_is_the_same_whole_and_streamed(sdk: Anthropic) -> None:
    # The cap falls inside the arguments: the whole message keeps the block the stream sent, not content: [].
    ask: Any = [{"role": "user", "content": "What is the weather in Paris?"}]
    options: Any = {"model": DEFAULT_MODEL, "max_tokens": 14, "messages": ask, "tools": [WEATHER],
                    "tool_choice": ONE_CALL, "extra_body": GREEDY}
    whole = sdk.messages.create(**options)
    with sdk.messages.stream(**options) as stream:
        streamed = stream.get_final_message()
    assert whole.stop_reason == streamed.stop_reason == "max_tokens"
    blocks = [block for block in whole.content if block.type == "tool_use"]
    assert [b.name for b in blocks] == [b.name for b in streamed.content if b.type == "tool_use"] == ["get_weather"]
    assert blocks[0].input == next(b for b in streamed.content if b.type == "tool_use").input


def test_tool_choice_names_the_one_tool_called(sdk: Anthropic) -> None:
    clock = {"name": "get_time", "description": "The time in a zone",
             "input_schema": {"type": "object", "properties": {"zone": {"type": "string", "maxLength": 20}},
                              "required": ["zone"]}}
    message, _ = _create(sdk, messages=[{"role": "user", "content": "What is the weather in Paris?"}],
                         tools=[WEATHER, clock], tool_choice={"type": "tool", "name": "get_time"}, max_tokens=60)
    assert {b.name for b in message.content if b.type == "tool_use"} == {"get_time"}


# ---- count_tokens ---------------------------------------------------------------------------------------------


def test_count_tokens_is_the_prompt_a_message_reports(sdk: Anthropic) -> None:
    raw = sdk.messages.with_raw_response.count_tokens(model=DEFAULT_MODEL, messages=COLORS, system="Be brief.")
    counted = strict_count(raw.http_response.json())
    message, _ = _create(sdk, system="Be brief.", max_tokens=2)
    assert counted.input_tokens == message.usage.input_tokens + (message.usage.cache_read_input_tokens or 0)
    with_tools = sdk.messages.count_tokens(model=DEFAULT_MODEL, messages=COLORS, system="Be brief.",
                                           tools=[WEATHER])
    assert with_tools.input_tokens > counted.input_tokens


def test_count_tokens_counts_past_the_window(sdk: Anthropic) -> None:
    long = [{"role": "user", "content": "word " * 12000}]
    assert sdk.messages.count_tokens(model=DEFAULT_MODEL, messages=long).input_tokens > 8192
    with pytest.raises(anthropic.BadRequestError):
        sdk.messages.create(model=DEFAULT_MODEL, max_tokens=2, messages=long)


# ---- thinking -------------------------------------------------------------------------------------------------

QUESTION: Any = [{"role": "user", "content": "What is 2+2?"}]
THINK: Any = {"type": "enabled", "budget_tokens": 1024}


def test_thinking_comes_back_as_a_signed_thinking_block(thinking_sdk: Anthropic) -> None:
    message, _ = _create(thinking_sdk, messages=QUESTION, thinking=THINK, max_tokens=24)
    block = message.content[0]
    assert block.type == "thinking" and block.thinking.strip() and "think>" not in block.thinking
    assert isinstance(block.signature, str) and block.signature
    with thinking_sdk.messages.stream(model=DEFAULT_MODEL, max_tokens=24, messages=QUESTION, thinking=THINK,
                                      extra_body=GREEDY) as stream:
        kinds = {event.type for event in stream}
        final = stream.get_final_message()
    assert "thinking" in kinds and "signature" in kinds
    assert final.content[0].to_dict() == block.to_dict()


def test_thinking_disabled_gives_text_only(thinking_sdk: Anthropic) -> None:
    message, _ = _create(thinking_sdk, messages=QUESTION, thinking={"type": "disabled"}, max_tokens=12)
    assert [b.type for b in message.content] == ["text"] and "think>" not in _text(message)


def test_thinking_blocks_passed_back_are_accepted(thinking_sdk: Anthropic) -> None:
    first, _ = _create(thinking_sdk, messages=QUESTION, thinking=THINK, max_tokens=24)
    history = [*QUESTION, {"role": "assistant", "content": [b.to_dict() for b in first.content]},
               {"role": "user", "content": "And 3+3?"}]
    second, _ = _create(thinking_sdk, messages=history, thinking=THINK, max_tokens=8)
    assert second.content


def test_thinking_on_a_template_that_cannot_changes_nothing(sdk: Anthropic) -> None:
    """Accepted and ignored, as llama-server does (docs/api.md, "Reasoning settings"): agents send it by default."""
    plain, _ = _create(sdk, messages=QUESTION, max_tokens=4)
    for thinking in (THINK, {"type": "disabled"}):
        message, _ = _create(sdk, messages=QUESTION, thinking=thinking, max_tokens=4)
        assert [block.model_dump() for block in message.content] == [block.model_dump() for block in plain.content]


# ---- errors ---------------------------------------------------------------------------------------------------


def _error_body(error: anthropic.APIStatusError) -> dict[str, Any]:
    body = error.body
    assert isinstance(body, dict)
    strict_error(body)
    return body


def test_an_unknown_model_is_not_found(sdk: Anthropic) -> None:
    with pytest.raises(anthropic.NotFoundError) as caught:
        sdk.messages.create(model="no-such-model", max_tokens=4, messages=COLORS)
    assert _error_body(caught.value)["error"]["type"] == "not_found_error"
    with pytest.raises(anthropic.NotFoundError):
        sdk.messages.count_tokens(model="no-such-model", messages=COLORS)


def test_an_image_on_a_text_only_model_is_refused_naming_the_block(sdk: Anthropic) -> None:
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}
    with pytest.raises(anthropic.BadRequestError) as caught:
        sdk.messages.create(model=DEFAULT_MODEL, max_tokens=4, messages=[
            {"role": "user", "content": [{"type": "text", "text": "What is this?"}, image]}])
    error = _error_body(caught.value)["error"]
    assert error["type"] == "invalid_request_error"
    assert error["message"].startswith("messages[0].content[1]: ")


def test_missing_max_tokens_is_a_400_naming_it(sdk: Anthropic) -> None:
    with pytest.raises(anthropic.BadRequestError) as caught:
        sdk.post("/v1/messages", cast_to=object, body={"model": DEFAULT_MODEL, "messages": COLORS})
    assert "max_tokens" in _error_body(caught.value)["error"]["message"]
    for bad in ({"messages": []}, {"max_tokens": 0}, {"messages": [{"role": "system", "content": "x"}]},
                {"tool_choice": {"type": "tool", "name": "missing"}, "tools": [WEATHER]}):
        with pytest.raises(anthropic.BadRequestError):
            sdk.post("/v1/messages", cast_to=object,
                     body={"model": DEFAULT_MODEL, "max_tokens": 4, "messages": COLORS, **bad})


def test_a_missing_key_is_an_authentication_error(thinker: RunningServer) -> None:
    with (Anthropic(base_url=thinker.base_url, api_key="wrong", max_retries=0) as client,
          pytest.raises(anthropic.AuthenticationError) as caught):
        client.messages.create(model=DEFAULT_MODEL, max_tokens=4, messages=COLORS)
    assert _error_body(caught.value)["error"]["type"] == "authentication_error"


def test_a_body_over_the_limit_is_request_too_large(sdk: Anthropic) -> None:
    with pytest.raises(anthropic.ContentTooLargeError) as caught:
        sdk.messages.create(model=DEFAULT_MODEL, max_tokens=4, messages=COLORS, system="a" * (LIMIT + 1024))
    assert _error_body(caught.value)["error"]["type"] == "request_too_large"


def test_the_document_describes_what_was_served(http: httpx.Client) -> None:
    """Bodies and events also match openapi/anthropic.yaml's own schemas, which are closed."""
    reply = http.post("/v1/messages", json={"model": DEFAULT_MODEL, "max_tokens": 4, "messages": COLORS, **GREEDY})
    validate_anthropic("Message", reply.json())
    _, events = _raw_stream(http, {"model": DEFAULT_MODEL, "max_tokens": 4, "messages": COLORS, **GREEDY})
    for _, data in events:
        validate_anthropic("MessageStreamEvent", data)
    validate_anthropic("ErrorResponse", http.post("/v1/messages", json={"model": DEFAULT_MODEL}).json())
    counted = http.post("/v1/messages/count_tokens", json={"model": DEFAULT_MODEL, "messages": COLORS})
    validate_anthropic("MessageTokensCount", counted.json())
    assert json.loads(counted.text)["input_tokens"] > 0
