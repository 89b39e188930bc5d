"""Issue 35's verdict: the traffic benchmark's levels in interleaved rounds, each figure's median and spread.

One run of benchmarks/traffic.py gives each cell once, and a cell moves by 0.1-0.3 between runs on this kind of
machine. This starts the same two servers with the same flags (traffic.py's ``side_by_side``) and sends every
level in greedy and sampled traffic ``--rounds`` times. Who goes first alternates from cell to cell and from round
to round, so each server goes first in half of every cell's rounds. For each cell it reports the ratio
superfluid / llama-server of the aggregate rate and of the p95 time to first token, round by round, and their
median, minimum and maximum; then issue 35's targets against the medians:

* aggregate at 8 and 16 streams at least 1.05x llama-server's, greedy and sampled;
* a single stream at least 1.0x (the level's aggregate: the whole mix, time to first token included);
* p95 time to first token at most llama-server's, at every level measured.

The record's file name carries the processor's kind (``traffic-rounds-intel-amx``...). With the environment's
``SUPERFLUID_AMX=off`` on a CPU with AMX both servers load without llama.cpp's extra buffer types, so both run the
plain AVX-512 kernels, the ones a CPU without AMX runs; that record is named ``...-plain-kernels``.

``--superfluid-flags "..."`` adds flags to superfluid's command line, to try one of its own choices that
llama-server does not make (``--spec-draft 0``, ``--switch-interval-ms 5``); the record's name ends with them
(``...-specdraft-0``).

Run: ``python -m benchmarks.traffic_rounds [--rounds 5] [--levels 1,8,16] [--record]`` (about a minute a
round on the AMX kernels, two on the plain ones). Never part of the test suite.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import re
import shlex
import statistics
from pathlib import Path
from typing import Any

from benchmarks import peers, traffic
from benchmarks.recording import cpu_kind, machine_line, record
from superfluid.engine.models.amx import built_with_amx, extra_buffers_usable
from superfluid.engine.models.model_sources import DEFAULT_MODEL, resolve

MODES = ("greedy", "sampled")
TARGET_AGGREGATE = 1.05
"""At 8 and 16 streams."""
TARGET_SINGLE = 1.0


async def run(servers: dict[str, peers.Peer], levels: list[int], max_tokens: int,
              rounds: int) -> dict[str, list[dict[str, Any]]]:
    """Every cell (traffic and level) ``rounds`` times for each server: ``{"greedy c8": [{"superfluid": level,
    "llama-server": level, "first": name}, ...]}``."""
    for peer in servers.values():  # warm up: first requests load pages, build caches
        await traffic.level(peer, "greedy", 2, 8, "warm-up")
    cells: dict[str, list[dict[str, Any]]] = {}
    turn = 0
    for round_no in range(rounds):
        for mode in MODES:
            for concurrency in levels:
                # the turn counter runs over cells and rounds; an even count of cells per round would give a
                # cell the same order every round, so the round number flips it again
                names = list(servers) if (turn + round_no) % 2 == 0 else list(reversed(servers))
                turn += 1
                cell = f"{mode} c{concurrency}"
                got: dict[str, Any] = {"first": names[0]}
                for name in names:
                    got[name] = await traffic.level(servers[name], mode, concurrency, max_tokens,
                                                    f"{cell} r{round_no}", traffic.requests_at(concurrency))
                cells.setdefault(cell, []).append(got)
                ours, theirs = got["superfluid"], got["llama-server"]
                print(f"round {round_no} {cell}: aggregate {ours['aggregate_tok_s']:.1f} / "
                      f"{theirs['aggregate_tok_s']:.1f}, p95 TTFT {ours['ttft_p95_ms']:.0f} / "
                      f"{theirs['ttft_p95_ms']:.0f} ms, {names[0]} first", flush=True)
    return cells


def _spread(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} ({min(values):.2f}-{max(values):.2f})"


def report(cells: dict[str, list[dict[str, Any]]], levels: list[int], header: str) -> str:
    lines = [header, "superfluid / llama-server per cell: median (lowest-highest) over the rounds; then each round",
             f"{'cell':<12}{'aggregate':>20}{'p95 TTFT':>20}  {'superfluid / llama-server tok/s, medians':<40}"
             "  rounds (aggregate ratio)"]
    verdicts = []
    for mode in MODES:
        for concurrency in levels:
            cell = f"{mode} c{concurrency}"
            runs = cells[cell]
            agg = [r["superfluid"]["aggregate_tok_s"] / r["llama-server"]["aggregate_tok_s"] for r in runs]
            ttft = [r["superfluid"]["ttft_p95_ms"] / r["llama-server"]["ttft_p95_ms"] for r in runs]
            ours = statistics.median(r["superfluid"]["aggregate_tok_s"] for r in runs)
            theirs = statistics.median(r["llama-server"]["aggregate_tok_s"] for r in runs)
            errors = sum(len(r[name]["errors"]) for r in runs for name in ("superfluid", "llama-server"))
            lines.append(f"{cell:<12}{_spread(agg):>20}{_spread(ttft):>20}  {f'{ours:.1f} / {theirs:.1f}':<40}  "
                         + " ".join(f"{a:.2f}" for a in agg) + (f"  errors {errors}" if errors else ""))
            agg_median, ttft_median = statistics.median(agg), statistics.median(ttft)
            floor = TARGET_SINGLE if concurrency == 1 else TARGET_AGGREGATE if concurrency in (8, 16) else None
            if floor is not None:
                verdicts.append((f"{cell} aggregate >= {floor:.2f}x", agg_median, agg_median >= floor))
            verdicts.append((f"{cell} p95 TTFT <= 1.00x", ttft_median, ttft_median <= 1.0))
    lines.append("issue 35's targets, on the medians:")
    lines += [f"  {'met   ' if ok else 'MISSED'} {name}: {value:.2f}" for name, value, ok in verdicts]
    met = sum(ok for _, _, ok in verdicts)
    lines.append(f"  {met} of {len(verdicts)} met")
    return "\n".join(lines)


def plain_kernels() -> bool:
    """Whether this run's servers use llama.cpp's plain kernels on a CPU whose build has AMX ones."""
    return built_with_amx() and not extra_buffers_usable()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--levels", default="1,8,16")
    parser.add_argument("--tokens", type=int, default=96)
    parser.add_argument("--record", action="store_true")
    parser.add_argument("--llama-server", type=Path, default=peers.LLAMA_SERVER)
    parser.add_argument("--note", default="", help="a line for the record (e.g. what else ran on the machine)")
    parser.add_argument("--superfluid-flags", default="",
                        help="more flags for superfluid, to try one of its own choices against llama-server "
                             "(e.g. \"--spec-draft 0\"); the record's name says them")
    args = parser.parse_args()
    flags = tuple(shlex.split(args.superfluid_flags))
    levels = [int(x) for x in args.levels.split(",")]
    gguf = resolve(DEFAULT_MODEL).locate()
    logs = Path(f"/tmp/superfluid-traffic-rounds-{os.getpid()}")
    logs.mkdir(exist_ok=True)
    load_before = os.getloadavg()[0]
    servers = traffic.side_by_side(args.threads, logs, args.llama_server, flags=flags)
    try:
        cells = asyncio.run(run(servers, levels, args.tokens, args.rounds))
    finally:
        for peer in servers.values():
            peer.stop()
    kernels = ("plain kernels on both sides (SUPERFLUID_AMX=off; llama-server --no-repack)" if plain_kernels()
               else "llama.cpp's extra buffer types on both sides" if built_with_amx() else "llama.cpp's kernels")
    header = (f"{machine_line()}\n"
              f"machine: {platform.machine()}, {len(os.sched_getaffinity(0))} cores; threads={args.threads}; "
              f"model {gguf.name}; {args.tokens} tokens/stream; {traffic.LANES} lanes x {traffic.WINDOW} window; "
              f"flash attention {peers.flash_attn()} on every side; {kernels}; {args.rounds} rounds; load average "
              f"{load_before:.1f} before, {os.getloadavg()[0]:.1f} after"
              + (f"; superfluid also given {' '.join(flags)}" if flags else "")
              + (f"\nnote: {args.note}" if args.note else ""))
    text = report(cells, levels, header)
    print(text)
    if args.record:
        name = (f"traffic-rounds-{cpu_kind()}" + ("-plain-kernels" if plain_kernels() else "")
                + "".join(f"-{re.sub('[^a-z0-9]+', '', part.lower())}" for part in flags))
        print(record(name, text + "\n" + json.dumps(cells, indent=1)))


if __name__ == "__main__":
    main()
