"""ASGI guards: the request body limit, in front of a tiny echo app (keys and limits: test_access.py)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from starlette.types import Message, Receive, Scope, Send

from superfluid.errors import PayloadTooLarge, StorageUnavailable
from superfluid.http.guards import BodyLimit, LastResort

LIMIT = 64


async def echo_app(scope: Scope, receive: Receive, send: Send) -> None:
    """Reads the whole body and answers 200 with its length; what the guards wrap."""
    size = 0
    while True:
        message = await receive()
        size += len(message.get("body", b""))
        if not message.get("more_body"):
            break
    body = json.dumps({"ok": True, "received": size}).encode()
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]})
    await send({"type": "http.response.body", "body": body})


def _scope(path: str, headers: dict[str, str] | None = None, method: str = "POST") -> Scope:
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()],
        "client": ("127.0.0.1", 5000),
        "server": ("testserver", 80),
    }


def _call(app: Any, scope: Scope, chunks: list[bytes]) -> tuple[int, dict[str, str], Any, int]:
    """Drive one request through an ASGI app; returns status, headers, JSON body and body messages read."""
    messages: list[Message] = [
        {"type": "http.request", "body": chunk, "more_body": i < len(chunks) - 1} for i, chunk in enumerate(chunks)
    ] or [{"type": "http.request", "body": b"", "more_body": False}]
    read = 0
    sent: list[Message] = []

    async def receive() -> Message:
        nonlocal read
        if read < len(messages):
            read += 1
            return messages[read - 1]
        return {"type": "http.disconnect"}

    async def send(message: Message) -> None:
        sent.append(message)

    asyncio.run(app(scope, receive, send))
    start = sent[0]
    headers = {k.decode(): v.decode() for k, v in start["headers"]}
    body = b"".join(m.get("body", b"") for m in sent[1:])
    return start["status"], headers, json.loads(body), read


# --- BodyLimit -----------------------------------------------------------------------------------------


def test_body_within_the_limit_passes() -> None:
    guard = BodyLimit(echo_app, max_bytes=LIMIT)
    status, _, body, _ = _call(guard, _scope("/v1/chat/completions", {"content-length": str(LIMIT)}), [b"x" * LIMIT])
    assert (status, body) == (200, {"ok": True, "received": LIMIT})


def test_declared_length_over_the_limit_is_413_in_openai_shape_before_reading() -> None:
    guard = BodyLimit(echo_app, max_bytes=LIMIT)
    scope = _scope("/v1/chat/completions", {"content-length": str(LIMIT + 1)})
    status, headers, body, read = _call(guard, scope, [b"x" * (LIMIT + 1)])
    assert status == 413
    assert headers["content-type"] == "application/json"
    assert int(headers["content-length"]) == len(json.dumps(body).encode())
    assert body["error"]["type"] == "invalid_request_error"
    assert body["error"]["code"] == "payload_too_large"
    assert body["error"]["param"] is None
    assert read == 0  # refused on the header alone


def test_declared_length_over_the_limit_on_an_ollama_path() -> None:
    guard = BodyLimit(echo_app, max_bytes=LIMIT)
    status, _, body, _ = _call(guard, _scope("/api/chat", {"content-length": "100000"}), [b"x"])
    assert status == 413
    assert set(body) == {"error"}
    assert isinstance(body["error"], str)
    assert "limit" in body["error"]


def test_declared_length_over_the_limit_on_the_anthropic_path() -> None:
    guard = BodyLimit(echo_app, max_bytes=LIMIT)
    status, _, body, _ = _call(guard, _scope("/v1/messages", {"content-length": "100000"}), [b"x"])
    assert status == 413
    assert body["type"] == "error"
    assert body["error"]["type"] == "request_too_large"


def test_streamed_body_over_the_limit_is_refused_while_it_arrives() -> None:
    guard = BodyLimit(echo_app, max_bytes=LIMIT)
    chunks = [b"x" * 40, b"x" * 40, b"x" * 40]
    with pytest.raises(PayloadTooLarge) as caught:
        _call(guard, _scope("/v1/chat/completions"), chunks)
    assert caught.value.status == 413


def test_streamed_body_exactly_at_the_limit_passes() -> None:
    guard = BodyLimit(echo_app, max_bytes=LIMIT)
    status, _, body, _ = _call(guard, _scope("/v1/chat/completions"), [b"x" * 32, b"x" * 32])
    assert (status, body["received"]) == (200, LIMIT)


def test_understated_content_length_is_still_caught_while_streaming() -> None:
    guard = BodyLimit(echo_app, max_bytes=LIMIT)
    with pytest.raises(PayloadTooLarge):
        _call(guard, _scope("/v1/completions", {"content-length": "10"}), [b"x" * 50, b"x" * 50])


def test_unparseable_content_length_falls_back_to_counting() -> None:
    guard = BodyLimit(echo_app, max_bytes=LIMIT)
    status, _, _, _ = _call(guard, _scope("/v1/completions", {"content-length": "lots"}), [b"x" * 10])
    assert status == 200


def test_non_http_scopes_pass_through() -> None:
    seen: list[str] = []

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        seen.append(scope["type"])

    asyncio.run(BodyLimit(app, max_bytes=1)({"type": "lifespan"}, None, None))  # type: ignore[arg-type]
    asyncio.run(BodyLimit(app, max_bytes=1)({"type": "websocket", "path": "/x"}, None, None))  # type: ignore[arg-type]
    assert seen == ["lifespan", "websocket"]


# --- LastResort ------------------------------------------------------------------------------------------------

def _raising(error: BaseException, *, after_start: bool = False) -> Any:
    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if after_start:
            await send({"type": "http.response.start", "status": 200, "headers": []})
        raise error
    return app


def test_a_guard_raising_a_typed_error_gets_that_error_in_its_dialect() -> None:
    status, _, body, _ = _call(LastResort(_raising(StorageUnavailable("the store is gone"))), _scope("/v1/files"),
                               [b""])
    assert status == 503 and body["error"]["code"] == "storage_unavailable"


def test_a_guard_failing_otherwise_is_a_500_in_the_route_dialect() -> None:
    status, headers, body, _ = _call(LastResort(_raising(RuntimeError("boom"))), _scope("/v1/messages"), [b""])
    assert status == 500 and headers["content-type"] == "application/json"
    assert body["type"] == "error" and "see the server log" in body["error"]["message"]
    status, _, body, _ = _call(LastResort(_raising(RuntimeError("boom"))), _scope("/api/chat"), [b""])
    assert status == 500 and body == {"error": "internal error; see the server log"}


def test_after_the_response_started_the_failure_goes_on_up() -> None:
    with pytest.raises(RuntimeError):
        _call(LastResort(_raising(RuntimeError("late"), after_start=True)), _scope("/v1/files"), [b""])
