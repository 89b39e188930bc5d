"""Driving an ASGI app without a server: its lifespan, and one request at a time as a stream of parts.

A fleet replica runs the very app `superfluid serve` runs (app.py), so every route, validation and error shape
is the same; this module is the small server that feeds it a request forwarded by the head and hands back the
response as picklable parts: one ``ResponseHead``, then body bytes as the app sends them (SSE frames and
keep-alives unchanged). When the consumer stops listening (the client went away, or the head gave up), the app
is told ``http.disconnect`` and then cancelled, which cancels the generation as a vanished direct client would.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from starlette.types import ASGIApp, Message

DISCONNECT_GRACE_S = 5.0
"""How long an app may take to wind a request down after the disconnect before it is cancelled."""


@dataclass(frozen=True)
class ForwardedRequest:
    """What the head forwards of an HTTP request (picklable, for Ray)."""

    method: str
    path: str
    query_string: bytes = b""
    headers: tuple[tuple[bytes, bytes], ...] = ()
    body: bytes = b""
    client: tuple[str, int] | None = None


@dataclass(frozen=True)
class ResponseHead:
    status: int
    headers: tuple[tuple[bytes, bytes], ...] = field(default_factory=tuple)

    def header(self, name: bytes) -> bytes | None:
        return next((value for key, value in self.headers if key.lower() == name), None)


class Lifespan:
    """Runs the app's lifespan: ``start`` returns once it started (raising what start-up raised), ``stop`` ends it."""

    def __init__(self, app: ASGIApp) -> None:
        self._app = app
        self.state: dict[str, Any] = {}
        self._inbox: asyncio.Queue[Message] = asyncio.Queue()
        self._outbox: asyncio.Queue[Message] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None

    async def _send(self, message: Message) -> None:
        await self._outbox.put(message)

    async def start(self) -> None:
        scope = {"type": "lifespan", "asgi": {"version": "3.0"}, "state": self.state}

        async def run() -> None:
            await self._app(scope, self._inbox.get, self._send)

        self._task = asyncio.create_task(run())
        await self._inbox.put({"type": "lifespan.startup"})
        reply = await self._next()
        if reply["type"] != "lifespan.startup.complete":
            raise RuntimeError(f"the app did not start: {reply.get('message', reply['type'])}")

    async def _next(self) -> Message:
        assert self._task is not None
        getter = asyncio.ensure_future(self._outbox.get())
        done, _ = await asyncio.wait({getter, self._task}, return_when=asyncio.FIRST_COMPLETED)
        if getter in done:
            return getter.result()
        getter.cancel()
        self._task.result()  # raises what start-up raised
        raise RuntimeError("the app's lifespan ended before it answered")

    async def stop(self) -> None:
        if self._task is None or self._task.done():
            return
        await self._inbox.put({"type": "lifespan.shutdown"})
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self._next(), timeout=30)


def _scope(request: ForwardedRequest, state: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "http", "asgi": {"version": "3.0", "spec_version": "2.3"}, "http_version": "1.1",
        "method": request.method, "scheme": "http", "path": request.path, "raw_path": request.path.encode(),
        "root_path": "", "query_string": request.query_string, "headers": list(request.headers),
        "client": request.client, "server": ("fleet-replica", 0), "state": dict(state),
    }


async def serve_request(app: ASGIApp, request: ForwardedRequest,
                        state: dict[str, Any]) -> AsyncIterator[ResponseHead | bytes]:
    """Run one request through ``app``: its ``ResponseHead``, then its body bytes as they come."""
    outbox: asyncio.Queue[Message | None] = asyncio.Queue()
    gone = asyncio.Event()
    delivered = False

    async def receive() -> Message:
        nonlocal delivered
        if not delivered:
            delivered = True
            return {"type": "http.request", "body": request.body, "more_body": False}
        await gone.wait()
        return {"type": "http.disconnect"}

    async def send(message: Message) -> None:
        await outbox.put(message)

    async def run() -> None:
        await app(_scope(request, state), receive, send)

    task = asyncio.create_task(run())
    task.add_done_callback(lambda _: outbox.put_nowait(None))
    try:
        while (message := await outbox.get()) is not None:
            if message["type"] == "http.response.start":
                yield ResponseHead(int(message["status"]), tuple(
                    (bytes(k), bytes(v)) for k, v in message.get("headers", ())))
            elif message["type"] == "http.response.body":
                if message.get("body"):
                    yield bytes(message["body"])
                if not message.get("more_body", False):
                    return
        task.result()  # the app ended without finishing its response: raise what it raised
        raise RuntimeError("the app ended without a complete response")
    finally:
        gone.set()
        if not task.done():
            with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError, Exception):
                await asyncio.wait_for(asyncio.shield(task), DISCONNECT_GRACE_S)
            task.cancel()
