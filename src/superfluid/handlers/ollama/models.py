"""Ollama's discovery routes: /, /api/version, /api/tags, /api/ps and /api/show. None of them loads a model."""

from __future__ import annotations

import hashlib
from typing import Any

from starlette.responses import PlainTextResponse

from superfluid import __version__
from superfluid.engine import AnyProfile, ModelProfile, placement_of
from superfluid.errors import SuperfluidError
from superfluid.handlers.context import services
from superfluid.handlers.ollama import params
from superfluid.handlers.ollama.replies import rfc3339


async def root() -> PlainTextResponse:
    return PlainTextResponse("superfluid is running")


async def version() -> dict[str, str]:
    return {"version": __version__, "server": "superfluid", "compatibility": "ollama-inference"}


def digest(model_id: str) -> str:
    """What stands in for Ollama's content digest: the SHA-256 of the model id (no file is read)."""
    return hashlib.sha256(model_id.encode()).hexdigest()


def _entry(model_id: str) -> dict[str, Any]:
    return {"name": model_id, "model": model_id, "size": 0, "digest": digest(model_id), "details": {}}


async def tags() -> dict[str, Any]:
    """Every known model; each entry also names its capabilities (an extension), read from metadata only."""
    svc = services()
    modified = rfc3339(svc.started_at)
    out = []
    for model_id in svc.models.sources:
        entry = {**_entry(model_id), "modified_at": modified}
        try:
            entry["capabilities"] = capabilities(await svc.models.profile(model_id))
        except SuperfluidError:
            entry["capabilities"] = []  # an unreadable file: listed, with nothing claimed about it
        out.append(entry)
    return {"models": out}


async def ps() -> dict[str, Any]:
    """The loaded models, with what they hold in memory as Ollama counts it: ``size`` every byte llama.cpp placed
    (weights, KV cells, compute buffers), ``size_vram`` those on GPUs."""
    loaded = services().models.loaded
    out = []
    for model_id, served in loaded.items():
        placed = placement_of(served)
        size = sum(use.total for use in placed.devices) if placed is not None else 0
        vram = sum(placed.device_bytes.values()) if placed is not None else 0
        out.append({**_entry(model_id), "size": size, "size_vram": vram, "context_length": served.n_ctx})
    return {"models": out}


def capabilities(profile: AnyProfile) -> list[str]:
    """Ollama's capability names for what this server serves on the model. Tool calls work on every chat
    model (in the template's own format, or a generic JSON format), so "tools" goes with "completion".
    Whisper models, which Ollama has no name for, are "transcription" (and "translation" when multilingual)."""
    described = profile.capabilities()
    dialect = described["dialect"]
    modalities = described.get("modalities", {})
    out = []
    if described["workload"]["generation"]:
        out += ["completion", "tools"]
    if dialect["enable_thinking"]:
        out.append("thinking")
    if dialect["fim"]:
        out.append("insert")
    if described["workload"]["embedding"]:
        out.append("embedding")
    if modalities.get("whisper_transcription"):
        out.append("transcription")
    if modalities.get("whisper_translation"):
        out.append("translation")
    return out


def _model_info(profile: AnyProfile) -> dict[str, Any]:
    info: dict[str, Any] = {"general.architecture": profile.family, "general.name": profile.name}
    if profile.n_params is not None:
        info["general.parameter_count"] = profile.n_params
    info[f"{profile.family}.context_length"] = profile.n_ctx_train
    info["superfluid.runtime"] = profile.runtime
    return info


def _parameters(profile: AnyProfile) -> str:
    """The effective defaults in Ollama's "name value" lines."""
    sampling = profile.sampling_defaults if profile.kind == "generation" else {}
    defaults = {"num_ctx": profile.n_ctx, **sampling}
    return "\n".join(f"{name} {_plain(value)}" for name, value in defaults.items())


def _plain(value: float | int) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


async def show(body: dict[str, Any]) -> dict[str, Any]:
    params.refuse_unknown(body, params.SHOW_FIELDS)
    svc = services()
    model_id = params.model_id(body["model"], svc.models.sources)
    profile = await svc.models.profile(model_id)
    reply: dict[str, Any] = {
        "modified_at": rfc3339(svc.started_at),
        "details": {"format": "gguf" if profile.runtime == "llamacpp" else "ctranslate2", "family": profile.family,
                    "families": [profile.family]},
        "model_info": _model_info(profile),
        "parameters": _parameters(profile),
    }
    if model_id in svc.models.loaded:
        reply["capabilities"] = capabilities(profile)
        if isinstance(profile, ModelProfile) and profile.kind == "generation":
            reply["template"] = profile.template.source
    return reply
