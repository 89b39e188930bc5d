"""The web listener: a second aiohttp server on the API server's event loop (docs/web.md).

It shares the process's models, scheduler and state store with the API listener, and reaches the models only
through the API app in process (web/replies.py), so both listeners answer alike. Its routes are few and fixed:
the page and its assets, login, health, ``/web/rpc``, ``/web/stream`` and ``/web/ws``. Anything else is a 404,
``/v1/*`` and ``/api/*`` included. Why aiohttp rather than a second Connexion app: the session API is JSON-RPC
over one POST route and a WebSocket, which an OpenAPI document describes poorly and Connexion does not carry
(docs/architecture.md, "The web listener").
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import sys
from pathlib import Path
from typing import Any

from aiohttp import WSMsgType, web

from superfluid.batches.dispatch import InProcess
from superfluid.state import SessionStore
from superfluid.web import rpc
from superfluid.web.address import WebAddress
from superfluid.web.guard import WebGuard, refusal, secure_headers
from superfluid.web.replies import Replies

log = logging.getLogger(__name__)

PAGE_DIR = Path(__file__).resolve().parent / "page"
CONTENT_TYPES = {".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".svg": "image/svg+xml",
                 ".png": "image/png", ".ico": "image/x-icon", ".txt": "text/plain"}
MAX_BODY_BYTES = 1024 * 1024


def _sse(event: dict[str, Any]) -> bytes:
    data = json.dumps({k: v for k, v in event.items() if k != "type"}, ensure_ascii=False)
    return f"event: {event['type']}\ndata: {data}\n\n".encode()


class WebListener:
    """Builds the aiohttp app; ``start`` binds it, ``stop`` stops its replies and closes it."""

    def __init__(self, address: WebAddress, sessions: SessionStore, dispatch: InProcess, *,
                 web_key: str | None, default_model: Any) -> None:
        self.address = address
        self.guard = WebGuard(address)
        self.replies = Replies(sessions, dispatch, web_key=web_key, default_model=default_model)
        self._sessions = sessions
        self._dispatch = dispatch
        self._runner: web.AppRunner | None = None
        self._sockets: set[web.WebSocketResponse] = set()
        self.port = address.port

    def app(self) -> web.Application:
        app = web.Application(middlewares=[self.guard.middleware], client_max_size=MAX_BODY_BYTES)
        app.on_response_prepare.append(secure_headers)
        app.router.add_get("/", self._page)
        app.router.add_get("/assets/{name}", self._asset)
        app.router.add_get("/web/health", self._health)
        app.router.add_post("/web/login", self._login)
        app.router.add_post("/web/logout", self._logout)
        app.router.add_post("/web/rpc", self._rpc)
        app.router.add_post("/web/stream", self._stream)
        app.router.add_get("/web/ws", self._ws)
        return app

    async def start(self) -> str:
        """Bind the listener; returns the address to open, with the token in its fragment."""
        self._runner = web.AppRunner(self.app(), access_log=None, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.address.host, self.address.port, shutdown_timeout=1)
        await site.start()
        bound = self._runner.addresses  # the bound port, when --web asked for port 0
        if bound:
            self.port = int(bound[0][1])
            self.guard.bound(self.port)
        return f"{self.address.url(self.port)}#token={self.guard.token}"

    async def stop(self) -> None:
        await self.replies.close()
        for socket in list(self._sockets):
            with contextlib.suppress(Exception):
                await socket.close()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    def _caller(self) -> rpc.Caller:
        return rpc.Caller(self._sessions, self.replies, self._dispatch, self.replies.web_key)

    # ---- the page ----

    async def _page(self, _request: web.Request) -> web.StreamResponse:
        return web.FileResponse(PAGE_DIR / "index.html", headers={"Content-Type": "text/html; charset=utf-8"})

    async def _asset(self, request: web.Request) -> web.StreamResponse:
        name = request.match_info["name"]
        path = PAGE_DIR / name
        if "/" in name or name.startswith(".") or not path.is_file() or path.suffix not in CONTENT_TYPES:
            return refusal(404, "not_found", f"no asset '{name}'")
        return web.FileResponse(path, headers={"Content-Type": f"{CONTENT_TYPES[path.suffix]}; charset=utf-8"})

    async def _health(self, _request: web.Request) -> web.StreamResponse:
        return web.json_response({"status": "ok"})

    # ---- login ----

    async def _login(self, request: web.Request) -> web.StreamResponse:
        body = await _json_body(request)
        token = body.get("token") if isinstance(body, dict) else None
        if not isinstance(token, str) or not self.guard.token_matches(token):
            return refusal(401, "unauthorized", "wrong token: use the one printed when the server started")
        response = web.Response(status=204)
        self.guard.log_in(response)
        return response

    async def _logout(self, _request: web.Request) -> web.StreamResponse:
        response = web.Response(status=204)
        self.guard.log_out(response)
        return response

    # ---- the session API ----

    async def _rpc(self, request: web.Request) -> web.StreamResponse:
        try:
            body = json.loads(await request.read())
        except ValueError:
            return web.json_response({"jsonrpc": "2.0", "id": None,
                                      "error": {"code": rpc.PARSE_ERROR, "message": "the body is not JSON"}})
        caller = self._caller()
        if isinstance(body, list):
            if not body:
                return web.json_response({"jsonrpc": "2.0", "id": None, "error": {
                    "code": rpc.INVALID_REQUEST, "message": "an empty batch"}})
            answers = [await rpc.call(caller, item) for item in body]
            replies = [answer for answer in answers if answer is not None]
            return web.json_response(replies) if replies else web.Response(status=204)
        answer = await rpc.call(caller, body)
        return web.json_response(answer) if answer is not None else web.Response(status=204)

    async def _stream(self, request: web.Request) -> web.StreamResponse:
        body = await _json_body(request)
        if not isinstance(body, dict):
            return refusal(400, "invalid_request", "send a JSON object: {\"message_id\"} or message.send's params")
        caller = self._caller()
        message_id = body.get("message_id")
        if not isinstance(message_id, str):
            answer = await rpc.call(caller, {"jsonrpc": "2.0", "id": 0, "method": "message.send", "params": body})
            assert answer is not None
            if "error" in answer:
                error = answer["error"]
                status = 404 if error["code"] == rpc.NOT_FOUND else 409 if error["code"] == rpc.BUSY else (
                    (error.get("data") or {}).get("status") or 400)
                return web.json_response({"error": error}, status=int(status))
            message_id = answer["result"]["message"]["id"]
        events = self.replies.follow(message_id, caller.owner)
        try:
            first = await anext(events)
        except KeyError:
            return refusal(404, "not_found", f"no message '{message_id}'")
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream; charset=utf-8",
                                               "Cache-Control": "no-cache"})
        await response.prepare(request)
        async with contextlib.aclosing(events):
            await response.write(_sse(first))
            async for event in events:
                await response.write(_sse(event))
        return response

    async def _ws(self, request: web.Request) -> web.StreamResponse:
        socket = web.WebSocketResponse(heartbeat=30, max_msg_size=MAX_BODY_BYTES)
        await socket.prepare(request)
        self._sockets.add(socket)
        session = _Socket(socket, self._caller())
        try:
            async for message in socket:
                if message.type == WSMsgType.TEXT:
                    await session.receive(message.data)
                elif message.type == WSMsgType.BINARY:
                    await session.send({"jsonrpc": "2.0", "id": None, "error": {
                        "code": rpc.INVALID_REQUEST, "message": "send JSON-RPC requests as text frames"}})
        finally:
            self._sockets.discard(socket)
            await session.close()
        return socket


class _Socket:
    """One WebSocket's calls and the replies it follows."""

    def __init__(self, socket: web.WebSocketResponse, caller: rpc.Caller) -> None:
        self.socket = socket
        self.caller = caller
        self._lock = asyncio.Lock()
        self._tasks: set[asyncio.Task[None]] = set()
        self._following: set[str] = set()
        subscribe = ({"type": "object", "properties": {"message_id": {"type": "string", "minLength": 1}},
                      "required": ["message_id"], "additionalProperties": False}, self._subscribe)
        self._extra: dict[str, tuple[dict[str, Any], rpc.Method]] = {"message.subscribe": subscribe}

    async def send(self, payload: Any) -> None:
        async with self._lock:
            if not self.socket.closed:
                await self.socket.send_str(json.dumps(payload, ensure_ascii=False))

    async def receive(self, text: str) -> None:
        try:
            request = json.loads(text)
        except ValueError:
            await self.send({"jsonrpc": "2.0", "id": None,
                             "error": {"code": rpc.PARSE_ERROR, "message": "the frame is not JSON"}})
            return
        # Each call runs on its own, so a slow one (message.send waits for admission) holds up no other.
        task = asyncio.create_task(self._answer(request))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _answer(self, request: Any) -> None:
        answer = await rpc.call(self.caller, request, self._extra)
        if answer is not None:
            await self.send(answer)
        if (answer is not None and isinstance(request, dict) and request.get("method") == "message.send"
                and "result" in answer):
            self._follow(answer["result"]["message"]["id"])

    async def _subscribe(self, caller: rpc.Caller, params: dict[str, Any]) -> Any:
        message_id = params["message_id"]
        if (not caller.replies.is_live(message_id, caller.owner)
                and await caller.sessions.message(message_id, owner=caller.owner) is None):
            raise rpc.RpcError(rpc.NOT_FOUND, f"no such message: {message_id}")
        self._follow(message_id)
        return {"subscribed": True}

    def _follow(self, message_id: str) -> None:
        if message_id in self._following:
            return
        self._following.add(message_id)
        task = asyncio.create_task(self._forward(message_id))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _forward(self, message_id: str) -> None:
        try:
            async with contextlib.aclosing(self.caller.replies.follow(message_id, self.caller.owner)) as events:
                async for event in events:
                    await self.send({"jsonrpc": "2.0", "method": "message.event", "params": event})
        except KeyError:
            return
        finally:
            self._following.discard(message_id)

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task


async def _json_body(request: web.Request) -> Any:
    try:
        return json.loads(await request.read())
    except ValueError:
        return None


def announce(url: str) -> None:
    """The one line that tells the operator where the page is (its token is in the fragment)."""
    print(f"superfluid: web page at {url} (the token is good until this server stops)", file=sys.stderr,
          flush=True)
