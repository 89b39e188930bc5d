"""With --gather-ms, an idle engine's first decode waits for requests still on their way from the HTTP layer (the
ARRIVALS), so a burst is prefilled in one decode; the wait ends when they are queued, and never lasts beyond
--gather-ms (off by default). On the bundled model, in process: the HTTP layer's part is played by RequestScopes."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import pytest

from superfluid.engine import request_scope
from superfluid.engine.models.model_sources import DEFAULT_MODEL, resolve
from superfluid.engine.models.served_model import ServedModel
from superfluid.engine.scheduling.stream import GenerationStream
from superfluid.engine.types import ChatMessage, ChatPrompt, Finished, GenerationRequest, SamplingParams
from superfluid.settings import Settings

pytestmark = pytest.mark.filterwarnings("ignore:llama_token_get_attr is deprecated:DeprecationWarning")
"""llama-cpp-python calls its own deprecated name once per vocabulary entry while a model loads."""


@pytest.fixture(scope="module")
def served() -> Iterator[ServedModel]:
    settings = Settings(models=(DEFAULT_MODEL,), threads=2, parallel=2, ctx_size=1024, gather_ms=20)
    model = ServedModel.load(DEFAULT_MODEL, resolve(DEFAULT_MODEL), settings)
    yield model
    model.close()


@pytest.fixture(autouse=True)
def arrivals(monkeypatch: pytest.MonkeyPatch) -> request_scope.Arrivals:
    """A count of its own for each test: one that failed halfway leaves nothing counted for the next."""
    fresh = request_scope.Arrivals()
    monkeypatch.setattr(request_scope, "ARRIVALS", fresh)
    return fresh


def _request(served: ServedModel, text: str) -> GenerationRequest:
    return GenerationRequest(model=served.id, prompt=ChatPrompt(messages=(ChatMessage(role="user", content=text),)),
                             max_tokens=2, sampling=SamplingParams(temperature=0))


def _submit(served: ServedModel, scope: request_scope.RequestScope, text: str) -> GenerationStream:
    token = request_scope.CURRENT.set(scope)
    try:
        return served.generate(_request(served, text))
    finally:
        request_scope.CURRENT.reset(token)


async def _finish(stream: GenerationStream) -> None:
    assert [e async for e in stream.events() if isinstance(e, Finished)]


def _prefills(served: ServedModel) -> int:
    return served._scheduler.stats.decodes["prefill"].calls


def test_a_burst_still_on_its_way_is_prefilled_with_the_first_request(served: ServedModel,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(served._scheduler, "gather_s", 30.0)  # the second lands long before: no race on a slow host
    stats = served._scheduler.stats

    async def burst() -> None:
        first, second = request_scope.RequestScope(), request_scope.RequestScope()
        first.arriving()
        second.arriving()  # both bodies read; the second is still being templated when the first is queued
        one = _submit(served, first, "Name a river in Spain.")
        deadline = time.monotonic() + 60
        while served._scheduler.queued and time.monotonic() < deadline:
            await asyncio.sleep(0.005)  # the engine admits the first, then waits for the second
        two = _submit(served, second, "Name a mountain in Peru.")
        await asyncio.gather(_finish(one), _finish(two))

    prefills, gathers, waited = _prefills(served), stats.gathers, stats.gather_seconds
    asyncio.run(burst())
    assert _prefills(served) - prefills == 1  # both prompts in one decode
    assert stats.gathers - gathers == 1
    assert 0 < stats.gather_seconds - waited < 10  # it waited for the second request, not for gather_s


def test_gather_ms_reaches_the_scheduler(served: ServedModel) -> None:
    assert served._scheduler.gather_s == 0.02


def test_one_request_at_a_time_never_waits(served: ServedModel) -> None:
    stats = served._scheduler.stats

    async def one() -> None:
        scope = request_scope.RequestScope()
        scope.arriving()
        await _finish(_submit(served, scope, "Name a lake in Chile."))

    prefills, gathers = _prefills(served), stats.gathers
    for _ in range(3):
        asyncio.run(one())
    assert (_prefills(served) - prefills, stats.gathers - gathers) == (3, 0)


def test_a_request_that_never_lands_holds_the_first_decode_for_gather_s_at_most(
        served: ServedModel, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(served._scheduler, "gather_s", 0.2)
    stats = served._scheduler.stats
    elsewhere = request_scope.RequestScope()
    elsewhere.arriving()  # a request on its way to another model, or one that will fail validation

    async def one() -> None:
        scope = request_scope.RequestScope()
        scope.arriving()
        await _finish(_submit(served, scope, "Name a desert in Asia."))

    gathers, waited = stats.gathers, stats.gather_seconds
    try:
        asyncio.run(one())
    finally:
        elsewhere.landed()
    assert stats.gathers - gathers == 1
    assert 0.2 <= stats.gather_seconds - waited < 5


def test_gather_ms_zero_never_waits(served: ServedModel, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(served._scheduler, "gather_s", 0.0)  # --gather-ms 0, the default
    stats = served._scheduler.stats
    elsewhere = request_scope.RequestScope()
    elsewhere.arriving()

    async def one() -> None:
        scope = request_scope.RequestScope()
        scope.arriving()
        await _finish(_submit(served, scope, "Name a forest in Canada."))

    gathers = stats.gathers
    try:
        asyncio.run(one())
    finally:
        elsewhere.landed()
    assert stats.gathers == gathers
