"""The session API's JSON-RPC 2.0 methods (docs/web.md, "JSON-RPC methods").

Each method is a row of ``METHODS``: the JSON Schema of its params and the coroutine that answers it. One
``call`` serves ``/web/rpc`` and ``/web/ws`` alike: it checks the envelope, the params against the schema, and
renders every failure as a JSON-RPC error object, so the two transports cannot disagree.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import jsonschema

from superfluid.batches.dispatch import InProcess
from superfluid.errors import StorageFull, StorageUnavailable
from superfluid.http.observe import WEB_KEY
from superfluid.state import SessionStore
from superfluid.web.replies import Replies, RequestRefused, SessionBusy

log = logging.getLogger(__name__)

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
NOT_FOUND = -32001
BUSY = -32002
REFUSED = -32003


class RpcError(Exception):
    def __init__(self, code: int, message: str, data: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.data = data

    def as_object(self) -> dict[str, Any]:
        error: dict[str, Any] = {"code": self.code, "message": str(self)}
        if self.data is not None:
            error["data"] = self.data
        return error


@dataclass
class Caller:
    """What every method works with: the stores, the replies, and whose sessions these are."""

    sessions: SessionStore
    replies: Replies
    dispatch: InProcess
    owner: str | None


Method = Callable[[Caller, dict[str, Any]], Awaitable[Any]]

_ID = {"type": "string", "minLength": 1, "maxLength": 100}
_TITLE = {"type": "string", "maxLength": 200}


def _params(properties: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": list(required), "additionalProperties": False}


async def _found(value: Any, what: str) -> Any:
    if value is None:
        raise RpcError(NOT_FOUND, f"no such {what}")
    return value


async def session_create(caller: Caller, params: dict[str, Any]) -> Any:
    return await caller.sessions.create(owner=caller.owner, title=params.get("title") or "New chat",
                                        model=params.get("model"), system=params.get("system"))


async def session_list(caller: Caller, params: dict[str, Any]) -> Any:
    return {"sessions": await caller.sessions.list(owner=caller.owner, limit=params.get("limit", 50))}


async def session_get(caller: Caller, params: dict[str, Any]) -> Any:
    return await _found(await caller.sessions.get(params["session_id"], owner=caller.owner), "session")


async def session_rename(caller: Caller, params: dict[str, Any]) -> Any:
    renamed = await caller.sessions.rename(params["session_id"], params["title"], owner=caller.owner)
    return await _found(renamed, "session")


async def session_delete(caller: Caller, params: dict[str, Any]) -> Any:
    session_id = params["session_id"]
    running = caller.replies.running_in(session_id)
    if running is not None:
        await caller.replies.cancel(running, caller.owner)
    await _found(await caller.sessions.delete(session_id, owner=caller.owner) or None, "session")
    return {"deleted": True}


async def session_fork(caller: Caller, params: dict[str, Any]) -> Any:
    forked = await caller.sessions.fork(params["session_id"], params["message_id"], owner=caller.owner)
    return await _found(forked, "session or message")


async def message_send(caller: Caller, params: dict[str, Any]) -> Any:
    options: dict[str, Any] = {key: params[key] for key in ("max_tokens", "temperature") if key in params}
    try:
        user, reply = await caller.replies.send(caller.owner, params["session_id"], content=params.get("content"),
                                                model=params.get("model"), truncate_from=params.get("truncate_from"),
                                                options=options)
    except KeyError as exc:
        raise RpcError(NOT_FOUND, f"no such session or message: {exc.args[0]}") from None
    except SessionBusy:
        raise RpcError(BUSY, "a reply is already being written in this session; cancel it or wait") from None
    except RequestRefused as exc:
        raise RpcError(REFUSED, str(exc), {"status": exc.status, "code": exc.code}) from None
    return {"user_message": user, "message": reply}


async def message_cancel(caller: Caller, params: dict[str, Any]) -> Any:
    return {"cancelled": await caller.replies.cancel(params["message_id"], caller.owner)}


async def _api_get(caller: Caller, path: str) -> Any:
    reply = await caller.dispatch.fetch("GET", path, None, extra={WEB_KEY: caller.replies.web_key})
    if reply.status != 200:
        error = (reply.body or {}).get("error") or {}
        raise RpcError(REFUSED, str(error.get("message") or f"GET {path} answered {reply.status}"),
                       {"status": reply.status, "code": error.get("code")})
    return reply.body


async def models_list(caller: Caller, _params: dict[str, Any]) -> Any:
    listed = await _api_get(caller, "/v1/models")
    models = [{"id": m["id"], "owned_by": m.get("owned_by")} for m in listed.get("data") or ()]
    return {"models": models, "default": caller.replies.default_model()}


async def props(caller: Caller, _params: dict[str, Any]) -> Any:
    return await _api_get(caller, "/props")


METHODS: dict[str, tuple[dict[str, Any], Method]] = {
    "session.create": (_params({"title": _TITLE, "model": _ID, "system": {"type": "string"}}), session_create),
    "session.list": (_params({"limit": {"type": "integer", "minimum": 1, "maximum": 200}}), session_list),
    "session.get": (_params({"session_id": _ID}, ("session_id",)), session_get),
    "session.rename": (_params({"session_id": _ID, "title": {**_TITLE, "minLength": 1}}, ("session_id", "title")),
                       session_rename),
    "session.delete": (_params({"session_id": _ID}, ("session_id",)), session_delete),
    "session.fork": (_params({"session_id": _ID, "message_id": _ID}, ("session_id", "message_id")), session_fork),
    "message.send": (_params({"session_id": _ID, "content": {"type": "string", "minLength": 1}, "model": _ID,
                              "truncate_from": _ID, "max_tokens": {"type": "integer", "minimum": 1},
                              "temperature": {"type": "number", "minimum": 0, "maximum": 2}}, ("session_id",)),
                     message_send),
    "message.cancel": (_params({"message_id": _ID}, ("message_id",)), message_cancel),
    "models.list": (_params({}), models_list),
    "props": (_params({}), props),
}


def _check_params(name: str, params: Any, schema: dict[str, Any]) -> dict[str, Any]:
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise RpcError(INVALID_PARAMS, "params must be an object of named parameters")
    try:
        jsonschema.validate(params, schema)
    except jsonschema.ValidationError as exc:
        param = str(exc.path[0]) if exc.path else None
        if exc.validator == "additionalProperties":
            param = next((key for key in params if key not in schema["properties"]), None)
        elif exc.validator == "required":
            param = next((key for key in schema["required"] if key not in params), None)
        raise RpcError(INVALID_PARAMS, f"{name}: {exc.message}", {"param": param}) from None
    return params


async def call(caller: Caller, request: Any, extra: dict[str, tuple[dict[str, Any], Method]] | None = None
               ) -> dict[str, Any] | None:
    """The response to one JSON-RPC request object (None for a notification, which has no ``id``)."""
    request_id = request.get("id") if isinstance(request, dict) else None
    try:
        if (not isinstance(request, dict) or request.get("jsonrpc") != "2.0"
                or not isinstance(request.get("method"), str)
                or not isinstance(request_id, (str, int, type(None)))):
            raise RpcError(INVALID_REQUEST, "not a JSON-RPC 2.0 request: send {\"jsonrpc\": \"2.0\", \"method\", "
                                            "\"params\", \"id\"}")
        name = request["method"]
        row = (extra or {}).get(name) or METHODS.get(name)
        if row is None:
            raise RpcError(METHOD_NOT_FOUND, f"unknown method '{name}'")
        schema, method = row
        result = await method(caller, _check_params(name, request.get("params"), schema))
    except RpcError as exc:
        return {"jsonrpc": "2.0", "id": request_id, "error": exc.as_object()}
    except (StorageFull, StorageUnavailable) as exc:
        return {"jsonrpc": "2.0", "id": request_id,
                "error": {"code": INTERNAL_ERROR, "message": str(exc), "data": {"code": exc.code}}}
    except Exception:
        log.exception("web method %s failed", request.get("method"))
        return {"jsonrpc": "2.0", "id": request_id,
                "error": {"code": INTERNAL_ERROR, "message": "internal error; see the server log"}}
    if "id" not in request:
        return None
    return {"jsonrpc": "2.0", "id": request_id, "result": result}
