"""Per-token overhead where decoding is nearly free: superfluid beside llama-server on a one-layer model (issue 51).

A Llama-shaped GGUF with random weights, one layer 64 wide, with the bundled model's tokenizer, 49,152-token
vocabulary and chat template, is written at run time (conformance/random_models.py; nothing large committed). Its
output matrix is scaled so that the logits are peaked like a trained model's (``Shape.logit_std``), not flat. A
decode step of it costs almost nothing beside the output layer, so what is measured is each server's own cost per
token: sampling, detokenizing, stop strings, building and writing replies.

Both servers get the same file and the same number of lanes as streams (1,024 cells of context each), every
request asks for 256 tokens with ``ignore_eos``, prompts vary (a story, code or an explanation, on eight topics).
Each level starts both servers, warms them, then runs every cell (greedy or sampled at temperature 0.7 / top-p
0.95 with llama.cpp's default top-k 40 and min-p 0.05; streamed or not) ``--rounds`` times, who goes first
alternating from cell to cell and round to round. Recorded per cell, medians over the rounds: aggregate tokens/s
(completion tokens from ``usage`` over the cell's wall time), the ratio, inter-token p50/p99 (streamed cells: gaps
between content frames), p95 time to first token (streamed) or p95 latency (not streamed), and each server's
CPU-seconds per generated token (its process, threads and children together), with the load generator's own CPU
per token beside them: on two cores it competes with the server.

Run: ``python -m benchmarks.host_bound [--levels 1,8,32,64,128] [--rounds 2] [--record]``. Needs llama-server
(benchmarks/build_llama_server.sh). Never part of the test suite.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from conformance.random_models import write_llama

from benchmarks import peers, traffic
from benchmarks.recording import cpu_kind, machine_line, record

SHAPE: dict[str, Any] = {"layers": 1, "width": 64, "heads": 4, "kv_heads": 2, "ff": 128}
WINDOW = 1024
"""Context cells per lane."""
MAX_TOKENS = 256
MODES = ("greedy streamed", "greedy not-streamed", "sampled streamed", "sampled not-streamed")
TOPICS = ("a lighthouse", "a night train", "an old library", "a mountain pass", "a desert caravan", "a bakery",
          "a chess club", "a submarine")
ASKS = ("Write a long story about {}.", "Write a Python class that models {}, with methods and docstrings.",
        "Explain in detail how {} works, and why people care about it.")
TARGET = 1.2
"""Aggregate ratio at 8 to 128 streams, every mode."""


def body(model: str, mode: str, i: int, tag: str) -> dict[str, Any]:
    ask = ASKS[i % len(ASKS)].format(TOPICS[i % len(TOPICS)])
    out: dict[str, Any] = {"model": model, "max_tokens": MAX_TOKENS, "ignore_eos": True,
                           "messages": [{"role": "user", "content": f"[{tag} {i}] {ask}"}]}
    if mode.endswith(" streamed"):
        out.update(stream=True, stream_options={"include_usage": True})
    if mode.startswith("greedy"):
        out["temperature"] = 0
    else:
        out.update(temperature=0.7, top_p=0.95, seed=1000 + i)
    return out


@dataclass
class Shot:
    first_s: float = float("nan")
    """Streamed: time to the first content frame; not streamed: the whole reply's latency."""
    tokens: int = 0
    gaps: list[float] = field(default_factory=list)
    error: str | None = None


async def shot(client: httpx.AsyncClient, payload: dict[str, Any]) -> Shot:
    if payload.get("stream"):  # traffic.py's reader: a stamp per content frame, tokens from usage
        streamed = await traffic.shot(client, payload)
        gaps = [b - a for a, b in zip(streamed.stamps, streamed.stamps[1:], strict=False)]
        return Shot(first_s=streamed.ttft_s, tokens=streamed.tokens, gaps=gaps, error=streamed.error)
    start = time.perf_counter()
    result = Shot()
    try:
        response = await client.post("/v1/chat/completions", json=payload)
        result.first_s = time.perf_counter() - start
        if response.status_code != 200:
            result.error = f"HTTP {response.status_code}: {response.text[:200]}"
        else:
            result.tokens = int(response.json()["usage"]["completion_tokens"])
    except httpx.HTTPError as exc:
        result.error = repr(exc)
    return result


