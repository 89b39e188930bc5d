"""The model lifecycle: load on demand (shared), leases, unload after running requests, idle timeout, LRU under
--models-max, allow-lists. The loader is a stand-in: no weights are read."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any, TypeVar

import pytest

from superfluid.engine import request_scope
from superfluid.engine.models.catalog import ModelEntry
from superfluid.engine.models.model_sources import ModelSource
from superfluid.engine.models.registry import ModelRegistry
from superfluid.engine.request_scope import RequestScope
from superfluid.engine.scheduling.stats import EngineStats
from superfluid.errors import AdapterRefused, EngineFailure, ModelNotFound
from superfluid.settings import Settings

T = TypeVar("T")


class FakeProfile:
    """What the registry reads before loading: the model's kind (ids starting 'embed' are embedding models)."""

    def __init__(self, model_id: str) -> None:
        self.id = model_id
        self.kind = "embedding" if model_id.startswith("embed") else "generation"


def probe(model_id: str, source: ModelSource, settings: Settings) -> Any:
    return FakeProfile(model_id)


class FakeAdapters:
    """A served model's LoRA adapters: records the loads, refuses names starting with "gone"."""

    def __init__(self) -> None:
        self.active: tuple[Any, ...] = ()
        self.loads: list[tuple[str, float, bool]] = []

    async def load(self, name: str, scale: float, *, apply: bool = True) -> None:
        self.loads.append((name, scale, apply))
        if name.startswith("gone"):
            raise AdapterRefused(f"there is no adapter file '{name}' in the adapters directory")
        if apply:
            self.active = (*self.active, SimpleNamespace(id=name, scale=scale))


class FakeServed:
    def __init__(self, model_id: str) -> None:
        self.id = model_id
        self.profile = FakeProfile(model_id)
        self.idle = True
        self.closed = False
        self.lora = FakeAdapters()

    @property
    def adapters(self) -> Any:
        return self.lora.active

    async def load_adapter(self, name: str, scale: float, *, apply: bool = True) -> Any:
        return await self.lora.load(name, scale, apply=apply)

    def close(self) -> None:
        self.closed = True


class Loader:
    """Counts loads; each takes ``delay_s`` (in the worker thread, as a real load does); ``fail`` ids raise."""

    def __init__(self, delay_s: float = 0.05, fail: frozenset[str] = frozenset()) -> None:
        self.delay_s = delay_s
        self.fail = fail
        self.calls: list[str] = []
        self.made: list[FakeServed] = []
        self._lock = threading.Lock()

    def __call__(self, model_id: str, source: ModelSource, settings: Settings, stats: EngineStats) -> Any:
        with self._lock:
            self.calls.append(model_id)
        time.sleep(self.delay_s)
        if model_id in self.fail:
            raise EngineFailure(f"llama.cpp could not load {model_id}")
        served = FakeServed(model_id)
        self.made.append(served)
        return served


@pytest.fixture
def models(tmp_path: Path) -> tuple[str, ...]:
    paths = []
    for name in ("alpha", "beta", "gamma"):
        path = tmp_path / f"{name}.gguf"
        path.write_bytes(b"GGUF")
        paths.append(str(path))
    return tuple(paths)


def _registry(models: tuple[str, ...], loader: Loader, **settings: Any) -> ModelRegistry:
    return ModelRegistry(Settings(models=models, **settings), loader=loader, prober=probe)  # type: ignore[arg-type]


def run(coro: Callable[[], Awaitable[T]]) -> T:
    return asyncio.run(coro())  # type: ignore[arg-type]


def test_concurrent_requests_share_one_load(models: tuple[str, ...]) -> None:
    loader = Loader(delay_s=0.2)
    registry = _registry(models, loader)

    async def scenario() -> None:
        served = await asyncio.gather(*(registry.get("beta") for _ in range(5)))
        assert len({id(s) for s in served}) == 1
        assert registry.state("beta") == "loaded"

    run(scenario)
    assert loader.calls == ["beta"]
    assert registry.figures()[1][5].loads == {"ok": 1}


