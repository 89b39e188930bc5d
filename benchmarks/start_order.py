"""Which server was started first, and the first request of a level: 1-stream levels of the traffic mix on two
servers that take turns, for each order of starting them.

At one stream the traffic benchmark's p95 was the slowest of a level's four requests (since session 28 levels below
8 streams send twelve, and the p95 is the second slowest), and that was often the level's first: the first request
after the other server had the machine. This runs such levels (the traffic mix once, four requests, 96 tokens,
greedy and sampled, the same flags) on pairs of servers started in each order (superfluid then llama-server,
llama-server then superfluid, and two of the same kind as controls). Each pair gets a warm-up level per server, then
rounds of a greedy and a sampled level per server, back to back, the first-started server taking the first turn in
even rounds and the second turn in odd ones; so a round's first level follows the same server's last level of the
round before in rounds 1 to 5 (2 of 12 levels for the server started first, 3 of 12 for the second with six rounds).
Reported for each server of a pair: the time to first token of the levels' first requests and of the others, the
median over levels of each level's slowest request (a four-request level's p95), requests sent again after the
server dropped the connection (their time counts from the first try), failed requests, and every request's time.

Run: ``python -m benchmarks.start_order [--rounds 6] [--record]``. About five minutes. Never part of the test
suite.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import statistics
import time
from pathlib import Path
from typing import Any

from benchmarks import peers, traffic
from benchmarks.recording import record

TOKENS = 96  # the traffic benchmark's default
PAIRS = (("superfluid", "llama-server"), ("llama-server", "superfluid"), ("llama-server", "llama-server"),
         ("superfluid", "superfluid"))


def start(kind: str, position: int, pair_no: int, threads: int, logs: Path) -> peers.Peer:
    name = f"{kind} ({'first' if position == 0 else 'second'})"
    peer = traffic.start_peer(kind, threads, logs, name=f"{pair_no}-{kind}-{position}")
    peer.name = name
    return peer


async def turns(servers: list[peers.Peer], rounds: int) -> dict[str, list[dict[str, Any]]]:
    """A warm-up level each, then per round a greedy and a sampled 1-stream level on each server, back to back,
    the order reversed every other round."""
    for peer in servers:
        await traffic.level(peer, "greedy", 2, 8, "warm-up")
    levels: dict[str, list[dict[str, Any]]] = {peer.name: [] for peer in servers}
    for round_no in range(rounds):
        for mode in ("greedy", "sampled"):
            for peer in servers if round_no % 2 == 0 else list(reversed(servers)):
                levels[peer.name].append(await traffic.level(peer, mode, 1, TOKENS, f"[r{round_no} {mode} c1]"))
    return levels


def _answered(values: list[float]) -> list[float]:
    return [v for v in values if v == v]  # a failed request's time is NaN


def _median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def report(pairs: list[dict[str, list[dict[str, Any]]]], header: str) -> str:
    lines = [header, f"{'pair (in the order started)':<36}{'server':<26}{'levels':>7}{'first: median':>15}"
                     f"{'max':>6}{'others: median':>16}{'p95':>6}{'slowest: median':>17}{'resent':>8}{'failed':>8}"]
    for levels in pairs:
        title = " then ".join(name.split(" (")[0] for name in levels)
        for name, runs in levels.items():
            firsts = _answered([r["ttfts_ms"][0] for r in runs])
            others = _answered([t for r in runs for t in r["ttfts_ms"][1:]])
            slowest = [max(answered) for r in runs if (answered := _answered(r["ttfts_ms"]))]
            lines.append(f"{title:<36}{name:<26}{len(runs):>7}{_median(firsts):>15.0f}"
                         f"{max(firsts, default=float('nan')):>6.0f}{_median(others):>16.0f}"
                         f"{traffic._pct(others, 0.95):>6.0f}{_median(slowest):>17.0f}"
                         f"{sum(r['retried'] for r in runs):>8}{sum(len(r['errors']) for r in runs):>8}")
    lines.append("times to first token (ms), each level's requests in the order sent:")
    for levels in pairs:
        for name, runs in levels.items():
            lines.append(f"  {' then '.join(n.split(' (')[0] for n in levels)}, {name}: "
                         + " | ".join(" ".join(f"{t:.0f}" for t in r["ttfts_ms"]) for r in runs))
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--record", action="store_true")
    args = parser.parse_args()
    logs = Path(f"/tmp/superfluid-start-order-{os.getpid()}")
    logs.mkdir(exist_ok=True)
    began = time.monotonic()
    pairs: list[dict[str, list[dict[str, Any]]]] = []
    for pair_no, kinds in enumerate(PAIRS):
        servers: list[peers.Peer] = []
        try:
            for position, kind in enumerate(kinds):
                servers.append(start(kind, position, pair_no, args.threads, logs))
            pairs.append(asyncio.run(turns(servers, args.rounds)))
        finally:
            for peer in servers:
                peer.stop()
    header = (f"machine: {platform.machine()}, {len(os.sched_getaffinity(0))} cores; threads={args.threads}; "
              f"{traffic.LANES} lanes x {traffic.WINDOW} window; the traffic mix at 1 stream, {TOKENS} "
              f"tokens, greedy and sampled; {args.rounds} rounds per pair; {(time.monotonic() - began) / 60:.1f} min")
    text = report(pairs, header)
    print(text)
    if args.record:
        print(record("start-order", text))


if __name__ == "__main__":
    main()
