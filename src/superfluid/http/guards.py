"""ASGI guards that run before routing: the request body limit and Ollama's JSON bodies (keys and limits are in
access.py), ``send_error``, how every guard answers, and ``LastResort``, which answers for a guard that failed."""

from __future__ import annotations

import json
import logging

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from superfluid.errors import EngineFailure, PayloadTooLarge, SuperfluidError
from superfluid.http.dialect import Dialect, error_body
from superfluid.http.observe import note_error

log = logging.getLogger(__name__)


async def send_error(scope: Scope, send: Send, error: SuperfluidError) -> None:
    note_error(scope, error)
    body = json.dumps(error_body(Dialect.for_path(scope.get("path", "")), error)).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    headers += [(k.encode(), v.encode()) for k, v in error.headers.items()]
    await send({"type": "http.response.start", "status": error.status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def _too_large(limit: int) -> PayloadTooLarge:
    return PayloadTooLarge(f"request body is larger than the limit of {limit:,} bytes ({limit / 2**20:g} MiB)")


class BodyLimit:
    """Refuse bodies over the limit: by Content-Length before reading, else while they stream in.

    A chunked body (no Content-Length) is read here, within the limit, and handed on with its length set,
    so the validators downstream see it like any other body.
    """

    def __init__(self, app: ASGIApp, *, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers", ()))
        if b"content-length" in headers:
            try:
                declared = int(headers[b"content-length"])
            except ValueError:
                declared = 0
            if declared > self.max_bytes:
                await send_error(scope, send, _too_large(self.max_bytes))
                return
        if b"content-length" in headers or b"transfer-encoding" not in headers:
            await self.app(scope, self._counting(receive), send)
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client left before finishing its body
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                await send_error(scope, send, _too_large(self.max_bytes))
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        scope = dict(scope)
        scope["headers"] = [(k, v) for k, v in scope.get("headers", ()) if k != b"transfer-encoding"]
        scope["headers"].append((b"content-length", str(len(body)).encode()))
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    def _counting(self, receive: Receive) -> Receive:
        """Defence in depth: a body that outgrows the limit anyway raises as it arrives."""
        seen = 0

        async def counting_receive() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    raise _too_large(self.max_bytes)
            return message

        return counting_receive


class NewlinesInPaths:
    """Routing matches the whole path with a pattern whose ``.`` stops at a newline, so a path holding an encoded
    newline (``/api/blobs/sha256%0A00``) found no route at all and answered 404. Such a path is routed with its
    newlines encoded again: every route answers its own status whatever its path parameters hold."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and "\n" in scope.get("path", ""):
            scope = {**scope, "path": scope["path"].replace("\n", "%0A")}
        await self.app(scope, receive, send)


class OllamaBodiesAreJson:
    """Ollama reads every request body as JSON whatever its Content-Type (``curl -d`` sends a form type);
    so does superfluid under ``/api/``, by telling the validators downstream that it is JSON."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope.get("path", "").startswith("/api/") and scope.get("method") == "POST":
            headers = [(k, v) for k, v in scope.get("headers", ()) if k != b"content-type"]
            scope = {**scope, "headers": [*headers, (b"content-type", b"application/json")]}
        await self.app(scope, receive, send)


class LastResort:
    """The guards' own failures as the dialect's error: a typed error one of them raised (a store that cannot be
    read while checking a quota, say) gets its status and body; anything else is logged and becomes a 500 in the
    route's dialect. Without it such an exception would reach Starlette's outermost handler, which answers plain
    text. Once a response has started, the exception goes on up: there is no status left to change."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracked(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, tracked)
        except SuperfluidError as exc:
            if started:
                raise
            await send_error(scope, send, exc)
        except Exception as exc:
            if started:
                raise
            log.exception("unhandled error on %s %s", scope.get("method"), scope.get("path"), exc_info=exc)
            await send_error(scope, send, EngineFailure("internal error; see the server log"))
