"""Fleet benchmark: prefix-aware routing against Ray Serve's default router (power of two choices).

Eight conversations, each with its own ~1,500-token system prompt, are continued for several turns through a
2-replica fleet (one thread each), once with each router, in one run: the turns go round-robin over the
conversations (turn 1 of all eight, then turn 2 of all eight, ...), one request at a time, so every routing
decision sees the same history. Replicas are sized to hold all eight conversations (8 lanes, a KV pool of
16k cells), so a cold continuation is the router's doing, never the cache's.

Measured per router, on continuation turns (turn 2 on): the share served warm, read from the reply's
``usage.prompt_tokens_details.cached_tokens`` (``> 0``, as the issue counts it, and ``>= the system prompt``,
which excludes the few tokens of chat-template preamble every prompt shares), and the p50 time to the first
content delta. Target: prefix-aware >= 90% warm, the default router about half.

Run: ``python -m benchmarks.fleet [--turns 3] [--record]``; results go to stdout and, with ``--record``, to
benchmarks/results/fleet.txt. Needs the fleet extra (``pip install -e '.[fleet]'``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from conformance.fleet_server import start_fleet, stop_fleet

from benchmarks.recording import record
from superfluid.engine.models.model_sources import DEFAULT_MODEL

CONVERSATIONS = 8
WORDS = ("river", "copper", "lantern", "orchard", "signal", "harbor", "meadow", "granite", "falcon", "ember",
         "violet", "canyon", "ledger", "compass", "thimble", "quarry", "saddle", "beacon", "willow", "anchor")
FLAGS = ["--replicas", "2", "--threads", "1", "--replica-cpus", "1", "--parallel", "8", "--ctx-size", "4096",
         "--kv-size", "16384", "--spec-draft", "0"]


def system_prompt(index: int, words: int = 1100) -> str:
    """About 1,500 tokens of rules, different from the first word for every conversation."""
    rng = random.Random(index)
    sentences = [f"Handbook {index} for the {rng.choice(WORDS)} desk."]
    while sum(len(s.split()) for s in sentences) < words:
        picked = rng.sample(WORDS, 6)
        sentences.append(f"Rule {len(sentences)}: keep the {picked[0]} near the {picked[1]}, never mix "
                         f"{picked[2]} with {picked[3]}, and report {picked[4]} before {picked[5]}.")
    return " ".join(sentences)


@dataclass
class Conversation:
    index: int
    messages: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.messages = [{"role": "system", "content": system_prompt(self.index)}]


@dataclass
class Turn:
    conversation: int
    turn: int
    prompt_tokens: int
    cached_tokens: int
    ttft_s: float
    replica: str


@dataclass
class Streamed:
    """One streamed chat reply: its text, usage, time to its first content and the response's headers."""

    text: str
    usage: dict[str, Any]
    ttft_s: float
    headers: httpx.Headers


def stream_chat(http: httpx.Client, body: dict[str, Any]) -> Streamed:
    """Send ``body`` (a streaming chat completion) and read the reply; an error frame raises httpx.HTTPError."""
    started = time.perf_counter()
    ttft = None
    text, usage = "", {}
    with http.stream("POST", "/v1/chat/completions", json=body) as response:
        response.raise_for_status()
        for line in response.iter_lines():
            if not line.startswith("data: ") or line == "data: [DONE]":
                continue
            chunk = json.loads(line[6:])
            if "error" in chunk:
                raise httpx.HTTPError(str(chunk["error"]))
            for choice in chunk.get("choices", ()):
                content = choice["delta"].get("content")
                if content:
                    ttft = ttft if ttft is not None else time.perf_counter() - started
                    text += content
            usage = chunk.get("usage") or usage
    return Streamed(text, usage, ttft if ttft is not None else time.perf_counter() - started, response.headers)


def _turn(http: httpx.Client, conversation: Conversation, turn: int, system_tokens: int) -> Turn:
    conversation.messages.append({"role": "user", "content": f"Question {turn}: which rule names the "
                                                             f"{WORDS[(turn * 3 + conversation.index) % 20]}?"})
    body = {"model": DEFAULT_MODEL, "messages": conversation.messages, "max_tokens": 12, "temperature": 0,
            "stream": True, "stream_options": {"include_usage": True}}
    reply = stream_chat(http, body)
    conversation.messages.append({"role": "assistant", "content": reply.text})
    cached = int(reply.usage["prompt_tokens_details"]["cached_tokens"])
    return Turn(conversation.index, turn, int(reply.usage["prompt_tokens"]), cached, reply.ttft_s,
                reply.headers.get("x-superfluid-replica", ""))


def run_router(router: str, turns: int, work: Path) -> list[Turn]:
    fleet = start_fleet([DEFAULT_MODEL, *FLAGS, "--router", router], work / f"fleet-{router}.log")
    try:
        with httpx.Client(base_url=fleet.base_url, timeout=600) as http:
            tokens = http.post("/v1/tokenize", json={"model": DEFAULT_MODEL, "content": system_prompt(0)})
            system_tokens = len(tokens.json()["tokens"])
            conversations = [Conversation(i) for i in range(CONVERSATIONS)]
            return [_turn(http, c, t, system_tokens) for t in range(1, turns + 1) for c in conversations]
    finally:
        stop_fleet(fleet)


def summary(router: str, results: list[Turn], system_tokens: int) -> str:
    later = [t for t in results if t.turn > 1]
    warm_any = sum(t.cached_tokens > 0 for t in later) / len(later)
    warm_system = sum(t.cached_tokens >= system_tokens for t in later) / len(later)
    ttft = statistics.median(t.ttft_s for t in later) * 1000
    mean = statistics.fmean(t.ttft_s for t in later) * 1000
    p90 = statistics.quantiles([t.ttft_s for t in later], n=10)[-1] * 1000
    first = statistics.median(t.ttft_s for t in results if t.turn == 1) * 1000
    moves = sum(1 for t in later if t.replica != next(p.replica for p in results
                                                      if p.conversation == t.conversation and p.turn == t.turn - 1))
    return (f"{router:13s} continuation turns {len(later):3d}  warm (cached>0) {warm_any:6.1%}  "
            f"warm (cached>=system prompt) {warm_system:6.1%}  p50 TTFT {ttft:7.1f} ms  mean {mean:7.1f} ms  "
            f"p90 {p90:7.1f} ms  "
            f"(first turns {first:7.1f} ms)  replica changes {moves}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--turns", type=int, default=3)
    parser.add_argument("--record", action="store_true")
    args = parser.parse_args()
    results: dict[str, list[Turn]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for router in ("prefix", "power-of-two"):
            results[router] = run_router(router, args.turns, Path(tmp))
            system_tokens = min(t.prompt_tokens for t in results["prefix"] if t.turn == 1) - 40
            print(summary(router, results[router], system_tokens), flush=True)
    load = os.getloadavg()
    lines = [f"fleet: {CONVERSATIONS} conversations x {args.turns} turns, ~{system_tokens}-token system prompts, "
             f"2 replicas x 1 thread, {DEFAULT_MODEL}",
             f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, load "
             f"{load[0]:.1f}/{load[1]:.1f}/{load[2]:.1f} (shared with other work: TTFTs are skewed, ratios less so)",
             *(summary(router, turns, system_tokens) for router, turns in results.items())]
    report = "\n".join(lines)
    print(report)
    if args.record:
        print(f"recorded in {record('fleet', report)}")


if __name__ == "__main__":
    main()
