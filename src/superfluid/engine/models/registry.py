"""The models this server knows, which of them are loaded, and their lifecycle.

A known model is loaded on demand (the first request that names it waits for the load; concurrent requests share
one load), by an admin's ``load``, or at start-up (the default model, ``--preload`` ids and ``eager`` entries).
It is unloaded by an admin's ``unload``, after ``idle_timeout`` seconds unused, or to make room when
``--models-max`` are loaded (the least recently used goes). An unload first lets every running request finish;
requests that arrive meanwhile wait and then load the model again, rather than fail.

Every request that gets a model holds a lease on it until its response is over (see request_scope); the lease,
not the engine's queue, is what an unload waits for, so a reply still being written keeps its model.

The lifecycle is the same for every kind of model (generation, embedding, speech; see runtimes): a request asks
for the kind it needs (``get``, ``embedder``, ``transcriber``), and a model of another kind is refused with 400
unsupported_model before anything loads.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import cast

from superfluid.engine import request_scope
from superfluid.engine.embedding.model import EmbeddingModel
from superfluid.engine.models import catalog, runtimes
from superfluid.engine.models.catalog import ModelEntry
from superfluid.engine.models.devices import backend_devices, device_lines
from superfluid.engine.models.llama_model import device_need
from superfluid.engine.models.model_sources import ModelSource
from superfluid.engine.models.offload import DeviceBook
from superfluid.engine.models.runtimes import AnyProfile, LoadedModel, Loader, Prober, placement_of
from superfluid.engine.models.served_model import ServedModel
from superfluid.engine.scheduling.stats import EngineStats, LoadStats
from superfluid.engine.whisper.model import SpeechModel
from superfluid.errors import AdapterRefused, ModelNotFound
from superfluid.settings import Settings

log = logging.getLogger(__name__)

IDLE_POLL_S = 0.05
"""How often an unload looks again whether work that holds no lease (none today) has left the engine."""


@dataclass(eq=False)
class _Model:
    """One known model's lifecycle state (event-loop side only)."""

    entry: ModelEntry
    served: LoadedModel | None = None
    loading: asyncio.Task[LoadedModel] | None = None
    unloading: asyncio.Task[None] | None = None
    leases: int = 0
    waiting: int = 0
    """Requests waiting for this model to load (or to finish unloading and load again)."""
    last_used: float = field(default_factory=time.monotonic)
    released: asyncio.Event = field(default_factory=asyncio.Event)
    engine: EngineStats = field(default_factory=EngineStats)
    lifecycle: LoadStats = field(default_factory=LoadStats)
    adapters: tuple[tuple[str, float], ...] | None = None
    """The LoRA adapters (name, scale) it had when it last unloaded, applied again when it loads; None before."""

    @property
    def state(self) -> str:
        if self.unloading is not None:
            return "unloading"
        if self.served is not None:
            return "loaded"
        return "loading" if self.loading is not None else "unloaded"