def cpu_all(pid: int) -> float:
    """CPU seconds of a process, its threads, its live children and the children it has waited for."""
    total = 0.0
    for one in (pid, *peers._children(pid)):
        try:
            fields = Path(f"/proc/{one}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += sum(int(x) for x in fields[11:15]) / os.sysconf("SC_CLK_TCK")  # utime stime cutime cstime
    return total


async def cell(peer: peers.Peer, mode: str, streams: int, tag: str) -> dict[str, Any]:
    count = max(streams, 4)
    payloads = [body(peer.model, mode, i, tag) for i in range(count)]
    gate = asyncio.Semaphore(streams)
    limits = httpx.Limits(max_connections=streams + 4, max_keepalive_connections=streams + 4)
    async with httpx.AsyncClient(base_url=peer.base_url, timeout=900, limits=limits) as client:

        async def gated(payload: dict[str, Any]) -> Shot:
            async with gate:
                return await shot(client, payload)

        cpu = cpu_all(peer.process.pid)
        client_cpu = time.process_time()
        start = time.perf_counter()
        shots = list(await asyncio.gather(*(gated(p) for p in payloads)))
        wall = time.perf_counter() - start
        cpu = cpu_all(peer.process.pid) - cpu
        client_cpu = time.process_time() - client_cpu
    tokens = sum(s.tokens for s in shots)
    gaps = [g for s in shots for g in s.gaps]
    return {"tok_s": tokens / wall, "tokens": tokens,
            "first_p95_ms": traffic._pct([s.first_s for s in shots], 0.95) * 1e3,
            "itl_p50_ms": traffic._pct(gaps, 0.5) * 1e3, "itl_p99_ms": traffic._pct(gaps, 0.99) * 1e3,
            "cpu_us_per_token": cpu / max(tokens, 1) * 1e6,
            "client_cpu_us_per_token": client_cpu / max(tokens, 1) * 1e6,
            "errors": [s.error for s in shots if s.error]}


def start(kind: str, gguf: Path, lanes: int, logs: Path, llama_server: Path, flags: tuple[str, ...]) -> peers.Peer:
    threads = len(os.sched_getaffinity(0))
    if kind == "superfluid":
        peer = peers.superfluid(str(gguf), threads=threads, lanes=lanes, window=WINDOW, logs=logs,
                                flags=("--kv-disk-bytes", "0", *flags))
        peer.model = gguf.stem
        return peer
    return peers.llama_server(gguf, threads=threads, lanes=lanes, window=WINDOW, logs=logs, binary=llama_server)


async def run(gguf: Path, levels: list[int], rounds: int, modes: list[str], logs: Path, llama_server: Path,
              flags: tuple[str, ...]) -> dict[str, list[dict[str, Any]]]:
    cells: dict[str, list[dict[str, Any]]] = {}
    turn = 0
    for streams in levels:
        servers = {kind: start(kind, gguf, streams, logs, llama_server, flags)
                   for kind in ("superfluid", "llama-server")}
        try:
            for peer in servers.values():
                await cell(peer, "sampled streamed", min(streams, 8), "warm-up")
            for round_no in range(rounds):
                for mode in modes:
                    order = ["superfluid", "llama-server"] if turn % 2 == 0 else ["llama-server", "superfluid"]
                    turn += 1
                    got: dict[str, Any] = {"first": order[0]}
                    for kind in order:
                        got[kind] = await cell(servers[kind], mode, streams, f"r{round_no} {kind}")
                    key = f"{mode} c{streams}"
                    cells.setdefault(key, []).append(got)
                    sf, ls = got["superfluid"], got["llama-server"]
                    print(f"round {round_no + 1} {key}: superfluid {sf['tok_s']:.0f} tok/s, llama-server "
                          f"{ls['tok_s']:.0f} ({sf['tok_s'] / ls['tok_s']:.2f}); CPU us/token "
                          f"{sf['cpu_us_per_token']:.0f} / {ls['cpu_us_per_token']:.0f}; errors "
                          f"{len(sf['errors'])}/{len(ls['errors'])}", flush=True)
        finally:
            for peer in servers.values():
                peer.stop()
    return cells


def _median(rounds: list[dict[str, Any]], kind: str, key: str) -> float:
    return float(statistics.median(r[kind][key] for r in rounds))


def report(cells: dict[str, list[dict[str, Any]]], levels: list[int], modes: list[str], header: str) -> str:
    lines = [header, "",
             "| traffic | streams | superfluid tok/s | llama-server tok/s | ratio (rounds) | ITL p50 sf/ls ms "
             "| ITL p99 sf/ls ms | p95 first sf/ls ms | server CPU us/token sf/ls | client CPU us/token sf/ls |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    verdicts = []
    for mode in modes:
        for streams in levels:
            rounds = cells.get(f"{mode} c{streams}")
            if not rounds:
                continue
            sf, ls = (_median(rounds, k, "tok_s") for k in ("superfluid", "llama-server"))
            ratios = [r["superfluid"]["tok_s"] / r["llama-server"]["tok_s"] for r in rounds]
            ratio = statistics.median(ratios)

            def pair(key: str, digits: int = 1, rounds: list[dict[str, Any]] = rounds) -> str:
                a, b = (_median(rounds, k, key) for k in ("superfluid", "llama-server"))
                return f"{a:.{digits}f} / {b:.{digits}f}"

            streamed = mode.endswith(" streamed")
            lines.append(f"| {mode} | {streams} | {sf:.0f} | {ls:.0f} | {ratio:.2f} "
                         f"({', '.join(f'{x:.2f}' for x in ratios)}) | "
                         f"{pair('itl_p50_ms', 2) if streamed else '-'} | {pair('itl_p99_ms', 2) if streamed else '-'}"
                         f" | {pair('first_p95_ms', 0)} | {pair('cpu_us_per_token', 0)} | "
                         f"{pair('client_cpu_us_per_token', 0)} |")
            goal = TARGET if streams >= 8 else 1.0
            verdicts.append(f"{mode} c{streams}: {ratio:.2f} against {goal:.1f} "
                            f"{'met' if ratio >= goal else 'MISSED'}")
            if streamed and streams in (8, 64):
                p99 = [_median(rounds, k, "itl_p99_ms") for k in ("superfluid", "llama-server")]
                verdicts.append(f"{mode} c{streams} ITL p99: {p99[0]:.2f} against {p99[1]:.2f} ms "
                                f"{'met' if p99[0] <= p99[1] else 'MISSED'}")
    errors = sum(len(r[k]["errors"]) for rounds in cells.values() for r in rounds for k in ("superfluid",
                                                                                           "llama-server"))
    return "\n".join([*lines, "", "targets (medians):", *verdicts, f"errors: {errors}"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--llama-server", type=Path, default=peers.LLAMA_SERVER)
    parser.add_argument("--levels", default="1,8,32,64,128")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--superfluid-flags", default="", help="more flags for superfluid serve")
    parser.add_argument("--record", action="store_true", help="write benchmarks/results/host-bound-<cpu>.txt")
    args = parser.parse_args()
    levels = [int(x) for x in args.levels.split(",")]
    modes = [m.strip() for m in args.modes.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        gguf = Path(tmp) / "host-bound.gguf"
        write_llama(gguf, **SHAPE)
        started = time.monotonic()
        cells = asyncio.run(run(gguf, levels, args.rounds, modes, Path(tmp), args.llama_server,
                                tuple(args.superfluid_flags.split())))
        elapsed = time.monotonic() - started
    header = "\n".join([
        machine_line(),
        f"model: random Llama {SHAPE}, SmolLM2's vocabulary and template; {MAX_TOKENS} tokens ignoring EOS; as "
        f"many lanes as streams on both, {WINDOW} cells each; {args.rounds} interleaved rounds; {elapsed:.0f} s"
        + (f"; superfluid flags: {args.superfluid_flags}" if args.superfluid_flags else "")])
    text = report(cells, levels, modes, header)
    print(text)
    if args.record:
        name = f"host-bound-{cpu_kind()}" + ("-" + "-".join(args.superfluid_flags.replace("--", "").split())
                                            if args.superfluid_flags else "")
        print(record(name, text + "\n" + json.dumps(cells)))


if __name__ == "__main__":
    main()
