"""Time to first token at 1, 2 and 4 streams, where a level's p95 is the slowest of a few requests: superfluid with
and without a burst wait (``--gather-ms``, docs/scheduling.md "Bursts") beside llama-server, over many rounds.

The traffic benchmark sent four requests per level up to four streams (since session 28, twelve below eight), so its
p95 there was the slowest of four, and at 2 and 4 streams that was a request of the level's opening burst. This runs
those levels of the traffic benchmark (its mix once, 96 tokens, greedy and sampled, the same server flags)
``--rounds`` times on three servers at once: superfluid as it ships (no burst wait), superfluid with ``--gather-ms
20``, and llama-server, taking turns level by level with the order rotating between rounds, and a pause before each
level (a level usually opens on a server that has just sat idle while the others ran). Reported per server and
level: p50 and p95 over every request of every round (``rounds`` x 4 of them), the median of the rounds' own p95s,
and the ratios to llama-server; how often the waiting server's engine waited for a burst and for how long (its
/metrics counters); and every request's time.

Run: ``python -m benchmarks.bursts [--rounds 6] [--record]``. About eight minutes. Never part of the test suite.
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

import httpx

from benchmarks import peers, traffic
from benchmarks.engine_account import engine_counters
from benchmarks.recording import record

LEVELS = (1, 2, 4)
PAUSE_S = 2.0
SERVERS = ("superfluid", "superfluid --gather-ms 20", "llama-server")


def gather_counters(peer: peers.Peer) -> tuple[float, float]:
    """superfluid_engine_gathers_total and _gather_seconds_total of the served model."""
    found = engine_counters(httpx.get(peer.base_url + "/metrics", timeout=30).text, peer.model)
    return found.get("engine_gathers", 0.0), found.get("engine_gather_seconds", 0.0)


async def run(servers: dict[str, peers.Peer], rounds: int) -> dict[tuple[str, int, str], list[dict[str, Any]]]:
    for peer in servers.values():
        await traffic.level(peer, "greedy", 2, 8, "warm-up")
    results: dict[tuple[str, int, str], list[dict[str, Any]]] = {}
    order = list(servers)
    for round_no in range(rounds):
        for mode in ("greedy", "sampled"):
            for streams in LEVELS:
                turn = round_no % len(order)
                for name in order[turn:] + order[:turn]:
                    await asyncio.sleep(PAUSE_S)
                    got = await traffic.level(servers[name], mode, streams, 96, f"r{round_no} {mode} c{streams}")
                    results.setdefault((mode, streams, name), []).append(got)
    return results


def report(results: dict[tuple[str, int, str], list[dict[str, Any]]], gathers: tuple[float, float],
           header: str) -> str:
    lines = [header, f"{'traffic':<9}{'streams':>7}  {'server':<26}{'requests':>9}{'p50 ms':>8}{'p95 ms':>8}"
                     f"{'median round p95':>18}{'errors':>7}"]
    pooled: dict[tuple[str, int, str], tuple[float, float, float]] = {}
    for mode in ("greedy", "sampled"):
        for streams in LEVELS:
            for name in SERVERS:
                runs = results[(mode, streams, name)]
                ttfts = [t for r in runs for t in r["ttfts_ms"] if t == t]
                p50, p95 = traffic._pct(ttfts, 0.5), traffic._pct(ttfts, 0.95)
                rounds_p95 = statistics.median(r["ttft_p95_ms"] for r in runs)
                pooled[(mode, streams, name)] = (p50, p95, rounds_p95)
                errors = sum(len(r["errors"]) for r in runs)
                lines.append(f"{mode:<9}{streams:>7}  {name:<26}{len(ttfts):>9}{p50:>8.0f}{p95:>8.0f}"
                             f"{rounds_p95:>18.0f}{errors:>7}")
    lines.append("against llama-server (p95 over all requests; median of the rounds' p95s):")
    for name in SERVERS[:2]:
        for mode in ("greedy", "sampled"):
            cells = []
            for streams in LEVELS:
                ours, theirs = pooled[(mode, streams, name)], pooled[(mode, streams, "llama-server")]
                cells.append(f"c{streams} {ours[1] / theirs[1]:.2f}/{ours[2] / theirs[2]:.2f}")
            lines.append(f"  {name:<26}{mode:<9}" + "  ".join(cells))
    count, seconds = gathers
    lines.append(f"{SERVERS[1]}: burst waits {count:.0f}, {seconds * 1000:.0f} ms in all"
                 f" ({seconds / count * 1000 if count else 0:.1f} ms each)")
    retried = [f"{name} {mode} c{streams} ({sum(r['retried'] for r in runs)})"
               for (mode, streams, name), runs in sorted(results.items()) if any(r["retried"] for r in runs)]
    if retried:  # their times count from the dropped try
        lines.append("requests sent again after the server dropped the connection unanswered: " + ", ".join(retried))
    lines.append("times to first token (ms), each round's requests in the order they were sent:")
    for (mode, streams, name), runs in sorted(results.items()):
        lines.append(f"  {mode} c{streams} {name}: " + " | ".join(
            " ".join(f"{t:.0f}" for t in r["ttfts_ms"]) for r in runs))
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--record", action="store_true")
    args = parser.parse_args()
    logs = Path(f"/tmp/superfluid-bursts-{os.getpid()}")
    logs.mkdir(exist_ok=True)
    servers: dict[str, peers.Peer] = {}
    try:
        servers[SERVERS[0]] = traffic.start_peer("superfluid", args.threads, logs)
        servers[SERVERS[1]] = traffic.start_peer("superfluid", args.threads, logs, name="superfluid-gather",
                                                 flags=("--gather-ms", "20"))
        servers[SERVERS[2]] = traffic.start_peer("llama-server", args.threads, logs)
        started = time.monotonic()
        results = asyncio.run(run(servers, args.rounds))
        gathers = gather_counters(servers[SERVERS[1]])
        elapsed = time.monotonic() - started
    finally:
        for peer in servers.values():
            peer.stop()
    header = (f"machine: {platform.machine()}, {len(os.sched_getaffinity(0))} cores; threads={args.threads}; "
              f"{traffic.LANES} lanes x {traffic.WINDOW} window, flash attention {peers.flash_attn()} on every side; "
              f"the traffic mix, 96 tokens; {args.rounds} rounds, {PAUSE_S:.0f} s pause before each level; "
              f"{elapsed / 60:.1f} min")
    text = report(results, gathers, header)
    print(text)
    if args.record:
        print(record("bursts", text))


if __name__ == "__main__":
    main()
