"""Operational routes: /health and /props."""

from __future__ import annotations

from typing import Any

from superfluid import __version__
from superfluid.engine.llama_model import BACKEND_VERSION
from superfluid.handlers.context import services


async def health() -> dict[str, str]:
    return {"status": "ok"}


async def props(model: str | None = None, autoload: str | None = None) -> dict[str, Any]:
    svc = services()
    model_id = svc.models.canonical(model) if model else svc.models.default_id
    if (autoload or "").lower() in ("1", "true", "yes"):
        await svc.models.get(model_id)
    profile = await svc.models.profile(model_id)
    served = svc.models.loaded.get(model_id)
    defaults = profile.sampling_defaults
    params: dict[str, Any] = {
        **defaults,
        "presence_penalty": 0.0,
        "frequency_penalty": 0.0,
        "repeat_penalty": defaults.get("repeat_penalty", 1.0),
        "max_tokens": svc.settings.max_tokens if svc.settings.max_tokens else -1,
        "seed": -1,
        "stop": [],
    }
    kv: dict[str, Any] = {"type_k": "f16", "type_v": "f16", "unified": True, "size_tokens": profile.n_ctx}
    if served is not None:
        kv.update(served.scheduler.snapshot())
    return {
        "model": profile.id,
        "model_path": str(profile.path),
        "loaded": served is not None,
        "max_context": profile.n_ctx,
        "total_slots": svc.settings.parallel,
        "chat_template": profile.template.source,
        "chat_template_source": profile.template_origin,
        "default_generation_settings": {"n_ctx": profile.n_ctx, "params": params},
        "kv_cache": kv,
        "capabilities": profile.capabilities(),
        "build_info": f"superfluid {__version__}, llama-cpp-python {BACKEND_VERSION}",
    }
