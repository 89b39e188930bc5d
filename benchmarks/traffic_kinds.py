"""Single streams by prompt kind: superfluid and llama-server side by side, one request at a time.

The traffic benchmark's level 1 sends the whole mix (a story, code, a question, JSON under a schema) and reports
one aggregate; this splits it by kind, so a lead on one kind (JSON, where the grammar engines differ) is not read
as a lead on all. Same servers and flags as benchmarks/traffic.py. Each round sends every kind in greedy and
sampled traffic to both servers, the two taking turns to go first; each request's rate is its completion
tokens over its wall time (time to first token included). Reported: the median over the rounds per server, kind
and traffic, and the ratio.

Run: ``python -m benchmarks.traffic_kinds [--rounds 4] [--record]``. Never part of the test suite.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import time
from pathlib import Path

import httpx

from benchmarks import peers, traffic
from benchmarks.recording import record
from superfluid.engine.models.model_sources import DEFAULT_MODEL, resolve


async def run(servers: dict[str, peers.Peer], rounds: int, max_tokens: int) -> dict[str, list[float]]:
    rates: dict[str, list[float]] = {}
    turn = 0
    for round_no in range(rounds):
        for mode in ("greedy", "sampled"):
            for k, kind in enumerate(traffic.KINDS):
                names = list(servers) if turn % 2 == 0 else list(reversed(servers))
                turn += 1
                for name in names:
                    peer = servers[name]
                    payload = traffic.body(peer, mode, k + len(traffic.KINDS) * round_no, max_tokens,
                                           f"[kinds {round_no}]")
                    async with httpx.AsyncClient(base_url=peer.base_url, timeout=300) as client:
                        start = time.perf_counter()
                        got = await traffic.shot(client, payload)
                        wall = time.perf_counter() - start
                    key = f"{name} {mode} {kind}"
                    rates.setdefault(key, []).append(float("nan") if got.error else got.tokens / wall)
    return rates


def report(rates: dict[str, list[float]], header: str) -> str:
    errors = sum(1 for values in rates.values() for r in values if r != r)
    lines = [header + (f"\nfailed requests (left out of the medians): {errors}" if errors else ""),
             f"{'traffic':<9}{'kind':<7}{'superfluid':>11}{'llama-server':>13}{'ratio':>7}  (tok/s, median)"]
    for mode in ("greedy", "sampled"):
        for kind in traffic.KINDS:
            ours = statistics.median(r for r in rates[f"superfluid {mode} {kind}"] if r == r)  # errors left out
            theirs = statistics.median(r for r in rates[f"llama-server {mode} {kind}"] if r == r)
            lines.append(f"{mode:<9}{kind:<7}{ours:>11.1f}{theirs:>13.1f}{ours / theirs:>7.2f}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--tokens", type=int, default=96)
    parser.add_argument("--record", action="store_true")
    parser.add_argument("--llama-server", type=Path, default=peers.LLAMA_SERVER)
    parser.add_argument("--note", default="")
    args = parser.parse_args()
    gguf = resolve(DEFAULT_MODEL).locate()
    logs = Path(f"/tmp/superfluid-kinds-{os.getpid()}")
    logs.mkdir(exist_ok=True)
    servers = traffic.side_by_side(args.threads, logs, args.llama_server)
    try:
        rates = asyncio.run(run(servers, args.rounds, args.tokens))
    finally:
        for peer in servers.values():
            peer.stop()
    header = (f"machine: {platform.machine()}, {len(os.sched_getaffinity(0))} cores; threads={args.threads}; "
              f"model {gguf.name}; {args.tokens} tokens/request (JSON replies end with their object); "
              f"{args.rounds} rounds; llama.cpp's extra buffer types (its AMX kernels, where built) "
              f"{'on' if not peers.no_repack() else 'off'} for both" + (f"\nnote: {args.note}" if args.note else ""))
    text = report(rates, header)
    print(text)
    if args.record:
        print(record("traffic-kinds", text + "\n" + json.dumps(rates, indent=1)))


if __name__ == "__main__":
    main()
