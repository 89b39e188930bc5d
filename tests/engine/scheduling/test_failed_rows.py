"""One request's rows that llama.cpp refuses fail that request alone: the others stream on to the same greedy
text, and every lane keeps its cache. On the bundled model, in process: a request whose prompt holds a token
outside the vocabulary (which no HTTP route can send: the handlers tokenize text) is queued while three
others stream; ``llama_decode`` refuses the batch, the engine finds the lane whose rows caused it, fails that
request, and decodes the rest in the next tick."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Iterator
from typing import Any

import pytest

from superfluid.engine import request_scope
from superfluid.engine.models.model_sources import DEFAULT_MODEL, resolve
from superfluid.engine.models.served_model import ServedModel
from superfluid.engine.scheduling.stream import GenerationStream
from superfluid.engine.types import ChatMessage, ChatPrompt, GenerationRequest, SamplingParams, TextDelta
from superfluid.errors import EngineFailure
from superfluid.settings import Settings

pytestmark = pytest.mark.filterwarnings("ignore:llama_token_get_attr is deprecated:DeprecationWarning")

PROMPTS = ("Name three rivers in Europe.", "Write one sentence about autumn.", "Describe a cat in five words.")


@pytest.fixture(scope="module")
def served() -> Iterator[ServedModel]:
    settings = Settings(models=(DEFAULT_MODEL,), threads=2, parallel=4, ctx_size=2048, kv_disk_bytes=0, spec_draft=0,
                        gather_ms=30_000)
    model = ServedModel.load(DEFAULT_MODEL, resolve(DEFAULT_MODEL), settings)
    yield model
    model.close()


def _request(served: ServedModel, text: str, max_tokens: int = 24) -> GenerationRequest:
    return GenerationRequest(model=served.id, prompt=ChatPrompt(messages=(ChatMessage(role="user", content=text),)),
                             max_tokens=max_tokens, sampling=SamplingParams(temperature=0), logprobs=2)


Reply = dict[str, Any]


def _together(served: ServedModel, texts: tuple[str, ...]) -> list[GenerationStream]:
    """The requests queued so that the engine admits them in one tick, whatever the timing: each is counted as on
    its way before the first is queued, and the engine's first decode after idle waits for those (--gather-ms)."""
    scopes = [request_scope.RequestScope() for _ in texts]
    for scope in scopes:
        scope.arriving()
    streams = []
    for scope, text in zip(scopes, texts, strict=True):
        token = request_scope.CURRENT.set(scope)
        try:
            streams.append(served.generate(_request(served, text)))
        finally:
            request_scope.CURRENT.reset(token)
    return streams


async def _text(stream: GenerationStream, started: asyncio.Event | None = None) -> Reply:
    """The reply in the shape conformance.near_tie reads: its tokens, their two likeliest, the finish reason."""
    steps: list[dict[str, Any]] = []
    finish = None
    async for event in stream.events():
        if isinstance(event, TextDelta):
            steps += [{"token": lp.token, "top_logprobs": [{"logprob": top.logprob} for top in lp.top]}
                      for lp in event.logprobs]
            if started is not None and event.completion_tokens >= 4:
                started.set()
        else:
            finish = event.finish_reason
    return {"choices": [{"logprobs": {"content": steps}, "finish_reason": finish}]}


def test_a_refused_request_fails_alone_while_others_stream(served: ServedModel) -> None:
    stats = served._scheduler.stats

    async def together() -> list[Reply]:
        return list(await asyncio.gather(*(_text(stream) for stream in _together(served, PROMPTS))))

    async def beside_a_bad_one() -> tuple[list[Reply], BaseException | None]:
        started = asyncio.Event()
        streams = [asyncio.create_task(_text(stream, started)) for stream in _together(served, PROMPTS)]
        await started.wait()  # the three are decoding
        request = _request(served, "Say something.")
        prepared = served.prepare(request)
        bad = dataclasses.replace(prepared, tokens=(*prepared.tokens[:-1], served.n_vocab + 7, prepared.tokens[-1]))
        failure: BaseException | None = None
        try:
            async for _ in served.generate(request, bad).events():
                pass
        except EngineFailure as exc:
            failure = exc
        return list(await asyncio.gather(*streams)), failure

    asyncio.run(together())  # the lanes now hold the three prompts: the runs below prefill alike
    expected = asyncio.run(together())
    errors = stats.finished.get("error", 0)
    texts, failure = asyncio.run(beside_a_bad_one())
    assert isinstance(failure, EngineFailure)
    assert stats.finished.get("error", 0) == errors + 1  # that request only
    assert texts == expected  # the same batches, less one tick that decoded nothing: the same bits
    lanes = served.slot_view()["lanes"]
    assert sorted(lane["cached_tokens"] > 0 for lane in lanes) == [False, True, True, True]  # caches kept

    async def again() -> int:
        [stream] = _together(served, PROMPTS[:1])
        cached = await stream.admitted()
        async for _ in stream.events():
            pass
        return cached

    assert asyncio.run(again()) > 0  # the lanes still serve their prefixes