def test_a_loading_model_shows_its_waiting_requests(models: tuple[str, ...]) -> None:
    registry = _registry(models, Loader(delay_s=0.3))

    async def scenario() -> None:
        waiters = [asyncio.ensure_future(registry.get("gamma")) for _ in range(3)]
        await asyncio.sleep(0.1)
        assert (registry.state("gamma"), registry.load_waiting("gamma")) == ("loading", 3)
        await asyncio.gather(*waiters)
        assert (registry.state("gamma"), registry.load_waiting("gamma")) == ("loaded", 0)

    run(scenario)


def test_a_failed_load_fails_every_waiter_and_is_tried_again_later(models: tuple[str, ...]) -> None:
    loader = Loader(fail=frozenset({"beta"}))
    registry = _registry(models, loader)

    async def scenario() -> None:
        results = await asyncio.gather(*(registry.get("beta") for _ in range(3)), return_exceptions=True)
        assert all(isinstance(r, EngineFailure) for r in results)
        with pytest.raises(EngineFailure):
            await registry.get("beta")

    run(scenario)
    assert loader.calls == ["beta", "beta"]
    assert registry.figures()[1][5].loads == {"failed": 2}


def test_discovery_never_loads(models: tuple[str, ...]) -> None:
    loader = Loader()
    registry = _registry(models, loader)

    async def scenario() -> None:
        with pytest.raises(ModelNotFound):
            await registry.get("beta", autoload=False)
        assert registry.loaded == {} and list(registry.sources) == ["alpha", "beta", "gamma"]

    run(scenario)
    assert loader.calls == []


def test_unload_waits_for_leases_and_new_requests_wait_for_the_reload(models: tuple[str, ...]) -> None:
    loader = Loader()
    registry = _registry(models, loader)

    async def scenario() -> None:
        scope = RequestScope()
        token = request_scope.CURRENT.set(scope)
        first = await registry.get("alpha")
        request_scope.CURRENT.reset(token)
        unloading = asyncio.ensure_future(registry.unload("alpha"))
        await asyncio.sleep(0.1)
        assert registry.state("alpha") == "unloading" and not unloading.done()
        assert not first.closed  # type: ignore[attr-defined]
        later = asyncio.ensure_future(registry.get("alpha"))  # arrives while the unload waits
        await asyncio.sleep(0.1)
        assert not later.done() and registry.load_waiting("alpha") == 1
        scope.release()  # the running request's response is over
        await unloading
        assert first.closed  # type: ignore[attr-defined]
        second = await later
        assert second is not first and registry.state("alpha") == "loaded"

    run(scenario)
    assert loader.calls == ["alpha", "alpha"]
    assert registry.figures()[0][5].unloads == {"admin": 1}


def test_unload_also_waits_for_work_the_engine_still_holds(models: tuple[str, ...]) -> None:
    registry = _registry(models, Loader())

    async def scenario() -> None:
        served = await registry.load("alpha")
        served.idle = False  # type: ignore[misc]
        unloading = asyncio.ensure_future(registry.unload("alpha"))
        await asyncio.sleep(0.15)
        assert not unloading.done()
        served.idle = True  # type: ignore[misc]
        await asyncio.wait_for(unloading, 1)

    run(scenario)


def test_idle_models_unload_after_their_timeout(models: tuple[str, ...]) -> None:
    registry = _registry(models, Loader(), idle_timeout_s=0.3)

    async def scenario() -> None:
        await registry.start()
        scope = RequestScope()
        token = request_scope.CURRENT.set(scope)
        await registry.get("beta")  # held by a running request: not idle
        request_scope.CURRENT.reset(token)
        await asyncio.sleep(0.8)
        assert registry.state("alpha") == "unloaded"
        assert registry.state("beta") == "loaded"
        scope.release()
        await asyncio.sleep(0.8)
        assert registry.state("beta") == "unloaded"
        await registry.close()

    run(scenario)
    assert registry.figures()[0][5].unloads == {"idle": 1}


def test_models_max_unloads_the_least_recently_used(models: tuple[str, ...]) -> None:
    loader = Loader()
    registry = _registry(models, loader, models_max=2)

    async def scenario() -> None:
        await registry.get("alpha")
        await registry.get("beta")
        await registry.get("alpha")  # alpha used last: beta is the least recently used
        await registry.get("gamma")
        assert sorted(registry.loaded) == ["alpha", "gamma"]
        assert registry.figures()[1][5].unloads == {"lru": 1}
        # concurrent loads of two more models still never exceed the limit
        await asyncio.gather(registry.get("beta"), registry.get("gamma"), registry.get("alpha"))
        assert len(registry.loaded) <= 2

    run(scenario)


