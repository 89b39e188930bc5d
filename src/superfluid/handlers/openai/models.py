"""GET /v1/models and GET /v1/models/{model}: every known model, loaded or not."""

from __future__ import annotations

from typing import Any

from superfluid.engine import placement_of
from superfluid.errors import EngineFailure
from superfluid.handlers.context import services

RUNTIME = "llamacpp"


def _unreadable(model_id: str, created: int, error: EngineFailure) -> dict[str, Any]:
    """A known model whose file could not be read: listed, with nothing claimed about it."""
    return {
        "id": model_id,
        "object": "model",
        "created": created,
        "owned_by": "superfluid",
        "loaded": False,
        "meta": {"n_ctx": None},
        "architecture": {"input_modalities": []},
        "runtime": RUNTIME,
        "capabilities": {
            "workload": {"generation": False, "embedding": False},
            "chat_template": False,
            "tools": False,
            "dialect": {"enable_thinking": False, "reasoning_effort": False, "reasoning_effort_levels": [],
                        "fim": False, "fim_model": None},
        },
        "error": error.message,
    }


async def describe(model_id: str) -> dict[str, Any]:
    svc = services()
    created = int(svc.started_at)
    try:
        profile = await svc.models.profile(model_id)
    except EngineFailure as exc:
        return _unreadable(svc.models.canonical(model_id), created, exc)
    served = svc.models.loaded.get(profile.id)
    placed = placement_of(served) if served is not None else None
    return {
        "id": profile.id,
        "object": "model",
        "created": created,
        "owned_by": "superfluid",
        "loaded": served is not None,
        "meta": {
            "n_ctx": profile.n_ctx,
            "n_ctx_train": profile.n_ctx_train,
            "n_params": profile.n_params,
            "size": profile.size_bytes,
            "path": str(profile.path),
            **({"offload": placed.summary()} if placed is not None else {}),
        },
        "architecture": {"input_modalities": list(profile.input_modalities), "family": profile.family},
        "runtime": profile.runtime,
        "capabilities": profile.capabilities(),
    }


async def list_models() -> dict[str, Any]:
    ids = list(services().models.sources)
    return {"object": "list", "data": [await describe(model_id) for model_id in ids]}


async def get_model(model: str) -> dict[str, Any]:
    return await describe(model)
