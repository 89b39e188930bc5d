"""The scheduler on the real model with a KV stream per lane (``--kv-size`` = lanes x window, docs/scheduling.md
"KV layout"): prefixes are still reused within and across lanes (copied between streams), ``n`` choices still
share one prefill, concurrent lanes sit side by side so llama.cpp decodes them in one pass, greedy text agrees
with one-at-a-time serving up to a near-tie, and a reply that fills its lane's whole stream ends with length."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from conformance.near_tie import same_up_to_a_near_tie
from conformance.server import DEFAULT_MODEL, SECOND_MODEL, RunningServer, start_server, stop_server
from conformance.test_scheduler import PROMPTS, _chat, _stream_text

WINDOW = 1024
LANES = 4


@pytest.fixture(scope="module")
def streams(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    log_path = tmp_path_factory.mktemp("kv-streams") / "serve.log"
    running = start_server([DEFAULT_MODEL, SECOND_MODEL, "--parallel", str(LANES), "--ctx-size", str(WINDOW),
                            "--kv-size", str(LANES * WINDOW), "--http-allow-batch-invariant"], log_path)
    yield running
    stop_server(running)


@pytest.fixture
def http(streams: RunningServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=streams.base_url, timeout=300) as client:
        yield client


def _slot(http: httpx.Client, model: str = DEFAULT_MODEL) -> dict[str, Any]:
    return dict(http.get("/slots", params={"model": model}).json()[0])


def _prefilled(http: httpx.Client) -> int:
    return int(_slot(http)["totals"]["prefilled_tokens"])


def test_the_pool_is_a_stream_per_lane(http: httpx.Client) -> None:
    whole = http.get("/props").json()
    props = whole["kv_cache"]
    assert props["unified"] is False and props["size_tokens"] == LANES * WINDOW
    assert _slot(http)["kv_pool"]["unified"] is False
    # --flash-attn auto: off where every lane attends only to its own stream (docs/performance.md)
    assert whole["flash_attention"] == "off"


def test_a_repeated_prompt_is_served_warm_with_the_same_output(http: httpx.Client) -> None:
    body = {"model": DEFAULT_MODEL, "max_tokens": 16, "temperature": 0, "logprobs": True, "top_logprobs": 2,
            "messages": [{"role": "system", "content": "You are a terse assistant. " * 40},
                         {"role": "user", "content": "Say a fruit."}]}
    cold = http.post("/v1/chat/completions", json=body).json()
    warm = http.post("/v1/chat/completions", json=body).json()
    same_up_to_a_near_tie(warm, cold)  # after "I'm a fruit." the end token and " I" are almost tied
    assert warm["usage"]["prompt_tokens_details"]["cached_tokens"] == warm["usage"]["prompt_tokens"] - 1


@pytest.mark.parametrize(("model", "generated"), [(DEFAULT_MODEL, 1), (SECOND_MODEL, 400)])
def test_a_prefix_is_copied_from_a_busy_lane_and_gives_the_same_text(http: httpx.Client, streams: RunningServer,
                                                                      model: str, generated: int) -> None:
    # Gemma 3 has sliding-window layers (512 tokens): once its owner lane has generated 400 tokens past the shared
    # system prompt, the owner no longer attends to that prompt's cells on those layers, and a copy of its saved
    # state would leave them out (the whole stream is copied instead, see admission.py).
    # Not a repeated sentence: a model answers one of those by repeating it, whatever its cache holds.
    system = " ".join(f"Fact {i}: {i * 7} is {'even' if i * 7 % 2 == 0 else 'odd'}." for i in range(1, 21))
    long_one = {"model": model, "max_tokens": 700, "temperature": 0, "ignore_eos": True,
                "messages": [{"role": "system", "content": system}, {"role": "user", "content": "Count slowly."}]}
    ask = {**long_one, "max_tokens": 16, "ignore_eos": True, "logprobs": True, "top_logprobs": 2,
           "messages": [long_one["messages"][0], {"role": "user", "content": "Which fact is about 91?"}]}

    async def run() -> dict[str, Any]:
        async with httpx.AsyncClient(base_url=streams.base_url, timeout=300) as client:
            owner = asyncio.create_task(_stream_text(client, long_one))
            while True:  # (a model not loaded yet has no slots: 404)
                slots = (await client.get("/slots", params={"model": model})).json()
                if isinstance(slots, list) and any(lane["state"] == "decode" and lane["generated"] >= generated
                                                   for lane in slots[0]["lanes"]):
                    break
                await asyncio.sleep(0.05)
            reply = (await client.post("/v1/chat/completions", json=ask)).json()
            owner.cancel()
            await asyncio.gather(owner, return_exceptions=True)
            return dict(reply)

    reply = asyncio.run(run())  # no lane held this system prompt before: the copy came from the busy owner
    assert reply["usage"]["prompt_tokens_details"]["cached_tokens"] >= 150
    cold = http.post("/v1/chat/completions", json=ask, headers={"x-superfluid-batch-invariant": "1"}).json()
    assert cold["usage"]["prompt_tokens_details"]["cached_tokens"] == 0
    # Keys and values copied between streams are the numbers the donor computed, at the right positions: the reply
    # is the cold one on the batch-invariant lane, up to rounding in other batch shapes.
    same_up_to_a_near_tie(reply, cold)


def test_n_choices_share_one_prefill(http: httpx.Client) -> None:
    before = _prefilled(http)
    reply = http.post("/v1/chat/completions", json=_chat("Write about mountains. " * 30, max_tokens=4, n=3,
                                                         temperature=1.0, seed=3))
    assert reply.status_code == 200 and len(reply.json()["choices"]) == 3
    assert _prefilled(http) - before < 2 * reply.json()["usage"]["prompt_tokens"]


def test_concurrent_lanes_sit_side_by_side_and_agree_with_one_at_a_time(http: httpx.Client,
                                                                         streams: RunningServer) -> None:
    prompts = PROMPTS[:3]
    seen: list[list[int]] = []

    def body(prompt: str) -> dict[str, Any]:
        return _chat(prompt, max_tokens=48, ignore_eos=True, logprobs=True, top_logprobs=2)

    async def send(client: httpx.AsyncClient, prompt: str) -> dict[str, Any]:
        return dict((await client.post("/v1/chat/completions", json=body(prompt))).json())

    async def together() -> list[dict[str, Any]]:
        async with httpx.AsyncClient(base_url=streams.base_url, timeout=300) as client:
            tasks = [asyncio.create_task(send(client, p)) for p in prompts]
            while not all(task.done() for task in tasks):
                lanes = (await client.get("/slots")).json()[0]["lanes"]
                busy = [lane["seq"] for lane in lanes if lane["state"] != "idle" and lane["context"] == "shared"]
                if len(busy) == len(prompts):
                    seen.append(busy)
                await asyncio.sleep(0.02)
            return [task.result() for task in tasks]

    batched = asyncio.run(together())
    single = [http.post("/v1/chat/completions", json=body(p)).json() for p in prompts]
    assert seen, "the three streams never ran together"
    for busy in seen:  # consecutive lanes: one decode pass for all three
        assert busy == list(range(busy[0], busy[0] + len(busy))), busy
    for a, b in zip(batched, single, strict=True):
        same_up_to_a_near_tie(a, b)  # batched kernels round differently in the last bits


def test_a_reply_that_fills_the_lane_stream_ends_with_length(http: httpx.Client) -> None:
    # Each lane's stream holds exactly one window here (--kv-size = lanes x window): the reply runs to the last
    # cell of the stream, drafts included, and ends with length rather than a failed decode.
    prompt = "Count: " + "one two three four five six seven eight nine ten " * 90
    body = {"model": DEFAULT_MODEL, "prompt": prompt, "max_tokens": 600, "temperature": 0, "ignore_eos": True}
    started = time.monotonic()
    reply = http.post("/v1/completions", json=body).json()
    usage = reply["usage"]
    assert reply["choices"][0]["finish_reason"] == "length"
    assert usage["prompt_tokens"] + usage["completion_tokens"] == WINDOW, usage
    assert time.monotonic() - started < 120
    # The lane is free again and the server answers.
    again = http.post("/v1/completions", json={**body, "prompt": "Hello", "max_tokens": 4})
    assert again.status_code == 200
