"""Admin routes: POST /v1/models/load, POST /v1/models/unload and DELETE /v1/models/{model}.

``load`` names a known model, or a new reference (bundled id, .gguf path, owner/repo[:QUANT]) that becomes known,
with its own alias, context, lanes and idle timeout. Only admin keys reach these routes (http/access.py).
"""

from __future__ import annotations

import asyncio
from typing import Any

from superfluid.engine import OFFLOAD_FIELDS, RUNTIMES, ModelSourceError, entry_for, offload_from
from superfluid.errors import (
    DeviceMemoryExceeded,
    EngineFailure,
    InvalidRequest,
    ModelNotFound,
    NotFound,
    UnknownDevice,
    UnsupportedRuntime,
)
from superfluid.handlers.context import services
from superfluid.handlers.openai.models import describe

_OVERRIDES = ("alias", "ctx_size", "kv_size", "parallel", "idle_timeout", *OFFLOAD_FIELDS)


async def load(body: dict[str, Any]) -> dict[str, Any]:
    svc = services()
    runtime = body.get("runtime")
    if runtime is not None and runtime not in RUNTIMES:
        raise UnsupportedRuntime(f"runtime '{runtime}' is not available in this server (it has: "
                                 f"{', '.join(RUNTIMES)})", param="runtime")
    reference = body["model"]
    added = None
    try:
        model_id = svc.models.canonical(reference)
    except ModelNotFound:
        model_id = added = await _add(reference, body)
    else:
        given = [name for name in _OVERRIDES if body.get(name) is not None]
        if given:
            raise InvalidRequest(f"model '{model_id}' is already known; its {given[0]} is set where it was "
                                 "declared", param=given[0])
    model_runtime = svc.models.entry(model_id).source.runtime
    if runtime is not None and runtime != model_runtime:
        if added is not None:
            svc.models.forget(added)
        raise UnsupportedRuntime(f"model '{reference}' runs on the {model_runtime} runtime, not {runtime}",
                                 param="runtime")
    try:
        await svc.models.load(model_id)
    except Exception as exc:
        if added is not None:
            svc.models.forget(added)
        if isinstance(exc, DeviceMemoryExceeded | UnknownDevice):
            raise
        if isinstance(exc, EngineFailure):
            raise UnsupportedRuntime(f"the {model_runtime} runtime cannot read model '{reference}': "
                                     f"{exc.message}", param="model") from None
        if isinstance(exc, ModelSourceError):  # its file could not be found or downloaded
            raise NotFound(f"model '{reference}' cannot be loaded: {exc}", param="model") from None
        raise
    return await describe(model_id)


async def _add(reference: str, body: dict[str, Any]) -> str:
    """Make a new reference known (its file is found, not yet loaded)."""
    svc = services()
    offload = {key: body[key] for key in OFFLOAD_FIELDS if body.get(key) is not None}
    try:
        offload_from(svc.settings.offload, offload)
    except ValueError as exc:  # the document checks types; what it cannot (a count, a pattern) is checked here
        raise InvalidRequest(str(exc), param=str(exc).split(":", 1)[0]) from None
    try:
        entry = await asyncio.to_thread(
            entry_for, reference, svc.settings, alias=body.get("alias"), ctx_size=body.get("ctx_size"),
            kv_size=body.get("kv_size"), parallel=body.get("parallel"), idle_timeout_s=body.get("idle_timeout"),
            offload=offload)
    except ModelSourceError as exc:
        raise NotFound(f"model '{reference}' is neither known nor found: {exc}", param="model") from None
    if svc.models.is_known(entry.id):
        raise InvalidRequest(f"the id '{entry.id}' is already taken by another model; give this one an alias",
                             param="alias")
    return await svc.models.add(entry)


async def unload(body: dict[str, Any]) -> dict[str, Any]:
    return await _unload(body["model"])


async def delete(model: str) -> dict[str, Any]:
    """OpenAI's model deletion shape (the SDK's ``models.delete``); the model stays known, only unloaded."""
    return {**await _unload(model), "deleted": True}


async def _unload(name: str) -> dict[str, Any]:
    models = services().models
    model_id = models.canonical(name)
    await models.unload(model_id)
    return {"id": model_id, "object": "model", "loaded": False}
