"""Fleet head overhead: the same streamed request straight to a replica's app and through the fleet head.

The replica's app is `superfluid serve` itself (a fleet replica runs that whole app, fleet/replica.py), so the
direct side is one `superfluid serve` process and the fleet side a 1-replica `superfluid fleet` with the same
engine flags. Requests alternate between the two (the order flips every round), one at a time, so both see the
same machine load: a chat completion streamed for exactly ``--tokens`` tokens (greedy, ignore_eos).

Measured per side: time to the first content delta (TTFT) and the time between successive content chunks, p50
and p95; the difference is what the extra hops (Ray's HTTP proxy -> head -> Ray streaming call -> replica) add.
On the fleet side it also reads the CPU time of the head's process and of Ray's HTTP proxy (/proc, Linux) around
each request, less their idle rate measured beforehand, per streamed chunk, beside the CPU the whole direct
server (generation included) spends per chunk.

Run: ``python -m benchmarks.fleet_overhead [--rounds 12] [--tokens 64] [--record]``; results go to stdout and,
with ``--record``, to benchmarks/results/fleet_overhead.txt. Needs the fleet extra.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import platform
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import httpx
from conformance.fleet_server import start_fleet, stop_fleet
from conformance.server import start_server, stop_server

from benchmarks.proc import cpu_seconds
from benchmarks.recording import record
from superfluid.engine.models.model_sources import DEFAULT_MODEL

ENGINE_FLAGS = ["--threads", "1", "--parallel", "2", "--ctx-size", "2048", "--spec-draft", "0"]
FLEET_FLAGS = ["--replicas", "1", "--replica-cpus", "1"]
HEAD_PROCESSES = (b"ServeReplica:superfluid:head", b"ProxyActor")
IDLE_S = 5.0


@dataclass
class Stream:
    ttft_s: float
    gaps_s: list[float]
    chunks: int


def stream_once(http: httpx.Client, tokens: int) -> Stream:
    body = {"model": DEFAULT_MODEL, "messages": [{"role": "user", "content": "Tell me about rivers."}],
            "max_tokens": tokens, "temperature": 0, "ignore_eos": True, "stream": True}
    started = time.perf_counter()
    stamps: list[float] = []
    with http.stream("POST", "/v1/chat/completions", json=body) as response:
        response.raise_for_status()
        for line in response.iter_lines():
            if not line.startswith("data: ") or line == "data: [DONE]":
                continue
            chunk = json.loads(line[6:])
            if any(choice["delta"].get("content") for choice in chunk.get("choices", ())):
                stamps.append(time.perf_counter())
    if not stamps:
        raise RuntimeError("the stream carried no content")
    return Stream(stamps[0] - started, [b - a for a, b in itertools.pairwise(stamps)], len(stamps))


def head_pids() -> list[int]:
    """The processes of the fleet head and of Ray's HTTP proxy."""
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if any(name in cmdline for name in HEAD_PROCESSES):
                pids.append(int(entry.name))
    return pids


def cpu_s(pids: list[int]) -> float:
    """User + system CPU seconds of ``pids`` so far."""
    return sum(cpu_seconds(pid) for pid in pids)


def pct(values: list[float], q: int) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1] * 1000


def line(name: str, streams: list[Stream]) -> str:
    ttft = [s.ttft_s for s in streams]
    gaps = [g for s in streams for g in s.gaps_s]
    return (f"{name:7s} requests {len(streams):3d}  chunks/request {statistics.mean(s.chunks for s in streams):5.1f}"
            f"  TTFT p50 {pct(ttft, 50):7.1f} ms p95 {pct(ttft, 95):7.1f} ms  inter-chunk p50 {pct(gaps, 50):6.2f} "
            f"ms p95 {pct(gaps, 95):6.2f} ms")


def run(rounds: int, tokens: int, work: Path) -> list[str]:
    direct = start_server([DEFAULT_MODEL, *ENGINE_FLAGS], work / "serve.log")
    try:
        fleet = start_fleet([DEFAULT_MODEL, *ENGINE_FLAGS, *FLEET_FLAGS], work / "fleet.log")
    except BaseException:
        stop_server(direct)
        raise
    results: dict[str, list[Stream]] = {"direct": [], "fleet": []}
    try:
        pids = head_pids()
        idle_start = cpu_s(pids)
        time.sleep(IDLE_S)
        idle_rate = (cpu_s(pids) - idle_start) / IDLE_S
        head_cpu, fleet_chunks, serve_cpu, direct_chunks = 0.0, 0, 0.0, 0
        with httpx.Client(base_url=direct.base_url, timeout=600) as to_direct, \
                httpx.Client(base_url=fleet.base_url, timeout=600) as to_fleet:
            for client in (to_direct, to_fleet, to_direct, to_fleet):  # warm-up: not counted
                stream_once(client, tokens)
            for index in range(rounds):
                order = [("direct", to_direct), ("fleet", to_fleet)]
                for name, client in order if index % 2 == 0 else order[::-1]:
                    before, started = cpu_s(pids), time.perf_counter()
                    serve_before = cpu_s([direct.process.pid])
                    result = stream_once(client, tokens)
                    if name == "fleet":
                        head_cpu += cpu_s(pids) - before - idle_rate * (time.perf_counter() - started)
                        fleet_chunks += result.chunks
                    else:
                        serve_cpu += cpu_s([direct.process.pid]) - serve_before
                        direct_chunks += result.chunks
                    results[name].append(result)
    finally:
        stop_fleet(fleet)
        stop_server(direct)
    lines = [line(name, streams) for name, streams in results.items()]
    added = [pct([s.ttft_s for s in results["fleet"]], 50) - pct([s.ttft_s for s in results["direct"]], 50),
             pct([g for s in results["fleet"] for g in s.gaps_s], 50)
             - pct([g for s in results["direct"] for g in s.gaps_s], 50)]
    lines.append(f"head adds: TTFT p50 {added[0]:+.1f} ms, inter-chunk p50 {added[1]:+.2f} ms; head + proxy CPU "
                 f"{head_cpu / max(fleet_chunks, 1) * 1000:.2f} ms per chunk (idle rate {idle_rate * 1000:.1f} "
                 f"ms/s subtracted; {len(pids)} processes); for scale, the whole direct server (engine included) "
                 f"{serve_cpu / max(direct_chunks, 1) * 1000:.2f} ms per chunk")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=12)
    parser.add_argument("--tokens", type=int, default=64)
    parser.add_argument("--record", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        measured = run(args.rounds, args.tokens, Path(tmp))
    load = os.getloadavg()
    report = "\n".join([
        f"fleet_overhead: {args.rounds} rounds, {args.tokens}-token greedy chat streams, direct `serve` vs a "
        f"1-replica fleet, 1 thread each, {DEFAULT_MODEL}",
        f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, load "
        f"{load[0]:.1f}/{load[1]:.1f}/{load[2]:.1f} (shared with other work: absolute times are skewed)",
        *measured])
    print(report)
    if args.record:
        print(f"recorded in {record('fleet_overhead', report)}")


if __name__ == "__main__":
    main()
