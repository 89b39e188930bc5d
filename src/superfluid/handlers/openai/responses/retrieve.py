"""GET and DELETE /v1/responses/{response_id}, GET /v1/responses/{response_id}/input_items: stored responses.

Under API keys a stored response belongs to the key that created it: any other key gets the 404 an unknown id
gets."""

from __future__ import annotations

from typing import Any, Literal

from starlette.responses import JSONResponse, Response

from superfluid.errors import NotFound, UnsupportedParameter
from superfluid.handlers.context import key_id, services
from superfluid.handlers.openai.responses import shapes


def _unknown(response_id: str) -> NotFound:
    return NotFound(f"no stored response '{response_id}': it is unknown, deleted, expired, or was created with "
                    "store: false", param="response_id")


async def get_response(response_id: str, stream: bool | None = None, **_ignored: Any) -> Response:
    if stream:
        raise UnsupportedParameter("a stored response is returned whole; streaming it again is not served",
                                   param="stream")
    text = await services().state.responses.get(response_id, owner=key_id())
    if text is None:
        raise _unknown(response_id)
    return Response(text, media_type="application/json")


async def delete_response(response_id: str) -> Response:
    if not await services().state.responses.delete(response_id, owner=key_id()):
        raise _unknown(response_id)
    return JSONResponse(shapes.deleted(response_id))


async def list_input_items(response_id: str, limit: int = 20, order: Literal["asc", "desc"] = "desc",
                           after: str | None = None, **_ignored: Any) -> Response:
    page = await services().state.responses.input_items(response_id, limit=limit, order=order, after=after,
                                                        owner=key_id())
    if page is None:
        raise _unknown(response_id)
    return JSONResponse(shapes.item_list(page.items, page.has_more))
