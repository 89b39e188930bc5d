"""Huge pages for llama.cpp's buffers: superfluid with glibc's ``glibc.malloc.hugetlb=1`` beside without.

glibc 2.35 and later ask the kernel for transparent huge pages (2 MiB) for every chunk they ``mmap`` when that
tunable is set at process start; llama.cpp allocates its weights (repacked for the CPU kernels), KV cache and
compute buffers that way. Where the kernel's mode is ``madvise`` (the usual default) this is the only way to get
them without changing llama.cpp. A fresh decoding loop and llama-batched-bench ran 5-15% faster with it, which is
what this measures on the server. Two servers on the bundled model with the traffic benchmark's flags (8 lanes, a
KV stream of 4,096 cells each, flash attention as ``auto`` resolves: off), one started with the tunable, running
at once and taking turns level by level, the order alternating between rounds. Each level is the traffic
benchmark's: its mix (a story, code, a question, JSON under a schema), 96 tokens, greedy or sampled, at 1 and 8
streams. Reported: the median aggregate and per-stream rates over the rounds, the ratio, each server's resident
memory and its anonymous huge pages (from /proc).

Run: ``python -m benchmarks.huge_pages [--rounds 4] [--record]``. About six minutes. Never part of the test suite.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import statistics
from pathlib import Path
from typing import Any

from benchmarks import peers, traffic
from benchmarks.recording import record

LEVELS = (1, 8)
TUNABLE = "glibc.malloc.hugetlb=1"
THP_ENABLED = Path("/sys/kernel/mm/transparent_hugepage/enabled")


def anon_huge_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        if line.startswith("AnonHugePages:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def run(servers: dict[str, peers.Peer], rounds: int) -> dict[tuple[str, int, str], list[dict[str, Any]]]:
    for peer in servers.values():
        await traffic.level(peer, "greedy", 2, 8, "warm-up")
    results: dict[tuple[str, int, str], list[dict[str, Any]]] = {}
    for round_no in range(rounds):
        for mode in ("greedy", "sampled"):
            for streams in LEVELS:
                names = list(servers) if round_no % 2 == 0 else list(reversed(servers))
                for name in names:
                    got = await traffic.level(servers[name], mode, streams, 96, f"r{round_no} {mode} c{streams}")
                    got["anon_huge_mb"] = anon_huge_mb(servers[name].process.pid)
                    results.setdefault((mode, streams, name), []).append(got)
    return results


def report(results: dict[tuple[str, int, str], list[dict[str, Any]]], header: str) -> str:
    lines = [header, f"{'traffic':<9}{'streams':>7}{'server':>8}{'agg tok/s':>11}{'stream tok/s':>14}"
                     f"{'RSS MB':>8}{'huge MB':>9}   aggregate per round"]
    for (mode, streams, name), runs in sorted(results.items()):
        agg = statistics.median(r["aggregate_tok_s"] for r in runs)
        stream = statistics.median(r["stream_tok_s"] for r in runs)
        lines.append(f"{mode:<9}{streams:>7}{name:>8}{agg:>11.1f}{stream:>14.1f}{runs[-1]['rss_mb']:>8.0f}"
                     f"{runs[-1]['anon_huge_mb']:>9.0f}   " + " ".join(f"{r['aggregate_tok_s']:.0f}" for r in runs))
    lines.append("huge / plain (median aggregate; median per-stream):")
    for mode in ("greedy", "sampled"):
        for streams in LEVELS:
            on, off = results[(mode, streams, "huge")], results[(mode, streams, "plain")]
            agg = statistics.median(r["aggregate_tok_s"] for r in on) / statistics.median(
                r["aggregate_tok_s"] for r in off)
            stream = statistics.median(r["stream_tok_s"] for r in on) / statistics.median(
                r["stream_tok_s"] for r in off)
            lines.append(f"  {mode} c{streams}: {agg:.2f}x; {stream:.2f}x")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--record", action="store_true")
    args = parser.parse_args()
    logs = Path(f"/tmp/superfluid-huge-pages-{os.getpid()}")
    logs.mkdir(exist_ok=True)
    tunables = ":".join(part for part in (os.environ.get("GLIBC_TUNABLES", ""), TUNABLE) if part)
    servers: dict[str, peers.Peer] = {}
    try:
        for name, env in (("huge", {"GLIBC_TUNABLES": tunables}), ("plain", None)):
            servers[name] = traffic.start_peer("superfluid", args.threads, logs, name=f"superfluid-{name}", env=env)
        results = asyncio.run(run(servers, args.rounds))
    finally:
        for peer in servers.values():
            peer.stop()
    try:
        mode = THP_ENABLED.read_text().strip()
    except OSError:
        mode = "absent"
    header = (f"machine: {platform.machine()}, {len(os.sched_getaffinity(0))} cores; threads={args.threads}; "
              f"{'/'.join(platform.libc_ver())}; transparent huge pages: {mode}; the huge server's GLIBC_TUNABLES="
              f"{tunables}; {traffic.LANES} lanes x {traffic.WINDOW} window, flash attention {peers.flash_attn()}; "
              f"the traffic mix, 96 tokens; {args.rounds} rounds")
    text = report(results, header)
    print(text)
    if args.record:
        print(record("huge-pages", text))


if __name__ == "__main__":
    main()
