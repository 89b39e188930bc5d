"""POST /v1/embeddings: vectors as the engine pools them (not normalized), as floats or base64."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from superfluid.engine import EmbeddingModel, Vector, base64_le_f32, truncate_vector
from superfluid.errors import InvalidRequest
from superfluid.handlers.context import off_loop, request_body, services


def read_input(raw: Any) -> list[str | list[int]]:
    """OpenAI's input: a string, an array of strings, one token array, or an array of token arrays."""
    if isinstance(raw, str):
        return [raw]
    if not raw:
        raise InvalidRequest("input is empty; send a string, an array of strings or token arrays", param="input")
    if all(isinstance(item, int) for item in raw):
        return [list(raw)]
    return [item if isinstance(item, str) else list(item) for item in raw]


async def tokenized(model: EmbeddingModel, inputs: Sequence[str | Sequence[int]], *, truncate: bool,
                    param: str = "input", indexed: bool = True) -> list[list[int]]:
    """``model.prepare`` on the preparation workers when the inputs are long (see http/offload.py), else here."""
    prepare = functools.partial(model.prepare, inputs, truncate=truncate, param=param, indexed=indexed)
    return await off_loop(prepare, chars=sum(len(item) for item in inputs))


def _data(index: int, vector: Vector, encoding: str) -> dict[str, Any]:
    embedding: Any = base64_le_f32(vector) if encoding == "base64" else vector.tolist()
    return {"object": "embedding", "index": index, "embedding": embedding}


async def create() -> dict[str, Any]:
    body = request_body()
    model = await services().models.embedder(body["model"])
    inputs: Sequence[str | list[int]] = read_input(body["input"])
    tokens = await tokenized(model, inputs, truncate=False)
    pooled = await model.embed(tokens)
    dimensions = body.get("dimensions")
    encoding = body.get("encoding_format") or "float"
    n_tokens = sum(len(t) for t in tokens)
    return {
        "object": "list",
        "data": [_data(i, truncate_vector(v, dimensions), encoding) for i, v in enumerate(pooled)],
        "model": model.id,
        "usage": {"prompt_tokens": n_tokens, "total_tokens": n_tokens},
    }
