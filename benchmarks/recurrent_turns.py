"""Follow-up turns on recurrent and hybrid models: time to first token cold and warm, superfluid beside llama-server
on the same file.

The models are written with random weights (conformance/random_models.py: the bundled model's tokenizer and chat
template): a pure recurrent Mamba and an LFM2 hybrid, wider than the test suite's so that a prefill takes time.
Each round is one conversation per server: a system prompt of about 1,500 tokens, then four user turns, each reply
32 greedy tokens, streamed. A follow-up is served from the prefix cache (superfluid: the lane's state or a
checkpoint; llama-server: its context checkpoints); "cold" is the last turn sent to a freshly started server. Both
servers get one lane and the machine's threads; who goes first alternates by round. Reported per model and server:
the median time to first token of the first turn, of the warm follow-ups and of the cold last turn, and the cached
share of the follow-ups.

Run: ``python -m benchmarks.recurrent_turns [--record] [--rounds 3]`` after ``benchmarks/build_llama_server.sh``.
Never part of the test suite.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from conformance.random_models import write_model

from benchmarks import peers, traffic
from benchmarks.recording import machine_line, record

MODELS: dict[str, dict[str, Any]] = {"mamba": {"layers": 6, "width": 384},
                                     "lfm2": {"pattern": "ccaccaccac", "width": 384}}
SYSTEM_WORDS = 1100
TURNS = ("Summarise the notes in one line.", "Which part matters most?", "Give one example of it.",
         "What would you do next?")
WINDOW = 4096


def _messages(system: str, replies: list[str], upto: int) -> list[dict[str, str]]:
    messages = [{"role": "system", "content": system}]
    for i in range(upto + 1):
        messages.append({"role": "user", "content": TURNS[i]})
        if i < upto:
            messages.append({"role": "assistant", "content": replies[i]})
    return messages


async def _turn(peer: peers.Peer, messages: list[dict[str, str]]) -> tuple[float, int, int, str]:
    """One streamed greedy request: time to first token (s), prompt tokens, cached tokens, the reply."""
    payload = {"model": peer.model, "stream": True, "max_tokens": 32, "temperature": 0,
               "stream_options": {"include_usage": True}, "messages": messages}
    ttft, text, usage = float("nan"), "", {}
    async with httpx.AsyncClient(base_url=peer.base_url, timeout=900) as client:
        start = time.perf_counter()
        async with client.stream("POST", "/v1/chat/completions", json=payload) as response:
            if response.status_code != 200:
                raise RuntimeError(f"{peer.name}: HTTP {response.status_code}: {(await response.aread())[:200]!r}")
            async for line in response.aiter_lines():
                if not line.startswith("data: {"):
                    continue
                frame = json.loads(line[6:])
                for choice in frame.get("choices") or []:
                    piece = (choice.get("delta") or {}).get("content")
                    if piece:
                        if not text:
                            ttft = time.perf_counter() - start
                        text += piece
                usage = frame.get("usage") or usage
    cached = (usage.get("prompt_tokens_details") or {}).get("cached_tokens", 0)
    return ttft, int(usage.get("prompt_tokens", 0)), int(cached), text


async def conversation(peer: peers.Peer, system: str) -> dict[str, Any]:
    replies: list[str] = []
    shots = []
    for upto in range(len(TURNS)):
        ttft, prompt, cached, text = await _turn(peer, _messages(system, replies, upto))
        shots.append((ttft, prompt, cached))
        replies.append(text)
    follow = shots[1:]
    return {"first_ms": shots[0][0] * 1000, "warm_ms": statistics.median(s[0] for s in follow) * 1000,
            "cached_share": statistics.median(s[2] / s[1] for s in follow), "replies": replies}


def start(name: str, gguf: Path, logs: Path, *, cold: bool = False) -> peers.Peer:
    """``cold``: a server that finds nothing of earlier runs (superfluid's disk tier off)."""
    threads = len(os.sched_getaffinity(0))
    if name == "superfluid":
        flags = ("--kv-disk-bytes", "0") if cold else ("--sessions", str(logs / "sessions"))
        peer = peers.superfluid(str(gguf), threads=threads, lanes=1, window=WINDOW, logs=logs, flags=flags)
        peer.model = gguf.stem  # a model named by its path is served under the file's name
        return peer
    return peers.llama_server(gguf, threads=threads, lanes=1, window=WINDOW, logs=logs)


async def run(models: dict[str, Path], rounds: int, logs: Path) -> dict[str, dict[str, list[dict[str, Any]]]]:
    results: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for arch, gguf in models.items():
        results[arch] = {"superfluid": [], "llama-server": []}
        for round_no in range(rounds):
            system = traffic.long_prompt(f"[{arch} round {round_no}]", SYSTEM_WORDS)
            names = ["superfluid", "llama-server"] if round_no % 2 == 0 else ["llama-server", "superfluid"]
            for name in names:
                peer = start(name, gguf, logs)
                try:
                    got = await conversation(peer, system)
                finally:
                    peer.stop()
                peer = start(name, gguf, logs, cold=True)  # the last turn again, on a fresh server: cold
                try:
                    ttft, _, cached, _ = await _turn(peer, _messages(system, got["replies"], len(TURNS) - 1))
                finally:
                    peer.stop()
                got["cold_last_ms"] = ttft * 1000
                got["cold_cached"] = cached
                results[arch][name].append(got)
                print(f"{arch} r{round_no} {name}: first {got['first_ms']:.0f} ms, warm {got['warm_ms']:.0f} ms "
                      f"({got['cached_share']:.0%} cached), cold last turn {got['cold_last_ms']:.0f} ms", flush=True)
    return results


def report(results: dict[str, dict[str, list[dict[str, Any]]]], rounds: int) -> str:
    lines = [machine_line(), f"{rounds} rounds, median of rounds; one lane each, {SYSTEM_WORDS}-word system prompt, "
             f"{len(TURNS)} turns of 32 greedy tokens", "",
             "| model | server | first turn | warm follow-up | cached share | cold last turn | warm / cold |",
             "|---|---|---|---|---|---|---|"]
    for arch, by_server in results.items():
        for name, runs in by_server.items():
            first = statistics.median(r["first_ms"] for r in runs)
            warm = statistics.median(r["warm_ms"] for r in runs)
            share = statistics.median(r["cached_share"] for r in runs)
            cold = statistics.median(r["cold_last_ms"] for r in runs)
            lines.append(f"| {arch} | {name} | {first:.0f} ms | {warm:.0f} ms | {share:.0%} | {cold:.0f} ms | "
                         f"{warm / cold:.2f} |")
        sf, ls = by_server["superfluid"], by_server["llama-server"]
        ratio = statistics.median(r["warm_ms"] for r in ls) / statistics.median(r["warm_ms"] for r in sf)
        lines.append(f"| {arch} | warm follow-up, llama-server / superfluid | | {ratio:.2f}x | | | |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--record", action="store_true", help="write benchmarks/results/recurrent-turns.txt")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        models = {arch: write_model(base / f"{arch}.gguf", arch, seed=3, **shape) for arch, shape in MODELS.items()}
        results = asyncio.run(run(models, args.rounds, base))
    text = report(results, args.rounds)
    print(text)
    if args.record:
        print(record("recurrent-turns", text))


if __name__ == "__main__":
    main()
