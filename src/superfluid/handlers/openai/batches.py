"""/v1/batches: create, list, retrieve and cancel batches; the work itself is batches/runner.py's.

Under API keys a batch belongs to the key that created it (its lines run as that key): any other key gets the
404 an unknown id gets.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.responses import JSONResponse, Response

from superfluid.batches.runner import MAX_WAITING
from superfluid.errors import BatchNotCancellable, InvalidRequest, NotFound
from superfluid.handlers.context import key_id, now, request_body, services
from superfluid.settings import parse_duration
from superfluid.state.batches import batch_object, new_batch_id

DEFAULT_ENDPOINT = "/v1/chat/completions"
DEFAULT_WINDOW = "24h"


def _unknown(batch_id: str) -> NotFound:
    return NotFound(f"no batch '{batch_id}'", param="batch_id")


def window_seconds(text: str) -> int:
    """completion_window: OpenAI's ``24h``, or any duration such as ``90m`` or ``2d``."""
    try:
        seconds = int(parse_duration(text))
    except ValueError as exc:
        raise InvalidRequest(f"completion_window: {exc}", param="completion_window") from None
    if seconds <= 0:
        raise InvalidRequest("completion_window must be longer than 0", param="completion_window")
    return seconds


async def create() -> Response:
    body = request_body()
    window = str(body.get("completion_window") or DEFAULT_WINDOW)
    created = now()
    metadata = body.get("metadata")
    row = {"id": new_batch_id(), "owner": key_id(), "created_at": created, "status": "validating",
           "endpoint": body.get("endpoint") or DEFAULT_ENDPOINT, "input_file_id": body["input_file_id"],
           "completion_window": window, "expires_at": created + window_seconds(window),
           "metadata": None if metadata is None else json.dumps(metadata), "total": 0, "completed": 0,
           "failed": 0, "input_tokens": 0, "output_tokens": 0}
    svc = services()
    stored = await svc.state.batches.create(row, max_waiting=MAX_WAITING)
    if svc.batches is not None:
        svc.batches.submit(stored["id"])
    return JSONResponse(batch_object(stored))


async def retrieve(batch_id: str) -> Response:
    row = await services().state.batches.get(batch_id, owner=key_id())
    if row is None:
        raise _unknown(batch_id)
    return JSONResponse(batch_object(row))


async def list_batches(limit: int = 20, after: str | None = None, **_ignored: Any) -> Response:
    rows, has_more = await services().state.batches.page(owner=key_id(), limit=limit, after=after)
    data = [batch_object(r) for r in rows]
    return JSONResponse({"object": "list", "data": data, "first_id": data[0]["id"] if data else None,
                         "last_id": data[-1]["id"] if data else None, "has_more": has_more})


async def cancel(batch_id: str) -> Response:
    """Stop a batch between lines: ``cancelling`` now, ``cancelled`` once the lines in flight finish. Cancelling
    a batch that is already cancelling or cancelled returns it as it is; one that ended otherwise is a 409."""
    svc = services()
    store = svc.state.batches
    row = await store.get(batch_id, owner=key_id())
    if row is None:
        raise _unknown(batch_id)
    if row["status"] in ("cancelling", "cancelled"):
        return JSONResponse(batch_object(row))
    changed = await store.update(batch_id, when_status=("validating", "in_progress"), status="cancelling",
                                 cancelling_at=now())
    if changed is None:
        latest = await store.get(batch_id, owner=key_id()) or row
        raise BatchNotCancellable(f"batch '{batch_id}' is {latest['status']}; only a batch that is validating or "
                                  "in progress can be cancelled", param="batch_id")
    if svc.batches is not None:
        svc.batches.cancel(batch_id)
    return JSONResponse(batch_object(changed))
