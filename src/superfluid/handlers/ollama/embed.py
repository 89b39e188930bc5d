"""POST /api/embed (normalized vectors) and POST /api/embeddings (the legacy single prompt, unnormalized).

An empty input preloads the model, as in Ollama. /api/embed truncates an input over the window unless
``truncate`` is false; /api/embeddings always truncates (it has no switch). ``dimensions`` keeps the first
components and normalizes again.
"""

from __future__ import annotations

import time
from typing import Any

from superfluid.engine import EmbeddingModel, normalize_vector, truncate_vector
from superfluid.handlers.context import request_body, services
from superfluid.handlers.ollama import params
from superfluid.handlers.openai.embeddings import tokenized


async def _model(body: dict[str, Any]) -> EmbeddingModel:
    options = params.read_options(body.get("options"))
    svc = services()
    model_id = params.model_id(body["model"], svc.models.sources)
    model = await svc.models.embedder(model_id)
    options.check_window(model_id, model.n_ctx)
    return model


async def embed() -> dict[str, Any]:
    body = request_body()
    params.refuse_unknown(body, params.EMBED_FIELDS)
    started = time.monotonic_ns()
    model = await _model(body)
    raw = body["input"]
    texts = [raw] if isinstance(raw, str) else list(raw)
    if texts in ([], [""]):
        return {"model": model.id, "embeddings": [], "total_duration": time.monotonic_ns() - started,
                "prompt_eval_count": 0}
    truncate = body.get("truncate")
    tokens = await tokenized(model, texts, truncate=truncate is None or bool(truncate))
    pooled = await model.embed(tokens)
    dimensions = body.get("dimensions")
    out = [normalize_vector(truncate_vector(normalize_vector(v), dimensions)).tolist() for v in pooled]
    return {"model": model.id, "embeddings": out, "total_duration": time.monotonic_ns() - started,
            "prompt_eval_count": sum(len(t) for t in tokens)}


async def embeddings() -> dict[str, Any]:
    body = request_body()
    params.refuse_unknown(body, params.EMBEDDINGS_FIELDS)
    model = await _model(body)
    prompt = body.get("prompt") or ""
    if not prompt:
        return {"embedding": []}
    tokens = await tokenized(model, [prompt], truncate=True, param="prompt", indexed=False)
    (pooled,) = await model.embed(tokens)
    return {"embedding": pooled.tolist()}
