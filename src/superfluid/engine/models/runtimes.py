"""The runtimes a known model can be served with, and the kinds of served model they make.

A model's source names its runtime: ``llamacpp`` (a GGUF) or ``whisper`` (faster-whisper on CTranslate2). Its
profile, read from metadata alone, names its kind: a llama.cpp model is a ``generation`` model, or an
``embedding`` model (a pooling encoder, or any model under ``--embedding``); a Whisper model is a ``speech``
model. The registry asks ``probe`` what a model is before it loads anything, refuses a request for another kind
(``check_kind``), and loads with ``load``. Every served object answers what the registry's lifecycle needs: ``id``,
``profile``, ``idle`` (nothing running or waiting) and ``close()``.
"""

from __future__ import annotations

from collections.abc import Callable

from superfluid.engine.embedding.model import EmbeddingModel
from superfluid.engine.models.llama_model import probe_metadata
from superfluid.engine.models.model_sources import ModelSource
from superfluid.engine.models.offload import DeviceBook, Placement
from superfluid.engine.models.profile import ModelProfile
from superfluid.engine.models.served_model import ServedModel
from superfluid.engine.scheduling.stats import EngineStats
from superfluid.engine.whisper.model import SpeechModel, SpeechProfile
from superfluid.errors import UnsupportedModel
from superfluid.settings import Settings

RUNTIMES = ("llamacpp", "whisper")
"""Runtimes this server loads models with (what /v1/models/load's ``runtime`` may name)."""

AnyProfile = ModelProfile | SpeechProfile
"""A model's capability record and facts; ``kind`` says which served type serves it."""
LoadedModel = ServedModel | EmbeddingModel | SpeechModel

Prober = Callable[[str, ModelSource, Settings], AnyProfile]
"""Reads what a known model is (in a worker thread): id, source, its settings. Reads no weights."""
Loader = Callable[[str, ModelSource, Settings, EngineStats], LoadedModel]
"""Loads one model (in a worker thread): id, source, its settings, the figures its engine writes."""

_SERVES = {"generation": "text generation", "embedding": "embeddings", "speech": "speech to text"}
_KINDS = {"generation": "a generation model", "embedding": "an embedding model",
          "speech": "a Whisper (speech to text) model"}


def probe(model_id: str, source: ModelSource, settings: Settings) -> AnyProfile:
    """The profile of a known model, by its runtime; reads no weights."""
    if source.runtime == "whisper":
        from superfluid.engine.whisper import source as whisper

        return SpeechProfile.read(model_id, source.origin, whisper.config_path(), whisper.weights_size())
    path = source.locate()
    meta = probe_metadata(path, settings.override_kv)
    return ModelProfile.build(model_id, source.origin, path, meta, settings)


def load(model_id: str, source: ModelSource, settings: Settings, stats: EngineStats,
         profile: AnyProfile | None = None, book: DeviceBook | None = None) -> LoadedModel:
    """Load a model with its runtime, as the kind its profile names (probed first when not given); ``book``: what
    the loaded models hold on each offload device."""
    if profile is None:
        profile = probe(model_id, source, settings)
    if isinstance(profile, SpeechProfile):
        return SpeechModel.load(profile, source, settings)
    if profile.kind == "embedding":
        return EmbeddingModel.load(profile, source, settings)
    return ServedModel.load(model_id, source, settings, stats, book)


def placement_of(loaded: LoadedModel) -> Placement | None:
    """Where a loaded llama.cpp model's layers and buffers went (None for a Whisper model)."""
    if isinstance(loaded, ServedModel):
        return loaded.placement
    if isinstance(loaded, EmbeddingModel):
        return loaded.llama.placement
    return None


def check_kind(profile: AnyProfile, kind: str) -> None:
    """Refuse (400 unsupported_model) a request for ``kind`` on a model of another kind."""
    if profile.kind != kind:
        raise UnsupportedModel(f"model '{profile.id}' serves no {_SERVES[kind]}: it is {_KINDS[profile.kind]}",
                               param="model")
