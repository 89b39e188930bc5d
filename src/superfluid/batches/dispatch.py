"""Running one batch line through the server's own routes, in process.

A line is an HTTP request that never touches a socket: the runner hands the app an ASGI ``http`` scope (the
lifespan's state, ``x-superfluid-qos: background``) and the line's body, and reads back the status and the JSON
the route's handler wrote. So a line gets exactly what a client sending it would: the OpenAPI document's
validation, the handler's conversion into the engine's GenerationRequest, the scheduler, and the reply body.

The scope carries ``BATCH_OWNER`` (the id of the key that created the batch; None without keys), which only
in-process code can set: http/access.py trusts it in place of a presented key, applies that key's model
allow-list, and skips the per-client rate and concurrency limits, which are for interactive callers.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import Any, Protocol

from starlette.types import ASGIApp, Message

from superfluid.http.observe import BATCH_OWNER

BACKGROUND = b"background"


@dataclass(frozen=True)
class Reply:
    status: int
    body: Any
    """The parsed JSON body (None if the route sent something else)."""


class Dispatch(Protocol):
    async def post(self, path: str, body: dict[str, Any], *, owner: str | None) -> Reply: ...


class InProcess:
    """POSTs JSON bodies to ``app`` in process."""

    def __init__(self, app: ASGIApp, lifespan_state: dict[str, Any]) -> None:
        self._app = app
        self._state = lifespan_state

    async def post(self, path: str, body: dict[str, Any], *, owner: str | None) -> Reply:
        """The route's reply to ``body``; cancelling this call tells the route its client left."""
        payload = json.dumps(body, ensure_ascii=False).encode()
        scope: dict[str, Any] = {
            "type": "http", "asgi": {"version": "3.0", "spec_version": "2.3"}, "http_version": "1.1",
            "method": "POST", "scheme": "http", "path": path, "raw_path": path.encode(), "root_path": "",
            "query_string": b"", "client": ("batch", 0), "server": ("batch", 0),
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode()),
                        (b"x-superfluid-qos", BACKGROUND)],
            "state": dict(self._state), BATCH_OWNER: owner,
        }
        sent = False
        gone = asyncio.Event()

        async def receive() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": payload, "more_body": False}
            await gone.wait()
            return {"type": "http.disconnect"}

        status = 500
        chunks: list[bytes] = []

        async def send(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            elif message["type"] == "http.response.body":
                chunks.append(bytes(message.get("body", b"")))

        try:
            await self._app(scope, receive, send)
        finally:
            gone.set()
        try:
            parsed = json.loads(b"".join(chunks))
        except ValueError:
            parsed = None
        return Reply(status, parsed)
