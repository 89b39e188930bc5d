"""--nonstream-keepalive: 200 at once, spaces while the work runs, then the JSON (or the dialect's error)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from starlette.types import Message

from superfluid.errors import ContextLengthExceeded
from superfluid.http.keepalive import PaddedJSONResponse


def _drive(response: PaddedJSONResponse, path: str = "/v1/chat/completions",
           disconnect_after_s: float | None = None) -> list[Message]:
    sent: list[Message] = []

    async def receive() -> Message:
        if disconnect_after_s is None:
            await asyncio.sleep(3600)
        await asyncio.sleep(disconnect_after_s or 0)
        return {"type": "http.disconnect"}

    async def send(message: Message) -> None:
        sent.append(message)

    asyncio.run(response({"type": "http", "path": path, "headers": []}, receive, send))  # type: ignore[arg-type]
    return sent


def _body(sent: list[Message]) -> bytes:
    return b"".join(m.get("body", b"") for m in sent[1:])


def test_spaces_until_the_json_and_no_content_length() -> None:
    async def work() -> dict[str, Any]:
        await asyncio.sleep(0.35)
        return {"ok": True}

    sent = _drive(PaddedJSONResponse(work(), interval_s=0.1, headers={"x-superfluid-warm": "3"}))
    head = {k.decode(): v.decode() for k, v in sent[0]["headers"]}
    assert sent[0]["status"] == 200
    assert head["x-superfluid-keepalive"] == "whitespace" and head["x-superfluid-warm"] == "3"
    assert "content-length" not in head
    body = _body(sent)
    assert body.startswith(b"   ") and set(body[:body.index(b"{")]) == {ord(" ")}
    assert json.loads(body) == {"ok": True}
    assert sent[-1].get("more_body") is not True


def test_an_error_after_the_commit_is_the_dialects_error_body() -> None:
    async def failing() -> dict[str, Any]:
        await asyncio.sleep(0.15)
        raise ContextLengthExceeded("too long", param="messages")

    openai = json.loads(_body(_drive(PaddedJSONResponse(failing(), interval_s=0.05))))
    assert openai["error"]["code"] == "context_length_exceeded"
    anthropic = json.loads(_body(_drive(PaddedJSONResponse(failing(), interval_s=0.05), path="/v1/messages")))
    assert anthropic["type"] == "error" and anthropic["error"]["type"] == "invalid_request_error"
    assert anthropic["error"]["message"].endswith("too long")


def test_a_client_that_leaves_stops_the_work() -> None:
    abandoned: list[bool] = []
    finished: list[bool] = []

    async def slow() -> dict[str, Any]:
        await asyncio.sleep(5)
        finished.append(True)
        return {}

    sent = _drive(PaddedJSONResponse(slow(), interval_s=0.05, on_abandon=lambda: abandoned.append(True)),
                  disconnect_after_s=0.2)
    assert abandoned == [True] and finished == []
    assert all(m.get("body", b" ").strip() == b"" for m in sent[1:])
