"""OpenAI dialect: the official openai SDK, SSE framing, error shapes, bodies and chunks against OpenAI's
published schemas, and the rules of superfluid's product document that any OpenAI-compatible server should
keep (first chunk's delta, no empty deltas, stop excluded, limits answered with 400)."""

from __future__ import annotations

import json
from typing import Any

import httpx

from superfluid.conformance.published import validate
from superfluid.conformance.suite import Checks, Target
from superfluid.conformance.wire import content_type, sse_chunks

CHECKS = Checks("openai")

CHAT = "POST /v1/chat/completions"
COMPLETIONS = "POST /v1/completions"
SAY_HELLO = [{"role": "user", "content": "Say hello."}]


def sdk(target: Target) -> Any:
    try:
        from openai import OpenAI
    except ImportError as exc:  # pragma: no cover - the extra is missing
        raise RuntimeError("the openai SDK is needed: pip install 'superfluid[conformance]'") from exc
    return OpenAI(base_url=target.base_url + "/v1", api_key=target.api_key, max_retries=0,
                  timeout=target.timeout_s)


def chat_body(target: Target, **extra: Any) -> dict[str, Any]:
    return {"model": target.model, "messages": SAY_HELLO, "max_tokens": 8, "temperature": 0, **extra}


def ok_json(response: httpx.Response) -> Any:
    assert response.status_code == 200, f"status {response.status_code}: {response.text[:300]}"
    assert content_type(response) == "application/json", f"content-type {content_type(response)!r}"
    return response.json()


def stream_chat(target: Target, **extra: Any) -> list[dict[str, Any]]:
    body = chat_body(target, stream=True, **extra)
    with target.http.stream("POST", "/v1/chat/completions", json=body) as response:
        assert response.status_code == 200, f"status {response.status_code}: {response.read()[:300]!r}"
        return sse_chunks(response)


def error_of(response: httpx.Response, status: int) -> dict[str, Any]:
    """The body of an error answer, which must have ``status`` and OpenAI's error shape."""
    assert response.status_code == status, f"status {response.status_code}, not {status}: {response.text[:300]}"
    body = response.json()
    validate("openai", "ErrorResponse", body)
    assert isinstance(body["error"].get("message"), str) and body["error"]["message"], "an empty error message"
    return dict(body)


@CHECKS.check("models.list", "GET /v1/models")
def models_list(target: Target) -> None:
    """GET /v1/models through the SDK; the body matches ListModelsResponse and lists the model."""
    ids = [model.id for model in sdk(target).models.list()]
    assert target.model in ids, f"{target.model} is not listed in {ids}"
    validate("openai", "ListModelsResponse", ok_json(target.http.get("/v1/models")))


@CHECKS.check("models.retrieve", "GET /v1/models/{model}")
def models_retrieve(target: Target) -> None:
    """GET /v1/models/{model} through the SDK; the body matches Model."""
    assert sdk(target).models.retrieve(target.model).id == target.model
    validate("openai", "Model", ok_json(target.http.get(f"/v1/models/{target.model}")))


@CHECKS.check("chat.create", CHAT)
def chat_create(target: Target) -> None:
    """A chat completion through the SDK; the body matches CreateChatCompletionResponse, usage adds up."""
    reply = sdk(target).chat.completions.create(model=target.model, messages=SAY_HELLO, max_tokens=8, temperature=0)
    assert reply.choices and reply.choices[0].message.role == "assistant"
    body = ok_json(target.http.post("/v1/chat/completions", json=chat_body(target)))
    validate("openai", "CreateChatCompletionResponse", body)
    usage = body["usage"]
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"], f"usage {usage}"
    assert body["choices"][0]["finish_reason"] in ("stop", "length"), body["choices"][0]["finish_reason"]


@CHECKS.check("chat.stream.sdk", CHAT)
def chat_stream_sdk(target: Target) -> None:
    """A streamed chat completion read by the SDK: text arrives and the stream finishes with a reason."""
    stream = sdk(target).chat.completions.create(model=target.model, messages=SAY_HELLO, max_tokens=8,
                                                 temperature=0, stream=True)
    reasons = [choice.finish_reason for chunk in stream for choice in chunk.choices if choice.finish_reason]
    assert reasons in (["stop"], ["length"]), f"finish reasons {reasons}"


@CHECKS.check("chat.stream.framing", CHAT)
def chat_stream_framing(target: Target) -> None:
    """SSE framing: every event a JSON chunk matching CreateChatCompletionStreamResponse, then data: [DONE]."""
    chunks = stream_chat(target)
    for chunk in chunks:
        validate("openai", "CreateChatCompletionStreamResponse", chunk)
        assert chunk["object"] == "chat.completion.chunk", chunk["object"]
    assert len({chunk["id"] for chunk in chunks}) == 1, "the chunks of one stream carry different ids"


