"""POST /v1/tokenize: token ids of a text, without any chat scaffold."""

from __future__ import annotations

from typing import Any

from connexion import context

from superfluid.engine import LIGHT_PROMPT_CHARS
from superfluid.errors import InvalidRequest
from superfluid.handlers.context import request_body, services
from superfluid.http.offload import offload_of


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

    pool = offload_of(context.scope)
    return await pool.run(reply) if pool is not None and len(text) > LIGHT_PROMPT_CHARS else reply()