def test_the_allow_list_hides_other_models(models: tuple[str, ...]) -> None:
    loader = Loader()
    registry = _registry(models, loader)

    async def scenario() -> None:
        token = request_scope.CURRENT.set(RequestScope(allowed_models=frozenset({"beta"})))
        try:
            assert list(registry.sources) == ["beta"]
            with pytest.raises(ModelNotFound):
                await registry.get("alpha")
            with pytest.raises(ModelNotFound):
                registry.canonical("gamma")
            assert (await registry.get("beta")).id == "beta"
        finally:
            request_scope.CURRENT.reset(token)
        assert list(registry.sources) == ["alpha", "beta", "gamma"]

    run(scenario)


def test_added_models_become_known_and_a_failed_one_can_be_forgotten(models: tuple[str, ...], tmp_path: Path) -> None:
    registry = _registry(models[:1], Loader(fail=frozenset({"broken"})))
    extra = tmp_path / "broken.gguf"
    source = ModelSource("broken", "path", lambda: extra)
    entry = ModelEntry(id="broken", source=source, settings=registry.settings)

    async def scenario() -> None:
        assert await registry.add(entry) == "broken"
        assert registry.is_known("broken")
        with pytest.raises(EngineFailure):
            await registry.load("broken")
        registry.forget("broken")
        assert not registry.is_known("broken")

    run(scenario)


def test_lease_keeps_a_model_for_work_outside_requests(models: tuple[str, ...]) -> None:
    registry = _registry(models, Loader())

    async def scenario() -> None:
        async with registry.lease("beta") as served:
            unloading = asyncio.ensure_future(registry.unload("beta"))
            await asyncio.sleep(0.1)
            assert not unloading.done() and not served.closed  # type: ignore[attr-defined]
        await asyncio.wait_for(unloading, 1)

    run(scenario)


def test_lora_adapters_start_on_the_default_model_and_come_back_after_an_unload(models: tuple[str, ...]) -> None:
    loader = Loader()
    registry = _registry(models, loader, lora=(("a.gguf", 0.5),))

    async def scenario() -> None:
        await registry.start()
        await registry.load("beta")
        assert loader.made[0].lora.loads == [("a.gguf", 0.5, True)]  # the default model only
        assert loader.made[1].lora.loads == []
        loader.made[0].lora.active += (SimpleNamespace(id="gone.gguf", scale=2.0),)  # activated, then deleted
        await registry.unload("alpha")
        await registry.load("alpha")
        assert loader.made[2].lora.loads == [("a.gguf", 0.5, True), ("gone.gguf", 2.0, True)]
        assert [a.id for a in loader.made[2].lora.active] == ["a.gguf"]  # the one whose file went is left off

    run(scenario)


def test_a_start_up_adapter_that_does_not_load_fails_the_start(models: tuple[str, ...]) -> None:
    loader = Loader()
    registry = _registry(models, loader, lora=(("gone.gguf", 1.0),))
    with pytest.raises(AdapterRefused):
        run(registry.start)
    assert loader.made[0].closed and registry.state("alpha") == "unloaded"


def test_start_up_adapters_on_a_default_model_of_another_kind_fail_the_start(tmp_path: Path) -> None:
    path = tmp_path / "embedder.gguf"
    path.write_bytes(b"GGUF")
    loader = Loader()
    registry = _registry((str(path),), loader, lora=(("a.gguf", 1.0),))
    with pytest.raises(AdapterRefused, match="apply to generation models"):
        run(registry.start)
    assert loader.made[0].lora.loads == [] and loader.made[0].closed


def test_a_model_of_another_kind_unloads_and_loads_again_without_adapters(tmp_path: Path) -> None:
    path = tmp_path / "embedder.gguf"
    path.write_bytes(b"GGUF")
    loader = Loader()
    registry = _registry((str(path),), loader)

    async def scenario() -> None:
        await registry.start()
        loader.made[0].lora.active = (SimpleNamespace(id="a.gguf", scale=1.0),)  # what no embedder can have
        await registry.unload("embedder")
        await registry.load("embedder")
        assert loader.made[1].lora.loads == []  # nothing was saved from it, nothing goes back on

    run(scenario)