@CHECKS.check("chat.stream.first_delta", CHAT)
def chat_stream_first_delta(target: Target) -> None:
    """The first chunk's delta is {"role": "assistant"} and no later delta is empty or repeats the role."""
    chunks = [chunk for chunk in stream_chat(target) if chunk["choices"]]
    assert chunks[0]["choices"][0]["delta"] == {"role": "assistant"}, f"first delta {chunks[0]['choices'][0]}"
    for chunk in chunks[1:]:
        delta = chunk["choices"][0]["delta"]
        assert "role" not in delta, f"a later delta repeats the role: {delta}"
        assert delta.get("content") != "", "an empty content delta"
        assert delta or chunk["choices"][0].get("finish_reason"), "an empty delta that finishes nothing"


@CHECKS.check("chat.stream.usage", CHAT)
def chat_stream_usage(target: Target) -> None:
    """stream_options.include_usage: the last chunk carries usage that adds up (OpenAI sends it on a chunk of
    its own with empty choices; superfluid's product document puts it on the terminal chunk; both parse)."""
    chunks = stream_chat(target, stream_options={"include_usage": True})
    last = chunks[-1]
    assert last.get("usage"), f"no usage on the last chunk: {last}"
    validate("openai", "CompletionUsage", last["usage"])
    usage = last["usage"]
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"], f"usage {usage}"
    assert all(not chunk.get("usage") for chunk in chunks[:-1] if chunk["choices"] and
               not chunk["choices"][0].get("finish_reason")), "usage on a content chunk without being asked"


@CHECKS.check("chat.max_tokens", CHAT)
def chat_max_tokens(target: Target) -> None:
    """A reply cut by max_tokens finishes with "length" and counts no more tokens than asked."""
    body = ok_json(target.http.post("/v1/chat/completions", json=chat_body(
        target, max_tokens=2, messages=[{"role": "user", "content": "Count from one to fifty in words."}])))
    assert body["choices"][0]["finish_reason"] == "length", body["choices"][0]["finish_reason"]
    assert body["usage"]["completion_tokens"] <= 2, body["usage"]


@CHECKS.check("chat.stop", CHAT)
def chat_stop(target: Target) -> None:
    """A stop string ends the reply and is not part of it."""
    plain = ok_json(target.http.post("/v1/chat/completions", json=chat_body(target, max_tokens=12)))
    text = plain["choices"][0]["message"]["content"] or ""
    words = text.split()
    assert len(words) >= 2, f"reply too short to pick a stop word from: {text!r}"
    stop = words[1]
    cut = ok_json(target.http.post("/v1/chat/completions", json=chat_body(target, max_tokens=12, stop=[stop])))
    choice = cut["choices"][0]
    assert stop not in (choice["message"]["content"] or ""), f"stop {stop!r} in {choice['message']['content']!r}"
    assert choice["finish_reason"] == "stop", choice["finish_reason"]


@CHECKS.check("chat.n", CHAT)
def chat_n(target: Target) -> None:
    """n=2 answers two choices, indexed 0 and 1."""
    body = ok_json(target.http.post("/v1/chat/completions", json=chat_body(target, n=2, temperature=0.8, seed=7)))
    assert sorted(choice["index"] for choice in body["choices"]) == [0, 1], body["choices"]


@CHECKS.check("chat.logprobs", CHAT)
def chat_logprobs(target: Target) -> None:
    """logprobs with top_logprobs=2: one entry per token, each with two alternatives."""
    body = ok_json(target.http.post("/v1/chat/completions", json=chat_body(
        target, max_tokens=3, logprobs=True, top_logprobs=2)))
    validate("openai", "CreateChatCompletionResponse", body)
    content = (body["choices"][0]["logprobs"] or {}).get("content") or []
    assert content, "no logprobs content"
    assert all(len(entry["top_logprobs"]) == 2 for entry in content), content[:2]


@CHECKS.check("chat.json_schema", CHAT)
def chat_json_schema(target: Target) -> None:
    """response_format json_schema (as pydantic writes it: no additionalProperties, no strict) ends in JSON
    that matches the schema."""
    schema = {"type": "object", "properties": {"name": {"type": "string", "maxLength": 20}}, "required": ["name"]}
    body = ok_json(target.http.post("/v1/chat/completions", json=chat_body(
        target, max_tokens=48, messages=[{"role": "user", "content": "Name a planet, as JSON."}],
        response_format={"type": "json_schema", "json_schema": {"name": "planet", "schema": schema}})))
    choice = body["choices"][0]
    assert choice["finish_reason"] == "stop", f"finish_reason {choice['finish_reason']}: {choice['message']}"
    reply = json.loads(choice["message"]["content"])
    assert isinstance(reply, dict) and isinstance(reply.get("name"), str), reply


