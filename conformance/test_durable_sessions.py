"""Durable sessions with the default flags: no conversation goes cold because others came between
(docs/scheduling.md, "The RAM and disk tiers").

Plain `superfluid serve`: four lanes share one 8,192-cell KV pool. Six conversations of about 2,000 tokens each
take turns, more than the pool holds; when a decode finds no room, the least recently used idle lane is saved
(to the RAM tier and the disk tier) before its cells are freed. Each conversation then comes back at least 90%
cached, with the same greedy reply as when it was warm in its lane (up to a near tie), and the disk tier has
saved. A model unloaded and loaded again, and a Responses chain after a restart, are warm too.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from conformance.near_tie import same_up_to_a_near_tie
from conformance.server import DEFAULT_MODEL, RunningServer, start_server, stop_server

CONVERSATIONS = 6
WARM = 0.9
WORDS = ["amber", "birch", "cinder", "delta", "ember", "fjord", "granite", "heron", "indigo", "juniper", "kestrel",
         "lagoon", "meadow", "nectar", "opal", "pine"]


def _system(seed: int, words: int = 1350) -> str:
    """About 2,000 tokens that share nothing but the template's start with another seed's."""
    rnd = random.Random(seed)
    return f"Conversation {seed}. Remember these words: " + " ".join(rnd.choice(WORDS) for _ in range(words))


def _chat(http: httpx.Client, seed: int, question: str = "Which word comes first?") -> dict[str, Any]:
    body = {"model": DEFAULT_MODEL, "max_tokens": 8, "temperature": 0, "logprobs": True, "top_logprobs": 2,
            "messages": [{"role": "system", "content": _system(seed)}, {"role": "user", "content": question}]}
    reply = http.post("/v1/chat/completions", json=body)
    assert reply.status_code == 200, reply.text
    return dict(reply.json())


def _cached(reply: dict[str, Any]) -> float:
    usage = reply["usage"]
    return float(usage["prompt_tokens_details"]["cached_tokens"] / usage["prompt_tokens"])


@pytest.fixture(scope="module")
def plain(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    """`superfluid serve` with no flags but its sessions directory (start_server adds it)."""
    base = tmp_path_factory.mktemp("durable")
    server = start_server([], base / "serve.log")
    yield server
    stop_server(server)


def test_more_conversations_than_the_pool_holds_all_come_back_warm(plain: RunningServer) -> None:
    with httpx.Client(base_url=plain.base_url, timeout=600) as http:
        pool = http.get("/slots").json()[0]["kv_pool"]
        assert pool["size_tokens"] == 8192 and len(http.get("/slots").json()[0]["lanes"]) == 4
        first = [_chat(http, seed) for seed in range(CONVERSATIONS)]
        assert sum(r["usage"]["prompt_tokens"] for r in first) > 1.4 * pool["size_tokens"]
        back = [_chat(http, seed) for seed in range(CONVERSATIONS)]
        warm = [_chat(http, seed) for seed in range(CONVERSATIONS - 2, CONVERSATIONS)]  # still in their lanes
        slots = http.get("/slots").json()[0]
    for seed, reply in enumerate(back):
        assert _cached(reply) >= WARM, (seed, reply["usage"])
        same_up_to_a_near_tie(reply, first[seed])
    for reply in warm:
        assert _cached(reply) >= WARM
    tier = slots["kv_disk"]
    assert tier["saves"] > 0 and tier["restores"] >= CONVERSATIONS - 2, tier
    assert tier["ram_restores"] > 0, tier  # the RAM tier served them, not a file read


def test_a_model_unloaded_and_loaded_again_serves_its_conversations_warm(plain: RunningServer) -> None:
    with httpx.Client(base_url=plain.base_url, timeout=600) as http:
        before = _chat(http, 100)
        assert http.post("/v1/models/unload", json={"model": DEFAULT_MODEL}).status_code == 200
        again = _chat(http, 100)
    assert _cached(again) >= WARM, again["usage"]
    same_up_to_a_near_tie(again, before)


def test_a_responses_chain_continued_after_a_restart_is_warm(tmp_path: Path) -> None:
    def respond(server: RunningServer, **body: Any) -> dict[str, Any]:
        reply = httpx.post(server.base_url + "/v1/responses", timeout=600, json={
            "model": DEFAULT_MODEL, "max_output_tokens": 8, "temperature": 0, **body})
        assert reply.status_code == 200, reply.text
        return dict(reply.json())

    server = start_server([], tmp_path / "first.log")
    try:
        # The words go in the input: a chain carries earlier input and output, not earlier instructions.
        turn = respond(server, input=_system(200) + "\n\nWhich word comes first?")
    finally:
        stop_server(server)  # a clean stop saves the lanes
    server = start_server([], tmp_path / "second.log")
    try:
        follow = respond(server, previous_response_id=turn["id"], input="And which comes last?")
    finally:
        stop_server(server)
    usage = follow["usage"]
    reused = turn["usage"]["input_tokens"] + turn["usage"]["output_tokens"]
    assert usage["input_tokens_details"]["cached_tokens"] >= WARM * reused, (usage, turn["usage"])
