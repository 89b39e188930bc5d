"""Operational routes: /health and /props."""

from __future__ import annotations

from typing import Any

from superfluid import __version__
from superfluid.engine import (
    BACKEND_VERSION,
    AnyProfile,
    ModelProfile,
    ServedModel,
    backend_devices,
    flash_attention,
    lanes_own_their_cells,
    shared_kv_pool,
)
from superfluid.errors import RouteRetired
from superfluid.handlers.context import services


async def health() -> dict[str, str]:
    return {"status": "ok"}


async def props(model: str | None = None, autoload: str | None = None) -> dict[str, Any]:
    svc = services()
    model_id = svc.models.canonical(model) if model else svc.models.default_id
    if (autoload or "").lower() in ("1", "true", "yes"):
        await svc.models.get_any(model_id)
    profile = await svc.models.profile(model_id)
    served = svc.models.loaded.get(model_id)
    if not isinstance(profile, ModelProfile) or profile.kind != "generation":
        return _props_without_generation(profile, served is not None, svc.models.entry(model_id).settings.flash_attn)
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
    settings = svc.models.entry(model_id).settings
    size = max(settings.kv_size, profile.n_ctx)
    unified = shared_kv_pool(settings.kv_unified, settings.parallel, size, profile.n_ctx)
    kv: dict[str, Any] = {"type_k": "f16", "type_v": "f16", "size_tokens": size, "unified": unified}
    loaded: dict[str, Any] = {}
    offloaded = False
    if isinstance(served, ServedModel):
        kv.update(served.kv_snapshot())
        offloaded = served.placement.layers > 0
        loaded = {"memory": served.memory_view(), "speculative": served.drafting,
                  "offload": served.placement.summary()}
    return {
        "model": profile.id,
        "model_path": str(profile.path),
        "loaded": served is not None,
        "max_context": profile.n_ctx,
        "total_slots": svc.models.entry(model_id).settings.parallel,
        "chat_template": profile.template.source,
        "chat_template_source": profile.template_origin,
        "tool_format": profile.template.call_format,
        **({"reasoning_markers": list(profile.template.reasoning)} if profile.template.thinks else {}),
        "default_generation_settings": {"n_ctx": profile.n_ctx, "params": params},
        "kv_cache": kv,
        "flash_attention": flash_attention(settings.flash_attn, offloaded=offloaded,
                                           own_cells=lanes_own_their_cells(unified, max(settings.parallel, 1))),
        "devices": [device.summary() for device in backend_devices()],
        **loaded,
        "runtime": profile.runtime,
        "capabilities": profile.capabilities(),
        "build_info": f"superfluid {__version__}, llama-cpp-python {BACKEND_VERSION}",
    }


def _props_without_generation(profile: AnyProfile, loaded: bool, flash_attn: str) -> dict[str, Any]:
    """/props of an embedding or Whisper model: llama-server's shape, with nothing about sampling or chat."""
    return {
        "model": profile.id,
        "model_path": str(profile.path),
        "loaded": loaded,
        "max_context": profile.n_ctx,
        "total_slots": 1,
        "chat_template": "",
        "default_generation_settings": {"n_ctx": profile.n_ctx, "params": {}},
        "kv_cache": {},
        **({"flash_attention": flash_attention(flash_attn, generation=False)}
           if profile.runtime == "llamacpp" else {}),
        "runtime": profile.runtime,
        "capabilities": profile.capabilities(),
        "build_info": f"superfluid {__version__}, llama-cpp-python {BACKEND_VERSION}",
    }


async def slots(model: str | None = None) -> list[dict[str, Any]]:
    """One aggregate entry in llama-server's slot shape, for the default (or named) model while it is loaded,
    loading (``state``; ``load_waiting`` requests wait for it) or draining for an unload."""
    svc = services()
    model_id = svc.models.canonical(model) if model else svc.models.default_id
    state = svc.models.state(model_id)
    waiting = svc.models.load_waiting(model_id)
    served = svc.models.served_now(model_id)
    if not isinstance(served, ServedModel):  # not loaded, or a model without lanes (embeddings, speech)
        if served is None and state != "loading":
            await svc.models.get_any(model_id, autoload=False)  # not loaded: 404
        profile = await svc.models.profile(model_id)
        return [{"id": 0, "id_task": -1, "model": model_id, "n_ctx": profile.n_ctx,
                 "is_processing": served is not None and not served.idle,
                 "state": state, "load_waiting": waiting, "lanes": [], "kv_pool": {}, "waiting": waiting,
                 "tick_plan": {}, "rates": {}}]
    view = served.slot_view()
    busy = [lane for lane in view["lanes"] if lane["state"] != "idle"]
    return [{
        "id": 0,
        "id_task": -1,
        "model": served.id,
        "n_ctx": served.n_ctx,
        "speculative": served.drafting,
        "memory": served.memory_view(),
        "offload": served.placement.summary(),
        "is_processing": bool(busy),
        "params": {**served.sampling_defaults},
        "state": state,
        "load_waiting": waiting,
        **view,
    }]


def _retired() -> RouteRetired:
    return RouteRetired("slot save and restore are retired: every request is already a durable session "
                        "served warm from the prefix cache")


async def slot_action(id_slot: int, action: str | None = None) -> None:
    raise _retired()


async def slot_save(id_slot: int) -> None:
    raise _retired()


async def slot_restore(id_slot: int) -> None:
    raise _retired()
