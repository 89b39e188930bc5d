"""POST /v1/tokenize: token ids of a text, without any chat scaffold."""

from __future__ import annotations

from typing import Any

from superfluid.errors import InvalidRequest
from superfluid.handlers.context import off_loop, request_body, services


async def tokenize() -> dict[str, Any]:
    body = request_body()
    model = await services().models.get(body["model"])
    text = body.get("content")
    if text is None:
        text = body.get("prompt")
    if text is None:
        raise InvalidRequest("missing required field 'content'", param="content")
    add_special, with_pieces = bool(body.get("add_special")), bool(body.get("with_pieces"))

    def reply() -> dict[str, Any]:
        tokens = model.tokenize(text, add_special=add_special)
        out: dict[str, Any] = {"model": model.id, "tokens": tokens, "count": len(tokens)}
        if with_pieces:
            out["pieces"] = model.pieces(tokens)
        return out

    return await off_loop(reply, chars=len(text))
