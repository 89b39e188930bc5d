"""Ollama's view of a model: digest, capability names, model_info and parameters, from a profile."""

from __future__ import annotations

import hashlib
from types import SimpleNamespace
from typing import Any

from superfluid.handlers.ollama import models as ollama_models


def _profile(*, generation: bool = True, thinks: bool = False, fim: bool = False) -> Any:
    described = {"workload": {"generation": generation, "embedding": not generation},
                 "dialect": {"enable_thinking": thinks, "fim": fim}}
    meta = SimpleNamespace(architecture="llama", name="Tiny", n_params=135, n_ctx_train=8192)
    return SimpleNamespace(capabilities=lambda: described, meta=meta, n_ctx=4096, family="llama", n_params=135,
                           n_ctx_train=8192, runtime="llamacpp", name="Tiny", kind="generation",
                           sampling_defaults={"temperature": 0.8, "top_k": 40.0})


def test_digest_is_the_sha256_of_the_id() -> None:
    assert ollama_models.digest("m") == hashlib.sha256(b"m").hexdigest()


def test_capabilities() -> None:
    assert ollama_models.capabilities(_profile()) == ["completion", "tools"]
    assert ollama_models.capabilities(_profile(thinks=True, fim=True)) == ["completion", "tools", "thinking",
                                                                           "insert"]
    assert ollama_models.capabilities(_profile(generation=False)) == ["embedding"]


def test_model_info_and_parameters() -> None:
    profile = _profile()
    assert ollama_models._model_info(profile) == {"general.architecture": "llama", "general.name": "Tiny",
                                                  "general.parameter_count": 135, "llama.context_length": 8192,
                                                  "superfluid.runtime": "llamacpp"}
    assert ollama_models._parameters(profile).splitlines() == ["num_ctx 4096", "temperature 0.8", "top_k 40"]
