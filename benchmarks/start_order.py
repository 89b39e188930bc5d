"""Which server was started first, and the first request of a level: the traffic benchmark's single-stream levels
on two servers that take turns, for each order of starting them.

The traffic benchmark starts superfluid, then llama-server, and runs their levels back to back, alternating who
goes first. At one stream a level's p95 is the slowest of four requests, which is usually the level's first: the
first request after the other server had the machine. This runs the traffic benchmark's 1-stream levels (its
mix, 96 tokens, greedy and sampled, the same flags, the same alternation) on pairs of servers started in each
order (superfluid then llama-server, llama-server then superfluid, and two of the same kind as controls), and
reports, for each server of a pair, the time to first token of each level's first request and of the others, and
the median over levels of each level's slowest request (what the traffic benchmark reports as a 1-stream level's
p95).

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

from benchmarks import peers, traffic
from benchmarks.recording import record
from superfluid.engine.models.model_sources import DEFAULT_MODEL, resolve

TOKENS = 96  # the traffic benchmark's default
PAIRS = (("superfluid", "llama-server"), ("llama-server", "superfluid"), ("llama-server", "llama-server"),
         ("superfluid", "superfluid"))


def start(kind: str, position: int, threads: int, logs: Path) -> peers.Peer:
    name = f"{kind} ({'first' if position == 0 else 'second'})"
    log_name = f"{kind}-{position}"
    if kind == "superfluid":
        peer = peers.superfluid(DEFAULT_MODEL, threads=threads, lanes=traffic.LANES, window=traffic.WINDOW,
                                logs=logs, name=log_name)
    else:
        peer = peers.llama_server(resolve(DEFAULT_MODEL).locate(), threads=threads, lanes=traffic.LANES,
                                  window=traffic.WINDOW, logs=logs, name=log_name)
    peer.name = name
    return peer


async def turns(servers: list[peers.Peer], rounds: int) -> dict[str, list[list[float]]]:
    """The traffic benchmark's schedule for its 1-stream levels: a warm-up each, then per round a greedy and a
    sampled level on each server, back to back, the order reversed every other round."""
    for peer in servers:
        await traffic.level(peer, "greedy", 2, 8, "warm-up")
    levels: dict[str, list[list[float]]] = {peer.name: [] for peer in servers}
    for round_no in range(rounds):
        for mode in ("greedy", "sampled"):
            for peer in servers if round_no % 2 == 0 else list(reversed(servers)):
                got = await traffic.level(peer, mode, 1, TOKENS, f"[r{round_no} {mode} c1]")
                levels[peer.name].append(got["ttfts_ms"])
    return levels


def report(pairs: list[dict[str, list[list[float]]]], header: str) -> str:
    lines = [header, f"{'pair (in the order started)':<36}{'server':<26}{'levels':>7}{'first: median':>15}"
                     f"{'max':>6}{'others: median':>16}{'p95':>6}{'slowest: median':>17}"]
    for levels in pairs:
        title = " then ".join(name.split(" (")[0] for name in levels)
        for name, runs in levels.items():
            firsts = [r[0] for r in runs]
            others = [t for r in runs for t in r[1:]]
            lines.append(f"{title:<36}{name:<26}{len(runs):>7}{statistics.median(firsts):>15.0f}"
                         f"{max(firsts):>6.0f}{statistics.median(others):>16.0f}{traffic._pct(others, 0.95):>6.0f}"
                         f"{statistics.median(max(r) for r in runs):>17.0f}")
    lines.append("times to first token (ms), each level's requests in the order sent:")
    for levels in pairs:
        for name, runs in levels.items():
            lines.append(f"  {' then '.join(n.split(' (')[0] for n in levels)}, {name}: "
                         + " | ".join(" ".join(f"{t:.0f}" for t in r) for r in runs))
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
    pairs: list[dict[str, list[list[float]]]] = []
    for kinds in PAIRS:
        servers: list[peers.Peer] = []
        try:
            for position, kind in enumerate(kinds):
                servers.append(start(kind, position, args.threads, logs))
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
