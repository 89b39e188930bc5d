"""POST /v1/lora/load, POST /v1/lora/unload (admin routes) and GET /v1/lora: a model's LoRA adapters.

Load and unload are admin routes: marked ``x-superfluid-admin: true`` in openapi/openai.yaml and guarded by
http/access.py (403 ``admin_required`` for a user key). See docs/lora.md.
"""

from __future__ import annotations

from typing import Any

from superfluid.engine import AdapterCatalog, AdapterSet, ServedModel
from superfluid.errors import AdapterRefused
from superfluid.handlers.context import services


def _listing(model_id: str, adapters: AdapterSet) -> dict[str, Any]:
    return {
        "object": "list",
        "model": model_id,
        "data": [{"object": "lora_adapter", "id": a.id, "path": str(a.file.path), "scale": a.scale,
                  "origin": a.origin} for a in adapters],
    }


async def load(body: dict[str, Any]) -> dict[str, Any]:
    svc = services()
    model_id = svc.models.canonical(body.get("model") or svc.models.default_id)
    AdapterCatalog(svc.settings).resolve(body["path"])  # a name the server refuses loads no model
    served = await svc.models.get(model_id)
    active = await served.load_adapter(body["path"], float(body.get("scale", 1.0)))
    return _listing(served.id, active)


def _adapted(model_id: str) -> ServedModel | None:
    """The model's generation engine while it is loaded; None when it is not loaded or is of another kind
    (embedding and speech models take no adapters), so it has none to list or take off."""
    served = services().models.loaded_model(model_id)
    return served if isinstance(served, ServedModel) else None


async def unload(body: dict[str, Any]) -> dict[str, Any]:
    models = services().models
    model_id = models.canonical(body.get("model") or models.default_id)
    served = _adapted(model_id)
    if served is None:  # a model that is not loaded (or takes no adapters) has none to take off
        if body.get("path"):
            raise AdapterRefused(f"'{body['path']}' is not active on model '{model_id}'")
        return _listing(model_id, ())
    return _listing(model_id, served.unload_adapter(body.get("path")))


async def show(model: str | None = None) -> dict[str, Any]:
    models = services().models
    model_id = models.canonical(model) if model else models.default_id
    served = _adapted(model_id)
    return _listing(model_id, served.adapters if served is not None else ())