@CHECKS.check("chat.tool_call", CHAT)
def chat_tool_call(target: Target) -> None:
    """tool_choice naming a function: the reply is a tool call whose arguments are a JSON object."""
    tool = {"type": "function", "function": {"name": "get_weather", "parameters": {
        "type": "object", "properties": {"city": {"type": "string", "maxLength": 16}}, "required": ["city"]}}}
    body = ok_json(target.http.post("/v1/chat/completions", json=chat_body(
        target, max_tokens=48, messages=[{"role": "user", "content": "Weather in Oslo?"}], tools=[tool],
        tool_choice={"type": "function", "function": {"name": "get_weather"}})))
    validate("openai", "CreateChatCompletionResponse", body)
    calls = body["choices"][0]["message"].get("tool_calls") or []
    assert calls and calls[0]["function"]["name"] == "get_weather", body["choices"][0]["message"]
    assert isinstance(json.loads(calls[0]["function"]["arguments"]), dict), calls[0]["function"]["arguments"]


@CHECKS.check("completions.create", COMPLETIONS)
def completions_create(target: Target) -> None:
    """A text completion through the SDK; the body matches CreateCompletionResponse."""
    reply = sdk(target).completions.create(model=target.model, prompt="The capital of France is", max_tokens=6,
                                           temperature=0)
    assert reply.choices and isinstance(reply.choices[0].text, str)
    body = ok_json(target.http.post("/v1/completions", json={
        "model": target.model, "prompt": "The capital of France is", "max_tokens": 6, "temperature": 0}))
    validate("openai", "CreateCompletionResponse", body)


@CHECKS.check("completions.stream", COMPLETIONS)
def completions_stream(target: Target) -> None:
    """A streamed completion: SSE chunks that each match CreateCompletionResponse, then data: [DONE]."""
    body = {"model": target.model, "prompt": "Once upon a time", "max_tokens": 6, "temperature": 0, "stream": True}
    with target.http.stream("POST", "/v1/completions", json=body) as response:
        assert response.status_code == 200, f"status {response.status_code}"
        chunks = sse_chunks(response)
    for chunk in chunks:
        # OpenAI's published schema has no null finish_reason, which its own streams send on every chunk
        # but the last: the terminal chunks are held to the schema, the others to its shape.
        if any(choice.get("finish_reason") for choice in chunk.get("choices", [])):
            validate("openai", "CreateCompletionResponse", chunk)
        for choice in chunk.get("choices", []):
            assert isinstance(choice.get("text"), str) and isinstance(choice.get("index"), int), choice
            assert choice["text"] != "" or choice.get("finish_reason"), f"an empty text chunk: {chunk}"
    reasons = [c["finish_reason"] for chunk in chunks for c in chunk.get("choices", []) if c.get("finish_reason")]
    assert reasons in (["stop"], ["length"]), f"finish reasons {reasons}"


@CHECKS.check("errors.unknown_model", CHAT)
def errors_unknown_model(target: Target) -> None:
    """An unknown model is a 404 in OpenAI's error shape (the SDK raises NotFoundError)."""
    from openai import NotFoundError

    try:
        sdk(target).chat.completions.create(model="no-such-model-anywhere", messages=SAY_HELLO, max_tokens=2)
    except NotFoundError:
        pass
    else:
        raise AssertionError("no NotFoundError for an unknown model")
    error_of(target.http.post("/v1/chat/completions", json=chat_body(target, model="no-such-model-anywhere")), 404)


@CHECKS.check("errors.missing_field", CHAT)
def errors_missing_field(target: Target) -> None:
    """A body without messages, or without model, is a 400 in OpenAI's error shape."""
    error_of(target.http.post("/v1/chat/completions", json={"model": target.model}), 400)
    error_of(target.http.post("/v1/chat/completions", json={"messages": SAY_HELLO}), 400)


@CHECKS.check("errors.malformed_json", CHAT)
def errors_malformed_json(target: Target) -> None:
    """A body that is not JSON is a 400 in OpenAI's error shape."""
    response = target.http.post("/v1/chat/completions", content=b'{"model": ',
                                headers={"content-type": "application/json"})
    error_of(response, 400)


@CHECKS.check("errors.out_of_range", CHAT)
def errors_out_of_range(target: Target) -> None:
    """Values outside the documented ranges (top_logprobs 21, n 0) are a 400, not a reply."""
    error_of(target.http.post("/v1/chat/completions", json=chat_body(target, logprobs=True, top_logprobs=21)), 400)
    error_of(target.http.post("/v1/chat/completions", json=chat_body(target, n=0)), 400)


@CHECKS.check("errors.unknown_fields_ignored", CHAT)
def errors_unknown_fields_ignored(target: Target) -> None:
    """Unknown request fields are ignored, not refused."""
    ok_json(target.http.post("/v1/chat/completions", json=chat_body(target, max_tokens=2, no_such_field={"x": 1})))
