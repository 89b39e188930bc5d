"""Ollama's discovery routes: /, /api/version, /api/tags, /api/ps and /api/show. None of them loads a model."""

from __future__ import annotations

import hashlib
from typing import Any

from starlette.responses import PlainTextResponse

from superfluid import __version__
from superfluid.engine.models.profile import ModelProfile
from superfluid.handlers import ollama_params as params
from superfluid.handlers.context import services
from superfluid.handlers.ollama_replies import rfc3339


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
    svc = services()
    modified = rfc3339(svc.started_at)
    return {"models": [{**_entry(model_id), "modified_at": modified} for model_id in svc.models.sources]}


async def ps() -> dict[str, Any]:
    loaded = services().models.loaded
    return {"models": [{**_entry(model_id), "size_vram": 0, "context_length": served.n_ctx}
                       for model_id, served in loaded.items()]}


def capabilities(profile: ModelProfile) -> list[str]:
    """Ollama's capability names for what this server serves on the model. Tool calls work on every chat
    model (in the template's own format, or a generic JSON format), so "tools" goes with "completion"."""
    described = profile.capabilities()
    dialect = described["dialect"]
    out = []
    if described["workload"]["generation"]:
        out += ["completion", "tools"]
    if dialect["enable_thinking"]:
        out.append("thinking")
    if dialect["fim"]:
        out.append("insert")
    if described["workload"]["embedding"]:
        out.append("embedding")
    return out


def _model_info(profile: ModelProfile) -> dict[str, Any]:
    meta = profile.meta
    info: dict[str, Any] = {"general.architecture": meta.architecture, "general.name": meta.name}
    if meta.n_params is not None:
        info["general.parameter_count"] = meta.n_params
    info[f"{meta.architecture}.context_length"] = meta.n_ctx_train
    return info


def _parameters(profile: ModelProfile) -> str:
    """The effective defaults in Ollama's "name value" lines."""
    defaults = {"num_ctx": profile.n_ctx, **profile.sampling_defaults}
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
        "details": {"format": "gguf", "family": profile.meta.architecture,
                    "families": [profile.meta.architecture]},
        "model_info": _model_info(profile),
        "parameters": _parameters(profile),
    }
    if model_id in svc.models.loaded:
        reply["capabilities"] = capabilities(profile)
        reply["template"] = profile.template.source
    return reply
