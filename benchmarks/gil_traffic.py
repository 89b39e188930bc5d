"""Two superfluid builds side by side over HTTP, with and without a busy request-preparation thread.

The engine thread gives the GIL up around each foreign call; with another Python thread busy, each time it
wants it back it waits (benchmarks/gil.py counts the hand-offs). Here the effect is measured the way clients see
it: two servers, ``main`` (main's ``src``, extracted with ``git archive``, or ``--baseline-src``) and ``branch``
(this checkout), the same model and flags (8 lanes x 4,096 tokens), taking turns level by level: streaming
chat at 1, 8 and 16 streams, greedy and sampled (temperature 0.7, top_p 0.95, a seed per request; the traffic
benchmark's prompts), once quiet and once while a client posts a 20,000-message chat body over and over (the
server's preparation worker spends most of a second validating each). Reported per server and level:
aggregate tok/s, median inter-token gap, p50/p95 time to first token, server CPU ms per generated token.

``--flags-a`` / ``--flags-b`` add serve flags to one side; ``--flags-c`` adds a third server, this checkout
again with those flags (e.g. two switch intervals beside main).

Run: ``python -m benchmarks.gil_traffic [--tokens 32] [--levels 1,8,16] [--record NAME]``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import shlex
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from benchmarks import peers
from benchmarks.proc import cpu_seconds
from benchmarks.recording import record
from benchmarks.traffic import LANES, WINDOW, _pct, body, shot
from superfluid.engine.models.model_sources import DEFAULT_MODEL

ROOT = Path(__file__).resolve().parent.parent


def busy_body(messages: int) -> bytes:
    return json.dumps({"model": DEFAULT_MODEL, "max_tokens": 1, "messages": [
        {"role": "user" if i % 2 == 0 else "assistant", "content": f"note {i}"} for i in range(messages)]}).encode()


async def keep_busy(base_url: str, payload: bytes, stop: asyncio.Event, sent: list[int]) -> None:
    """Post the big body again as soon as the last one is answered, until told to stop."""
    async with httpx.AsyncClient(base_url=base_url, timeout=120) as client:
        while not stop.is_set():
            with contextlib.suppress(httpx.HTTPError):
                await client.post("/v1/chat/completions", content=payload,
                                  headers={"content-type": "application/json"})
            sent[0] += 1


async def level(peer: peers.Peer, mode: str, streams: int, tokens: int, tag: str,
                busy: bytes | None) -> dict[str, Any]:
    payloads = [body(peer, mode, i, tokens, f"[{tag} {i}]") for i in range(streams)]
    stop, sent = asyncio.Event(), [0]
    pest = asyncio.create_task(keep_busy(peer.base_url, busy, stop, sent)) if busy else None
    if pest:
        await asyncio.sleep(1.0)  # let the first big body reach the worker
    async with httpx.AsyncClient(base_url=peer.base_url, timeout=900) as client:
        cpu, start = cpu_seconds(peer.process.pid), time.perf_counter()
        shots = await asyncio.gather(*(shot(client, p) for p in payloads))
        wall, cpu = time.perf_counter() - start, cpu_seconds(peer.process.pid) - cpu
    stop.set()
    if pest:
        await pest
    made = sum(s.tokens for s in shots)
    gaps = [statistics.median(b - a for a, b in zip(s.stamps, s.stamps[1:], strict=False))
            for s in shots if len(s.stamps) > 2]
    return {"agg_tok_s": made / wall, "itl_p50_ms": statistics.median(gaps) * 1000 if gaps else float("nan"),
            "ttft_p50_ms": _pct([s.ttft_s for s in shots], 0.5) * 1000,
            "ttft_p95_ms": _pct([s.ttft_s for s in shots], 0.95) * 1000,
            "cpu_ms_per_token": cpu / max(made, 1) * 1000, "errors": sum(1 for s in shots if s.error),
            "big_bodies": sent[0]}


async def run(servers: dict[str, peers.Peer], levels: list[int], tokens: int, busy: bytes) -> list[str]:
    for peer in servers.values():
        await level(peer, "greedy", 2, 8, "warm-up", None)
    lines, turn = [], 0
    for load in ("quiet", "busy"):
        for mode in ("greedy", "sampled"):
            for streams in levels:
                names = list(servers)[turn % len(servers):] + list(servers)[:turn % len(servers)]  # rotate
                turn += 1
                for name in names:
                    got = await level(servers[name], mode, streams, tokens, f"{load} {mode} {streams}",
                                      busy if load == "busy" else None)
                    line = (f"{name:<9}{load:<7}{mode:<9}{streams:>3} streams  " + "  ".join(
                        f"{k} {v:.1f}" if isinstance(v, float) else f"{k} {v}" for k, v in got.items()))
                    print(line, flush=True)
                    lines.append(line)
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=32)
    parser.add_argument("--levels", default="1,8,16")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--messages", type=int, default=20_000)
    parser.add_argument("--baseline-src", type=Path, help="the src folder of the build to compare against")
    parser.add_argument("--flags-a", default="", help="serve flags for the baseline side")
    parser.add_argument("--flags-b", default="", help="serve flags for this checkout's side")
    parser.add_argument("--flags-c", default=None, help="a third server: this checkout with these flags")
    parser.add_argument("--note", default="")
    parser.add_argument("--record", default="")
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="superfluid-gil-traffic-"))
    baseline = args.baseline_src
    if baseline is None:
        # The whole tree: src/superfluid/openapi is a link to the top-level openapi folder.
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", "main"], capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", str(scratch)], input=archive.stdout, check=True)
        baseline = scratch / "src"
    common = {"threads": args.threads, "lanes": LANES, "window": WINDOW, "logs": scratch}
    load_before = os.getloadavg()[0]
    servers = {
        "main": peers.superfluid(DEFAULT_MODEL, name="main", env={"PYTHONPATH": str(baseline)},
                                 flags=tuple(shlex.split(args.flags_a)), **common),
        "branch": peers.superfluid(DEFAULT_MODEL, name="branch", env={"PYTHONPATH": str(ROOT / "src")},
                                   flags=tuple(shlex.split(args.flags_b)), **common),
    }
    if args.flags_c is not None:
        servers["branch-c"] = peers.superfluid(DEFAULT_MODEL, name="branch-c",
                                               env={"PYTHONPATH": str(ROOT / "src")},
                                               flags=tuple(shlex.split(args.flags_c)), **common)
    try:
        lines = asyncio.run(run(servers, [int(x) for x in args.levels.split(",")], args.tokens,
                                busy_body(args.messages)))
    finally:
        for peer in servers.values():
            peer.stop()
    header = (f"machine: {platform.machine()}, {len(os.sched_getaffinity(0))} cores; threads={args.threads}; "
              f"{args.tokens} tokens/stream; {LANES} lanes x {WINDOW}; main = {baseline}"
              f"{' ' + args.flags_a if args.flags_a else ''}; branch = {ROOT / 'src'}"
              f"{' ' + args.flags_b if args.flags_b else ''}"
              f"{'; branch-c = the same ' + args.flags_c if args.flags_c is not None else ''}"
              f"; busy = a client posting a {args.messages:,}-message "
              f"body in a loop; load average {load_before:.1f} before, {os.getloadavg()[0]:.1f} after"
              + (f"\nnote: {args.note}" if args.note else ""))
    text = header + "\n" + "\n".join(lines)
    print(text)
    if args.record:
        print(record(args.record, text))


if __name__ == "__main__":
    main()
