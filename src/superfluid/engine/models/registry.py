"""The models this server knows, which of them are loaded, and loading on demand."""

from __future__ import annotations

import asyncio
import logging

from superfluid.engine.models.llama_model import probe_metadata
from superfluid.engine.models.model_sources import ModelSource, resolve
from superfluid.engine.models.profile import ModelProfile
from superfluid.engine.models.served_model import ServedModel
from superfluid.errors import ModelNotFound
from superfluid.settings import Settings

log = logging.getLogger(__name__)


class ModelRegistry:
    """Known models in CLI order (the first is the default). Only the default loads at start-up;
    others load the first time a request names them (or on ``/props?autoload=1``)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.sources: dict[str, ModelSource] = {}
        for i, reference in enumerate(settings.models):
            source = resolve(reference, hf_cache=settings.hf_cache)
            model_id = settings.alias if (i == 0 and settings.alias) else source.id
            self.sources[model_id] = source
        self.loaded: dict[str, ServedModel] = {}
        self._profiles: dict[str, ModelProfile] = {}
        self._locks: dict[str, asyncio.Lock] = {}

    @property
    def default_id(self) -> str:
        return next(iter(self.sources))

    def canonical(self, model_id: str) -> str:
        if model_id in self.sources:
            return model_id
        raise ModelNotFound(model_id)

    def loaded_model(self, model_id: str) -> ServedModel | None:
        return self.loaded.get(self.canonical(model_id))

    async def profile(self, model_id: str) -> ModelProfile:
        """What a known model is, from its GGUF metadata; reads no weights for a model that is not loaded."""
        model_id = self.canonical(model_id)
        served = self.loaded.get(model_id)
        if served is not None:
            return served.profile
        cached = self._profiles.get(model_id)
        if cached is None:
            source = self.sources[model_id]

            def probe() -> ModelProfile:
                path = source.locate()
                meta = probe_metadata(path, self.settings.override_kv)
                return ModelProfile.build(model_id, source.origin, path, meta, self.settings)

            cached = await asyncio.to_thread(probe)
            self._profiles[model_id] = cached
        return cached

    async def get(self, model_id: str, *, autoload: bool = True) -> ServedModel:
        """The loaded model; loads it first when it is known and ``autoload`` allows."""
        model_id = self.canonical(model_id)
        served = self.loaded.get(model_id)
        if served is not None:
            return served
        if not autoload:
            raise ModelNotFound(model_id)
        lock = self._locks.setdefault(model_id, asyncio.Lock())
        async with lock:
            served = self.loaded.get(model_id)
            if served is None:
                served = await asyncio.to_thread(ServedModel.load, model_id, self.sources[model_id], self.settings)
                self.loaded[model_id] = served
        return served

    async def start(self) -> None:
        await self.get(self.default_id)
        for model_id in self.settings.preload:
            await self.get(model_id)

    async def close(self) -> None:
        for served in list(self.loaded.values()):
            await asyncio.to_thread(served.close)
        self.loaded.clear()
