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
from collections.abc import AsyncGenerator
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
    """Sends requests to ``app`` in process: whole JSON replies (``post`` for batch lines, ``fetch``) or a reply's
    body as it is written (``stream``, for the web listener's sessions, web/replies.py)."""

    def __init__(self, app: ASGIApp, lifespan_state: dict[str, Any]) -> None:
        self._app = app
        self._state = lifespan_state

    def _scope(self, method: str, path: str, payload: bytes, headers: list[tuple[bytes, bytes]],
               extra: dict[str, Any]) -> dict[str, Any]:
        client = "batch" if BATCH_OWNER in extra else "web"
        return {
            "type": "http", "asgi": {"version": "3.0", "spec_version": "2.3"}, "http_version": "1.1",
            "method": method, "scheme": "http", "path": path, "raw_path": path.encode(), "root_path": "",
            "query_string": b"", "client": (client, 0), "server": (client, 0),
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode()),
                        *headers],
            "state": dict(self._state), **extra,
        }

    async def post(self, path: str, body: dict[str, Any], *, owner: str | None) -> Reply:
        """The route's reply to ``body``, as a batch line of ``owner``'s; cancelling this call tells the route its
        client left."""
        return await self.fetch("POST", path, body, headers=[(b"x-superfluid-qos", BACKGROUND)],
                                extra={BATCH_OWNER: owner})

    async def fetch(self, method: str, path: str, body: dict[str, Any] | None, *,
                    headers: list[tuple[bytes, bytes]] | None = None, extra: dict[str, Any] | None = None) -> Reply:
        """The whole reply: its status and its JSON body (``stream``'s arguments)."""
        status = 500
        chunks: list[bytes] = []
        async for part in self.stream(method, path, body, headers=headers, extra=extra):
            if isinstance(part, int):
                status = part
            else:
                chunks.append(part)
        try:
            parsed = json.loads(b"".join(chunks))
        except ValueError:
            parsed = None
        return Reply(status, parsed)

    async def stream(self, method: str, path: str, body: dict[str, Any] | None, *,
                     headers: list[tuple[bytes, bytes]] | None = None,
                     extra: dict[str, Any] | None = None) -> AsyncGenerator[int | bytes, None]:
        """The reply as it is sent: its status (an int) first, then each piece of its body (bytes). Leaving the
        iteration early tells the route its client left. ``extra`` goes on the scope (in-process markers)."""
        payload = b"" if body is None else json.dumps(body, ensure_ascii=False).encode()
        scope = self._scope(method, path, payload, headers or [], extra or {})
        sent = False
        gone = asyncio.Event()
        parts: asyncio.Queue[int | bytes | None] = asyncio.Queue()

        async def receive() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": payload, "more_body": False}
            await gone.wait()
            return {"type": "http.disconnect"}

        async def send(message: Message) -> None:
            if message["type"] == "http.response.start":
                parts.put_nowait(int(message["status"]))
            elif message["type"] == "http.response.body" and message.get("body"):
                parts.put_nowait(bytes(message["body"]))

        async def run() -> None:
            try:
                await self._app(scope, receive, send)
            finally:
                parts.put_nowait(None)

        task = asyncio.create_task(run())
        try:
            while (part := await parts.get()) is not None:
                yield part
            await task  # the route's own failure, if it had one
        finally:
            gone.set()
            if not task.done():
                try:
                    await asyncio.wait_for(asyncio.shield(task), timeout=30)
                except (TimeoutError, asyncio.CancelledError):
                    task.cancel()
