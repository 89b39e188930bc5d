"""Anthropic dialect: the official anthropic SDK on /v1/messages, the SSE event sequence, and the error shape.

A target without /v1/messages reports every check here as not served.
"""

from __future__ import annotations

import json
from typing import Any

import httpx

from superfluid.conformance.suite import Checks, Target
from superfluid.conformance.wire import content_type

CHECKS = Checks("anthropic")

MESSAGES = "POST /v1/messages"
HELLO = [{"role": "user", "content": "Say hello."}]
STOP_REASONS = ("end_turn", "max_tokens", "stop_sequence", "tool_use")
HEADERS = {"anthropic-version": "2023-06-01"}


def sdk(target: Target) -> Any:
    try:
        from anthropic import Anthropic
    except ImportError as exc:  # pragma: no cover - the extra is missing
        raise RuntimeError("the anthropic SDK is needed: pip install 'superfluid[conformance]'") from exc
    return Anthropic(base_url=target.base_url, api_key=target.api_key, max_retries=0, timeout=target.timeout_s)


def body(target: Target, **extra: Any) -> dict[str, Any]:
    return {"model": target.model, "max_tokens": 8, "messages": HELLO, **extra}


def check_message(message: dict[str, Any]) -> None:
    assert message.get("type") == "message" and message.get("role") == "assistant", message
    assert isinstance(message.get("id"), str) and isinstance(message.get("model"), str), message
    assert message.get("stop_reason") in STOP_REASONS, message.get("stop_reason")
    usage = message.get("usage") or {}
    assert isinstance(usage.get("input_tokens"), int) and isinstance(usage.get("output_tokens"), int), usage
    for block in message.get("content") or []:
        assert block.get("type") in ("text", "thinking", "tool_use"), block
        if block["type"] == "text":
            assert isinstance(block.get("text"), str), block


def error_of(response: httpx.Response, status: int) -> None:
    assert response.status_code == status, f"status {response.status_code}, not {status}: {response.text[:300]}"
    error = response.json()
    assert error.get("type") == "error", error
    assert isinstance(error.get("error", {}).get("type"), str), error
    assert isinstance(error["error"].get("message"), str) and error["error"]["message"], error


@CHECKS.check("messages.create", MESSAGES)
def messages_create(target: Target) -> None:
    """A message through the SDK; the body has Anthropic's message shape and a stop reason."""
    reply = sdk(target).messages.create(model=target.model, max_tokens=8, messages=HELLO)
    assert reply.role == "assistant" and reply.stop_reason in STOP_REASONS
    response = target.http.post("/v1/messages", json=body(target), headers=HEADERS)
    assert response.status_code == 200 and content_type(response) == "application/json", response.text[:300]
    check_message(response.json())


@CHECKS.check("messages.stream", MESSAGES)
def messages_stream(target: Target) -> None:
    """A streamed message: named SSE events in Anthropic's order, from message_start to message_stop."""
    with sdk(target).messages.stream(model=target.model, max_tokens=8, messages=HELLO) as stream:
        final = stream.get_final_message()
    assert final.stop_reason in STOP_REASONS
    names: list[str] = []
    with target.http.stream("POST", "/v1/messages", json=body(target, stream=True), headers=HEADERS) as response:
        assert response.status_code == 200 and content_type(response) == "text/event-stream"
        event = ""
        for line in response.iter_lines():
            if line.startswith("event:"):
                event = line.removeprefix("event:").strip()
            elif line.startswith("data:"):
                data = json.loads(line.removeprefix("data:"))
                assert data.get("type") == event, f"event {event!r} carries type {data.get('type')!r}"
                names.append(event)
    assert names[0] == "message_start" and names[-1] == "message_stop", names
    assert "message_delta" in names, names
    for name in names:
        assert name in ("message_start", "content_block_start", "content_block_delta", "content_block_stop",
                        "message_delta", "message_stop", "ping"), name


@CHECKS.check("errors.unknown_model", MESSAGES)
def errors_unknown_model(target: Target) -> None:
    """An unknown model is a 404 in Anthropic's error shape."""
    error_of(target.http.post("/v1/messages", json=body(target, model="no-such-model-anywhere"), headers=HEADERS),
             404)


@CHECKS.check("errors.missing_max_tokens", MESSAGES)
def errors_missing_max_tokens(target: Target) -> None:
    """max_tokens is required by the Messages API: without it, a 400 in Anthropic's error shape."""
    request = body(target)
    del request["max_tokens"]
    error_of(target.http.post("/v1/messages", json=request, headers=HEADERS), 400)
