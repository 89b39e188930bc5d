"""ASGI guards that run before routing: the request body limit and API-key authentication."""

from __future__ import annotations

import hmac
import json

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from superfluid.errors import AuthenticationFailed, PayloadTooLarge, SuperfluidError
from superfluid.http.dialect import Dialect, error_body

# Routes a client may call without a key.
_OPEN_PATHS = frozenset({"/health", "/"})


async def send_error(scope: Scope, send: Send, error: SuperfluidError) -> None:
    body = json.dumps(error_body(Dialect.for_path(scope.get("path", "")), error)).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    headers += [(k.encode(), v.encode()) for k, v in error.headers.items()]
    await send({"type": "http.response.start", "status": error.status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def _too_large(limit: int) -> PayloadTooLarge:
    return PayloadTooLarge(f"request body is larger than the {limit // (1024 * 1024)} MiB limit")


class BodyLimit:
    """Refuse bodies over the limit: by Content-Length before reading, else while they stream in."""

    def __init__(self, app: ASGIApp, *, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    declared = 0
                if declared > self.max_bytes:
                    await send_error(scope, send, _too_large(self.max_bytes))
                    return
        seen = 0

        async def counting_receive() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    raise _too_large(self.max_bytes)
            return message

        await self.app(scope, counting_receive, send)


class ApiKeyGuard:
    """With --api-key, every route but /health (and Ollama's root) needs the key.

    The key is read from ``Authorization: Bearer <key>`` or ``X-Api-Key: <key>``.
    """

    def __init__(self, app: ASGIApp, *, api_key: str | None) -> None:
        self.app = app
        self.api_key = api_key.encode() if api_key else None

    def _presented(self, scope: Scope) -> bytes | None:
        for name, value in scope.get("headers", ()):
            if name == b"authorization" and value[:7].lower() == b"bearer ":
                return bytes(value[7:].strip())
            if name == b"x-api-key":
                return bytes(value.strip())
        return None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            self.api_key is None
            or scope["type"] != "http"
            or scope.get("path") in _OPEN_PATHS
            or scope.get("method") == "OPTIONS"
        ):
            await self.app(scope, receive, send)
            return
        presented = self._presented(scope)
        if presented is None or not hmac.compare_digest(presented, self.api_key):
            reason = "missing API key" if presented is None else "invalid API key"
            await send_error(scope, send, AuthenticationFailed(f"{reason}: send Authorization: Bearer <key>"))
            return
        await self.app(scope, receive, send)
