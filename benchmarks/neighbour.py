"""Small requests while another CPU-heavy process shares the cores (issue 35): superfluid and llama-server with
and without a neighbour. superfluid at ``--threads 0`` (its default: every core, fewer while other processes keep
cores busy; engine/scheduling/cpu_share.py), and both servers at every core, at one thread fewer, and llama-server
at every core with ``OMP_WAIT_POLICY=PASSIVE``.

The neighbour is a second llama.cpp process: llama-bench of the same build on the same model with as many threads
as the machine has cores, looping, which is what another model server or a build does to a small machine. Each
server (8 lanes x 4,096 as in benchmarks/traffic.py) gets small requests one at a time: a short chat prompt, 32
tokens, greedy and sampled in turns. Phases alternate, neighbour then quiet, and in each phase every server takes
its requests in turn (who goes first changes by round). Reported per server and phase: median and slowest request
time and time to first token, and tokens per second of the median request.

Run: ``python -m benchmarks.neighbour [--rounds 2] [--requests 5] [--record]`` (needs benchmarks/build_llama_server.sh
first); never part of CI.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from benchmarks import peers
from benchmarks.recording import cpu_kind, machine_line, record
from benchmarks.traffic import LANES, WINDOW, Shot, shot
from superfluid.engine.models.model_sources import DEFAULT_MODEL, resolve

BENCH = peers.BUILD / "cmake" / "bin" / "llama-bench"
PROMPTS = ["Name a river.", "Say one word about autumn.", "What is two plus two?", "Name a colour.",
           "Describe a cat briefly.", "Name a city in Peru."]


def _neighbour(gguf: Path, threads: int, log: Path) -> subprocess.Popen[bytes]:
    """llama-bench looping on ``threads`` threads (prompt and generation runs, repeated far past any phase)."""
    return subprocess.Popen([str(BENCH), "-m", str(gguf), "-t", str(threads), "-p", "256", "-n", "64", "-r", "100000",
                             *peers.no_repack()], stdout=log.open("ab"), stderr=subprocess.STDOUT)


def _payload(peer: peers.Peer, i: int) -> dict[str, Any]:
    sampling = {"temperature": 0} if i % 2 == 0 else {"temperature": 0.7, "top_p": 0.95, "seed": 100 + i}
    return {"model": peer.model, "stream": True, "max_tokens": 32, "ignore_eos": True, **sampling,
            "stream_options": {"include_usage": True},
            "messages": [{"role": "user", "content": PROMPTS[i % len(PROMPTS)]}]}


async def _requests(peer: peers.Peer, count: int, offset: int) -> list[tuple[float, Shot]]:
    """``count`` small requests one after the other: (seconds each took, what came back)."""
    out = []
    async with httpx.AsyncClient(base_url=peer.base_url, timeout=600) as client:
        for i in range(count):
            started = time.perf_counter()
            result = await shot(client, _payload(peer, offset + i))
            out.append((time.perf_counter() - started, result))
    return out


PASSIVE = {"OMP_WAIT_POLICY": "PASSIVE"}
"""libgomp's threads sleep at once at a barrier instead of spinning first: what a shared machine may want."""


def _start(kind: str, threads: int, passive: bool, logs: Path, gguf: Path) -> tuple[str, peers.Peer]:
    name = f"{kind} -t {threads}" + (" passive" if passive else "") + (" (adapts)" if threads == 0 else "")
    log_name = name.replace(" ", "").replace("(", "").replace(")", "")
    if kind == "superfluid":
        return name, peers.superfluid(DEFAULT_MODEL, threads=threads, lanes=LANES, window=WINDOW, logs=logs,
                                      name=log_name, env=PASSIVE if passive else None)
    return name, peers.llama_server(gguf, threads=threads, lanes=LANES, window=WINDOW, logs=logs, name=log_name,
                                    env=PASSIVE if passive else None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--requests", type=int, default=5, help="small requests per server per phase")
    parser.add_argument("--record", action="store_true")
    parser.add_argument("--note", default="")
    args = parser.parse_args()
    cores = len(os.sched_getaffinity(0))
    gguf = resolve(DEFAULT_MODEL).locate()
    logs = Path(tempfile.mkdtemp(prefix="superfluid-neighbour-"))
    load_before = os.getloadavg()[0]
    one_fewer = max(1, cores - 1)
    settings = [("superfluid", 0, False), ("superfluid", cores, False), ("llama-server", cores, False),
                ("superfluid", one_fewer, False), ("llama-server", one_fewer, False), ("llama-server", cores, True)]
    servers: dict[str, peers.Peer] = {}
    results: dict[tuple[str, str], list[tuple[float, Shot]]] = {}
    try:
        for kind, threads, passive in settings:
            name, peer = _start(kind, threads, passive, logs, gguf)
            servers[name] = peer
        for round_ in range(args.rounds):
            for phase in ("neighbour", "quiet"):
                neighbour = _neighbour(gguf, cores, logs / "neighbour.log") if phase == "neighbour" else None
                if neighbour:
                    time.sleep(3)  # past its model load
                try:
                    order = list(servers.items())
                    for name, peer in order[::-1] if round_ % 2 else order:
                        done = asyncio.run(_requests(peer, args.requests, round_ * args.requests))
                        results.setdefault((name, phase), []).extend(done)
                finally:
                    if neighbour:
                        neighbour.terminate()
                        neighbour.wait(timeout=30)
    finally:
        for peer in servers.values():
            peer.stop()
    lines = [machine_line(),
             f"{cores} cores, load average {load_before:.1f} before; model {gguf.name}; {LANES} lanes x {WINDOW}; "
             f"neighbour: llama-bench -t {cores} (pp256 + tg64, looping); {args.requests} small requests (32 tokens, "
             f"greedy and sampled in turns) per server per phase, {args.rounds} rounds",
             *([f"note: {args.note}"] if args.note else []),
             "server                    phase      median s  slowest s  median TTFT ms  slowest TTFT ms  median tok/s  "
             "errors"]
    for name in servers:
        for phase in ("quiet", "neighbour"):
            done = results[(name, phase)]
            took = [seconds for seconds, _ in done]
            ttft = [s.ttft_s * 1000 for _, s in done if s.ttft_s == s.ttft_s]
            rates = [s.rate for _, s in done if s.rate == s.rate]
            lines.append(f"{name:<25} {phase:<9} {statistics.median(took):>9.2f} {max(took):>10.2f} "
                         f"{statistics.median(ttft) if ttft else float('nan'):>15.0f} "
                         f"{max(ttft, default=float('nan')):>16.0f} "
                         f"{statistics.median(rates) if rates else float('nan'):>13.1f} "
                         f"{sum(1 for _, s in done if s.error):>7}")
    report = "\n".join(lines)
    print(report)
    if args.record:
        print("recorded in", record(f"neighbour-{cpu_kind()}", report))


if __name__ == "__main__":
    main()
