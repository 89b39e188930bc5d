"""POST /api/embed and POST /api/embeddings: request checks and model checks for Ollama's embedding routes.

No model this server can load computes embeddings yet (the embeddings issue brings that), so once a request
is valid the answer is a 400 for a generation model. An empty input, which preloads an embedding model in
Ollama, gets the same answer: a generation model has nothing to preload for these routes.
"""

from __future__ import annotations

from typing import Any, NoReturn

from superfluid.errors import RouteNotServed, UnsupportedModel
from superfluid.handlers import ollama_params as params
from superfluid.handlers.context import services


async def _refuse(body: dict[str, Any], route: str) -> NoReturn:
    options = params.read_options(body.get("options"))
    svc = services()
    model_id = params.model_id(body["model"], svc.models.sources)
    profile = await svc.models.profile(model_id)
    options.check_window(model_id, profile.n_ctx)
    if not profile.capabilities()["workload"]["embedding"]:
        raise UnsupportedModel(f"model '{model_id}' serves no embeddings: it is a generation model", param="model")
    raise RouteNotServed(f"model '{model_id}' is an embedding model, but this server does not compute "
                         f"embeddings yet ({route})")


async def embed(body: dict[str, Any]) -> NoReturn:
    params.refuse_unknown(body, params.EMBED_FIELDS)
    await _refuse(body, "/api/embed")


async def embeddings(body: dict[str, Any]) -> NoReturn:
    params.refuse_unknown(body, params.EMBEDDINGS_FIELDS)
    await _refuse(body, "/api/embeddings")
