"""POST /v1/tokenize: token ids of a text, without any chat scaffold."""

from __future__ import annotations

from typing import Any

from superfluid.errors import InvalidRequest
from superfluid.handlers.context import services


async def tokenize(body: dict[str, Any]) -> dict[str, Any]:
    model = await services().models.get(body["model"])
    text = body.get("content")
    if text is None:
        text = body.get("prompt")
    if text is None:
        raise InvalidRequest("missing required field 'content'", param="content")
    tokens = model.tokenize(text, add_special=bool(body.get("add_special")))
    reply: dict[str, Any] = {"model": model.id, "tokens": tokens, "count": len(tokens)}
    if body.get("with_pieces"):
        reply["pieces"] = model.pieces(tokens)
    return reply
