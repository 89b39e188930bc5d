"""Long conversations: time to first token and decode rate once a conversation has grown, superfluid beside
llama-server with its default flash attention and with the same as superfluid's.

Each case is a conversation whose first user turn is a document of about N tokens (``traffic.long_prompt``).
The first request sends it (cold: the whole prompt is prefilled); three follow-up requests send the same
conversation plus an assistant turn and a new question, as a chat client does, so the prefix is served from each
server's prompt cache and only the new turn is prefilled (warm). Every request samples (temperature 0.7, a seed
each) 96 tokens with EOS ignored. Reported: the cold time to first token, and the median warm time to first token
and per-stream decode rate. This is where llama.cpp's CPU flash attention kernel and superfluid's default of
leaving it off part ways (docs/performance.md, "Flash attention").

Run: ``python -m benchmarks.long_chat [--record]`` after ``benchmarks/build_llama_server.sh``. Never part of the
test suite.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
from pathlib import Path
from typing import Any

import httpx

from benchmarks import peers, traffic
from benchmarks.recording import record
from superfluid.engine.models.model_sources import DEFAULT_MODEL, resolve

DOCUMENT_WORDS = (60, 400, 1500)
"""``long_prompt`` sizes: about 160, 925 and 3,350 prompt tokens with the chat template."""
FOLLOW_UPS = 3


def _turns(document: str, follow_up: int) -> list[dict[str, str]]:
    messages = [{"role": "user", "content": document}]
    for i in range(follow_up):
        messages += [{"role": "assistant", "content": f"Noted, part {i}."},
                     {"role": "user", "content": f"Question {i}: tell a story about entry {i}."}]
    return messages


async def conversation(peer: peers.Peer, words: int, tag: str) -> dict[str, Any]:
    document = traffic.long_prompt(tag, words)
    shots = []
    async with httpx.AsyncClient(base_url=peer.base_url, timeout=900) as client:
        for turn in range(FOLLOW_UPS + 1):
            payload = {"model": peer.model, "stream": True, "max_tokens": 96, "ignore_eos": True,
                       "temperature": 0.7, "top_p": 0.95, "seed": 100 + turn,
                       "stream_options": {"include_usage": True}, "messages": _turns(document, turn)}
            shots.append(await traffic.shot(client, payload))
    errors = [s.error for s in shots if s.error]
    warm = [s for s in shots[1:] if not s.error]  # a turn that failed has no times (counted under errors)
    return {
        "prompt_tokens": shots[0].prompt_tokens,
        "cold_ttft_ms": shots[0].ttft_s * 1000,
        "warm_ttft_ms": _median([s.ttft_s for s in warm]) * 1000,
        "warm_tok_s": _median([s.rate for s in warm]),
        "errors": errors,
    }


def _median(values: list[float]) -> float:
    """The median of the values that are numbers (NaN, a failed request's, would make the order undefined)."""
    numbers = [v for v in values if v == v]
    return statistics.median(numbers) if numbers else float("nan")


async def run(servers: dict[str, peers.Peer], rounds: int) -> dict[str, dict[str, list[dict[str, Any]]]]:
    results: dict[str, dict[str, list[dict[str, Any]]]] = {name: {} for name in servers}
    for peer in servers.values():
        await traffic.level(peer, "greedy", 2, 8, "warm-up")
    turn = 0
    for round_no in range(rounds):
        for words in DOCUMENT_WORDS:
            names = list(servers) if turn % 2 == 0 else list(reversed(servers))  # who goes first alternates
            turn += 1
            for name in names:
                got = await conversation(servers[name], words, f"[{name} r{round_no} w{words}]")
                results[name].setdefault(str(words), []).append(got)
                print(name, words, {k: round(v, 1) if isinstance(v, float) else v for k, v in got.items()},
                      flush=True)
    return results


def report(results: dict[str, dict[str, list[dict[str, Any]]]], header: str) -> str:
    lines = [header, f"{'server':<24}{'prompt':>7}{'cold TTFT ms':>13}{'warm TTFT ms':>13}{'warm tok/s':>11}"
                     f"{'errors':>7}"]
    for words in map(str, DOCUMENT_WORDS):
        for name, by_size in results.items():
            runs = by_size[words]
            lines.append(
                f"{name:<24}{runs[0]['prompt_tokens']:>7}"
                f"{_median([r['cold_ttft_ms'] for r in runs]):>13.0f}"
                f"{_median([r['warm_ttft_ms'] for r in runs]):>13.0f}"
                f"{_median([r['warm_tok_s'] for r in runs]):>11.1f}"
                f"{sum(len(r['errors']) for r in runs):>7}")
    ours = results["superfluid"]
    for other in (name for name in results if name != "superfluid"):
        ratios = []
        for words in map(str, DOCUMENT_WORDS):
            theirs = results[other][words]
            rate = _median([r["warm_tok_s"] for r in ours[words]]) / _median([r["warm_tok_s"] for r in theirs])
            ttft = _median([r["warm_ttft_ms"] for r in ours[words]]) / _median([r["warm_ttft_ms"] for r in theirs])
            ratios.append(f"{ours[words][0]['prompt_tokens']} tokens: decode {rate:.2f}x, warm TTFT {ttft:.2f}")
        lines.append(f"superfluid / {other}: " + "; ".join(ratios))
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--note", default="")
    parser.add_argument("--record", action="store_true")
    args = parser.parse_args()
    logs = Path(f"/tmp/superfluid-long-chat-{os.getpid()}")
    logs.mkdir(exist_ok=True)
    gguf = resolve(DEFAULT_MODEL).locate()
    same = peers.flash_attn()
    lanes, window = traffic.LANES, traffic.WINDOW
    servers = {"superfluid": peers.superfluid(DEFAULT_MODEL, threads=args.threads, lanes=lanes, window=window,
                                              logs=logs)}
    try:
        servers["llama-server -fa auto"] = peers.llama_server(gguf, threads=args.threads, lanes=lanes,
                                                              window=window, logs=logs, fa="auto",
                                                              name="llama-server-fa-auto")
        if same != "auto":
            servers[f"llama-server -fa {same}"] = peers.llama_server(
                gguf, threads=args.threads, lanes=lanes, window=window, logs=logs, fa=same,
                name=f"llama-server-fa-{same}")
        results = asyncio.run(run(servers, args.rounds))
    finally:
        for peer in servers.values():
            peer.stop()
    header = (f"model {gguf.name}; {args.threads} threads; {lanes} lanes x {window} window; "
              f"superfluid --flash-attn auto (here: {same}); 96 sampled tokens per turn, EOS ignored; median of "
              f"{args.rounds} conversations per size, {FOLLOW_UPS} warm turns each"
              + (f"\nnote: {args.note}" if args.note else ""))
    text = report(results, header)
    print(text)
    if args.record:
        print(record("long-chat", text))


if __name__ == "__main__":
    main()