class ModelRegistry:
    """Known models in order (the first is the default); see the module for their lifecycle."""

    def __init__(self, settings: Settings, *, loader: Loader | None = None, prober: Prober | None = None) -> None:
        self.settings = settings
        self._models: dict[str, _Model] = {e.id: _Model(e) for e in catalog.entries(settings)}
        self._profiles: dict[str, AnyProfile] = {}
        self._loader: Loader = loader or self._load_by_kind
        self._prober: Prober = prober or runtimes.probe
        self._room = asyncio.Lock()
        """Held while making room for a load under --models-max and loading, so the limit holds exactly."""
        self._idle_task: asyncio.Task[None] | None = None
        self._background: set[asyncio.Task[None]] = set()
        self.book = DeviceBook()
        """What the loaded models placed on each offload device (offload.py)."""

    # ---- what is known and loaded (as the current request's key may see it) ----------------------
    @property
    def default_id(self) -> str:
        return next(iter(self._models))

    @property
    def sources(self) -> dict[str, ModelSource]:
        """Known models the current request may use, in order: id -> source."""
        scope = request_scope.current()
        return {i: m.entry.source for i, m in self._models.items() if scope is None or scope.allows(i)}

    @property
    def loaded(self) -> dict[str, LoadedModel]:
        """Loaded models the current request may use."""
        scope = request_scope.current()
        return {i: m.served for i, m in self._models.items()
                if m.served is not None and m.unloading is None and (scope is None or scope.allows(i))}

    def canonical(self, model_id: str) -> str:
        """The id of a known model the current request may use; anything else is unknown (404)."""
        scope = request_scope.current()
        if model_id in self._models and (scope is None or scope.allows(model_id)):
            return model_id
        raise ModelNotFound(model_id)

    def served_now(self, model_id: str) -> LoadedModel | None:
        """The model's engine while it is loaded or draining for an unload (for /slots; takes no lease)."""
        return self._models[self.canonical(model_id)].served

    def is_known(self, model_id: str) -> bool:
        """Whether any model has this id, whoever asks."""
        return model_id in self._models

    def loaded_model(self, model_id: str) -> LoadedModel | None:
        return self.loaded.get(self.canonical(model_id))

    def entry(self, model_id: str) -> ModelEntry:
        return self._models[self.canonical(model_id)].entry

    def state(self, model_id: str) -> str:
        """loaded, loading, unloading or unloaded."""
        return self._models[self.canonical(model_id)].state

    def load_waiting(self, model_id: str) -> int:
        return self._models[self.canonical(model_id)].waiting

    def figures(self) -> list[tuple[str, str, int, LoadedModel | None, EngineStats, LoadStats]]:
        """Every known model for /metrics: id, state, requests waiting for its load, the served model if
        loaded, its engine and load figures. Not filtered by key: metrics describe the server."""
        return [(i, m.state, m.waiting, m.served, m.engine, m.lifecycle) for i, m in self._models.items()]

    async def profile(self, model_id: str) -> AnyProfile:
        """What a known model is, from its metadata; reads no weights for a model that is not loaded."""
        model_id = self.canonical(model_id)
        served = self._models[model_id].served
        if served is not None:
            return served.profile
        cached = self._profiles.get(model_id)
        if cached is None:
            entry = self._models[model_id].entry
            cached = await asyncio.to_thread(self._prober, model_id, entry.source, entry.settings)
            self._profiles[model_id] = cached
        return cached

    def _load_by_kind(self, model_id: str, source: ModelSource, settings: Settings,
                      stats: EngineStats) -> LoadedModel:
        """The default loader: the model's runtime, for the kind its (cached) profile names."""
        return runtimes.load(model_id, source, settings, stats, self._profiles.get(model_id), self.book)

    # ---- getting a model for a request ---------------------------------------------------------------
    async def get(self, model_id: str, *, autoload: bool = True) -> ServedModel:
        """The loaded generation model, leased to the current request (see ``get_any``)."""
        # get_any checked the model's kind, and the kind decides what its runtime serves it as.
        return cast(ServedModel, await self.get_any(model_id, kind="generation", autoload=autoload))

    async def embedder(self, model_id: str) -> EmbeddingModel:
        """The loaded embedding model, leased to the current request (see ``get_any``)."""
        return cast(EmbeddingModel, await self.get_any(model_id, kind="embedding"))

    async def transcriber(self, model_id: str) -> SpeechModel:
        """The loaded Whisper model, leased to the current request (see ``get_any``)."""
        return cast(SpeechModel, await self.get_any(model_id, kind="speech"))

    async def get_any(self, model_id: str, *, kind: str | None = None, autoload: bool = True) -> LoadedModel:
        """The loaded model, leased to the current request until its response is over; loads it first when it
        is known and ``autoload`` allows (waiting for an unload in progress to finish, then loading again). With
        ``kind``, a model of another kind is 400 unsupported_model before anything loads."""
        model = self._models[self.canonical(model_id)]
        if kind is not None:
            runtimes.check_kind(await self.profile(model.entry.id), kind)
        scope = request_scope.current()
        waited = False
        while model.served is None or model.unloading is not None:
            if not autoload and model.unloading is None and model.loading is None:
                raise ModelNotFound(model.entry.id)
            if scope is not None and not waited:
                scope.landed()  # seconds from any queue: no idle engine should wait for it (docs/scheduling.md)
            waited = True
            model.waiting += 1
            try:
                if model.unloading is not None:
                    await asyncio.shield(model.unloading)
                else:
                    await self._load(model)
            finally:
                model.waiting -= 1
        if scope is not None:
            scope.model = model.entry.id
            if kind != "generation":
                scope.landed()  # not a request for a generation queue: no engine waits for it
            elif waited:
                scope.rearrive()  # with the others that waited for the load: a burst for the new engine
            self._lease(model)
            scope.hold(lambda: self._release(model))
        else:
            model.last_used = time.monotonic()
        return model.served

    @contextlib.asynccontextmanager
    async def lease(self, model_id: str) -> AsyncIterator[ServedModel]:
        """A model for work that is not an HTTP request: loaded, and kept loaded until the block ends."""
        token = request_scope.CURRENT.set(None)
        try:
            served = await self.get(model_id)
        finally:
            request_scope.CURRENT.reset(token)
        model = self._models[model_id]
        self._lease(model)
        try:
            yield served
        finally:
            self._release(model)

    def _lease(self, model: _Model) -> None:
        model.leases += 1
        model.released.clear()
        model.last_used = time.monotonic()

    def _release(self, model: _Model) -> None:
        model.leases -= 1
        model.last_used = time.monotonic()
        if model.leases <= 0:
            model.released.set()

    # ---- loading ------------------------------------------------------------------------------------
    async def load(self, model_id: str) -> LoadedModel:
        """Load a known model now (an admin's request); returns once it is loaded. Holds no lease."""
        model = self._models[self.canonical(model_id)]
        while model.served is None or model.unloading is not None:
            if model.unloading is not None:
                await asyncio.shield(model.unloading)
            else:
                await self._load(model)
        return model.served

    async def add(self, entry: ModelEntry) -> str:
        """Make a model known (an admin's load of a new reference); an id already known keeps its entry."""
        if entry.id not in self._models:
            self._models[entry.id] = _Model(entry)
            log.info("model %s is now known (%s)", entry.id, entry.source.origin)
        return entry.id

    def forget(self, model_id: str) -> None:
        """Drop a model added by ``add`` that never loaded (its load failed)."""
        model = self._models.get(model_id)
        if model is not None and model.state == "unloaded" and model_id != self.default_id:
            del self._models[model_id]
            self._profiles.pop(model_id, None)

    async def _load(self, model: _Model) -> None:
        """Wait for the model's load, starting it unless one is under way (concurrent callers share it)."""
        if model.loading is None:
            model.loading = asyncio.create_task(self._do_load(model), name=f"load:{model.entry.id}")
        await asyncio.shield(model.loading)

    async def _do_load(self, model: _Model) -> LoadedModel:
        entry = model.entry
        try:
            async with self._room if self.settings.models_max else contextlib.nullcontext():
                await self._make_room(model)
                started = time.monotonic()
                log.info("loading %s (%s)", entry.id, entry.source.origin)
                try:
                    served = await asyncio.to_thread(self._loader, entry.id, entry.source, entry.settings,
                                                     model.engine)
                except BaseException:
                    model.lifecycle.count(model.lifecycle.loads, "failed")
                    raise
                try:
                    await self._apply_adapters(model, served)
                except BaseException:
                    await asyncio.to_thread(served.close)
                    model.lifecycle.count(model.lifecycle.loads, "failed")
                    raise
                elapsed = time.monotonic() - started
                model.lifecycle.count(model.lifecycle.loads, "ok")
                model.lifecycle.load_seconds.observe(elapsed)
                model.served = served
                model.last_used = time.monotonic()
                log.info("loaded %s in %.2f s", entry.id, elapsed)
                return served
        finally:
            model.loading = None

    async def _apply_adapters(self, model: _Model, loaded: LoadedModel) -> None:
        """LoRA adapters on a model that just loaded: those named at start-up on the default model's first load
        (a bad one stops start-up), else those it had when it unloaded (one that no longer fits is left off).
        Only generation models take adapters; start-up adapters on a default model of another kind stop start-up."""
        if model.adapters is None:
            if model.entry.id == self.default_id and self.settings.lora:
                if loaded.profile.kind != "generation":
                    raise AdapterRefused(f"LoRA adapters (--lora) apply to generation models, and the default "
                                         f"model '{model.entry.id}' is of kind {loaded.profile.kind}")
                served = cast(ServedModel, loaded)  # the kind decides what its runtime served it as
                for name, scale in self.settings.lora:
                    await served.load_adapter(name, scale, apply=not self.settings.lora_init_without_apply)
            return
        served = cast(ServedModel, loaded)  # adapters were saved only from a generation model
        for name, scale in model.adapters:
            try:
                await served.load_adapter(name, scale)
            except AdapterRefused as exc:
                log.warning("model %s loaded again without LoRA adapter %s: %s", model.entry.id, name, exc.message)

    async def _make_room(self, incoming: _Model) -> None:
        """Under --models-max, unload the least recently used models until the incoming one fits; then, for a
        model that offloads, unload those holding memory on its devices until its layers fit there."""
        await self._make_count_room(incoming)
        await self._make_device_room(incoming)

    async def _make_device_room(self, incoming: _Model) -> None:
        """Unload the least recently used models (idle ones first) whose buffers sit on the devices the incoming
        model needs, until what it needs fits what those devices have free less --fit-target. When nothing more
        can go, the load goes on: ``-ngl auto`` fits what it can, an explicit count fails with its own error."""
        entry = incoming.entry
        if entry.source.runtime != "llamacpp" or self._loader != self._load_by_kind:
            return
        try:
            need = await asyncio.to_thread(device_need, entry.source.locate(), entry.settings)
        except Exception:  # a file that cannot be read fails in the load itself, with its own error
            return
        margin = entry.settings.offload.fit_target_mib * 1024 * 1024
        while need:
            devices = {d.name: d for d in await asyncio.to_thread(backend_devices)}
            used = self.book.used()
            short = {name for name, size in need.items() if name in devices
                     and size > min(devices[name].free, devices[name].total - used.get(name, 0)) - margin}
            holders = [m for m in self._models.values() if m is not incoming and m.served is not None
                       and m.unloading is None and short & set(_device_bytes(m.served))]
            held = {name: sum(_device_bytes(m.served).get(name, 0) for m in holders if m.served) for name in short}
            if not short or not holders or any(
                    need[name] > min(devices[name].free, devices[name].total - used.get(name, 0)) + held[name] - margin
                    for name in short):
                return  # it fits already, or nothing would make it fit: unload nothing
            victim = min(holders, key=lambda m: (m.leases > 0, m.last_used))
            log.info("unloading %s (least recently used) to make room on %s for %s", victim.entry.id,
                     ", ".join(sorted(short)), entry.id)
            await self._unload(victim, "lru")

    async def _make_count_room(self, incoming: _Model) -> None:
        """Under --models-max, unload the least recently used models until the incoming one fits."""
        limit = self.settings.models_max
        while limit:
            others = [m for m in self._models.values() if m is not incoming and m.served is not None]
            if len(others) < limit:
                return
            # Idle models go first, least recently used first; a busy one is unloaded once its requests end.
            victim = min(others, key=lambda m: (m.leases > 0, m.last_used))
            log.info("--models-max %d: unloading %s (least recently used) to load %s", limit, victim.entry.id,
                     incoming.entry.id)
            await self._unload(victim, "lru")

    # ---- unloading ----------------------------------------------------------------------------------
    async def unload(self, model_id: str, reason: str = "admin") -> None:
        """Unload a model once its running requests are over; returns when it is unloaded (at once when it is
        not loaded). A load under way finishes first."""
        model = self._models[self.canonical(model_id)]
        if model.loading is not None:
            with contextlib.suppress(Exception):
                await asyncio.shield(model.loading)
        await self._unload(model, reason)

    async def _unload(self, model: _Model, reason: str) -> None:
        if model.unloading is None:
            if model.served is None:
                return
            model.unloading = asyncio.create_task(self._do_unload(model, reason), name=f"unload:{model.entry.id}")
        await asyncio.shield(model.unloading)

    async def _do_unload(self, model: _Model, reason: str) -> None:
        served = model.served
        assert served is not None
        try:
            if model.leases > 0 or not served.idle:
                log.info("unloading %s (%s) after its %d running request(s)", model.entry.id, reason, model.leases)
            while model.leases > 0 or not served.idle:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(model.released.wait(), timeout=IDLE_POLL_S)
            if served.profile.kind == "generation":  # only generation models take LoRA adapters
                model.adapters = tuple((a.id, a.scale) for a in cast(ServedModel, served).adapters)
            await asyncio.to_thread(served.close)
            model.served = None
            model.lifecycle.count(model.lifecycle.unloads, reason)
            log.info("unloaded %s (%s)", model.entry.id, reason)
        finally:
            model.unloading = None

    async def _unload_idle(self) -> None:
        """Every so often, unload models unused for their idle timeout."""
        while True:
            timeouts = [m.entry.idle_timeout_s for m in self._models.values() if m.entry.idle_timeout_s > 0]
            await asyncio.sleep(min([1.0, *(t / 4 for t in timeouts)]))
            now = time.monotonic()
            for model in list(self._models.values()):
                timeout = model.entry.idle_timeout_s
                if (timeout > 0 and model.served is not None and model.unloading is None and model.leases == 0
                        and model.served.idle and now - model.last_used >= timeout):
                    task = asyncio.create_task(self._unload(model, "idle"), name=f"idle:{model.entry.id}")
                    self._background.add(task)
                    task.add_done_callback(self._background.discard)

    # ---- the server's life --------------------------------------------------------------------------
    async def start(self) -> None:
        for line in device_lines(await asyncio.to_thread(backend_devices)):
            log.info("backend device %s", line)
        await self.load(self.default_id)
        for model_id in self.settings.preload:
            await self.load(model_id)
        for model in list(self._models.values()):
            if model.entry.eager:
                await self.load(model.entry.id)
        if any(m.entry.idle_timeout_s > 0 for m in self._models.values()):
            self._idle_task = asyncio.create_task(self._unload_idle(), name="idle-unloader")

    async def close(self) -> None:
        if self._idle_task is not None:
            self._idle_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._idle_task
        for model in self._models.values():
            if model.served is not None:
                await asyncio.to_thread(model.served.close)
                model.served = None


def _device_bytes(loaded: LoadedModel) -> dict[str, int]:
    """What a loaded model holds on each offload device."""
    placed = placement_of(loaded)
    return placed.device_bytes if placed is not None else {}
