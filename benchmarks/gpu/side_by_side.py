"""Every layer on a GPU: superfluid beside llama-server on random-weight Llama models, sampled traffic.

Where decoding is fast, what a server does around each step decides its throughput; this is the measurement
issue 53 asks for on a lent H100 (benchmarks/gpu/device.sh runs it there) and that runs here on Mesa's software
Vulkan device with the small model, so that the lent minutes go to measuring. Both servers get the same GGUF
(written with random weights as quantized blocks by conformance/random_models.py: SmolLM2's vocabulary and chat
template; replies are noise, so requests ignore the end token), every layer offloaded, one lane per stream, and the
same traffic: ``traffic.level`` (a story, code, a question and a JSON reply, sampled at temperature 0.7), levels
in the order given, who goes first alternating per level. Recorded per level: aggregate tokens/s, p95 time to
first token, and superfluid's host share of its engine steps (the engine thread's time around each decode, from
/metrics) and CPU-seconds per token of both servers.

Run: ``python -m benchmarks.gpu.side_by_side --llama-server PATH --size small|1b|8b [--levels 8,32,1,64]
[--record NAME]``, with llama-cpp-python built for the GPU (or ``LLAMA_CPP_LIB_PATH`` at such a build's
libraries) and, for lavapipe, ``GGML_VK_VISIBLE_DEVICES=0``. Never part of the test suite.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from conformance.random_models import write_llama

from benchmarks import peers, traffic
from benchmarks.engine_account import engine_counters
from benchmarks.recording import machine_line, record
from superfluid.engine import backend_devices

SIZES: dict[str, dict[str, Any]] = {
    "small": {"layers": 2, "width": 256, "heads": 4, "kv_heads": 2, "ff": 512},
    "1b": {"layers": 16, "width": 2048, "heads": 32, "kv_heads": 8, "ff": 8192},
    "8b": {"layers": 32, "width": 4096, "heads": 32, "kv_heads": 8, "ff": 14336},
}
"""Llama shapes by name: about 1.2 and 8 billion parameters for the two big ones (SmolLM2's 49,152 tokens)."""
WINDOW = 1024
MAX_TOKENS = 128


def start(kind: str, gguf: Path, lanes: int, logs: Path, llama_server: Path) -> peers.Peer:
    threads = len(os.sched_getaffinity(0))
    if kind == "superfluid":
        peer = peers.superfluid(str(gguf), threads=threads, lanes=lanes, window=WINDOW, logs=logs,
                                flags=("-ngl", "all", "--kv-disk-bytes", "0"))
        peer.model = gguf.stem
        return peer
    return peers.llama_server(gguf, threads=threads, lanes=lanes, window=WINDOW, logs=logs, binary=llama_server,
                              fa="auto", extra=("-ngl", "all"))


async def measure(peer: peers.Peer, streams: int, tag: str) -> dict[str, Any]:
    before: dict[str, float] = {}
    if peer.name == "superfluid":
        async with httpx.AsyncClient(base_url=peer.base_url, timeout=60) as client:
            before = engine_counters((await client.get("/metrics")).text, peer.model)
    got = await traffic.level(peer, "sampled", streams, MAX_TOKENS, tag, requests=max(2 * streams, 4))
    if peer.name == "superfluid":
        async with httpx.AsyncClient(base_url=peer.base_url, timeout=60) as client:
            after = engine_counters((await client.get("/metrics")).text, peer.model)
        step = after["engine_step_seconds"] - before.get("engine_step_seconds", 0.0)
        decode = sum(after[k] - before.get(k, 0.0) for k in after if k.startswith("engine_decode_seconds:"))
        got["host_share"] = (step - decode) / step if step else float("nan")
    return got


async def run(gguf: Path, levels: list[int], logs: Path, llama_server: Path) -> dict[int, dict[str, Any]]:
    results: dict[int, dict[str, Any]] = {}
    for turn, streams in enumerate(levels):
        kinds = ["superfluid", "llama-server"] if turn % 2 == 0 else ["llama-server", "superfluid"]
        results[streams] = {}
        for kind in kinds:
            peer = start(kind, gguf, streams, logs, llama_server)
            try:
                await traffic.level(peer, "sampled", 1, 8, "warm-up", requests=1)  # kernels compiled, graphs made
                results[streams][kind] = await measure(peer, streams, f"{kind} {streams}")
            finally:
                peer.stop()
            got = results[streams][kind]
            print(f"{streams} streams, {kind}: {got['aggregate_tok_s']:.1f} tok/s, p95 TTFT "
                  f"{got['ttft_p95_ms']:.0f} ms, errors {len(got['errors'])}", flush=True)
    return results


def report(results: dict[int, dict[str, Any]], size: str, elapsed: float) -> str:
    gpus = [f"{d.name} {d.description} ({d.total // 2**20} MiB)" for d in backend_devices() if d.offloads]
    lines = [machine_line(), f"device: {', '.join(gpus) or 'none found'}; "
             f"model {size} {SIZES[size]}; sampled; {MAX_TOKENS} tokens ignoring EOS; one lane per stream; "
             f"{elapsed:.0f} s", "",
             "| streams | superfluid tok/s | llama-server tok/s | ratio | p95 TTFT sf / ls (ms) | host share (sf) "
             "| CPU ms/token sf / ls |", "|---|---|---|---|---|---|---|"]
    for streams, by in results.items():
        sf, ls = by.get("superfluid", {}), by.get("llama-server", {})
        ratio = sf.get("aggregate_tok_s", 0) / ls["aggregate_tok_s"] if ls.get("aggregate_tok_s") else float("nan")
        lines.append(f"| {streams} | {sf.get('aggregate_tok_s', 0):.1f} | {ls.get('aggregate_tok_s', 0):.1f} | "
                     f"{ratio:.2f} | {sf.get('ttft_p95_ms', 0):.0f} / {ls.get('ttft_p95_ms', 0):.0f} | "
                     f"{sf.get('host_share', float('nan')):.0%} | {sf.get('cpu_ms_per_token', 0):.2f} / "
                     f"{ls.get('cpu_ms_per_token', 0):.2f} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--llama-server", type=Path, default=peers.LLAMA_SERVER)
    parser.add_argument("--size", choices=list(SIZES), default="small")
    parser.add_argument("--levels", default="8,32,1,64", help="streams per level, in the order measured")
    parser.add_argument("--models", type=Path, default=None, help="folder to keep the written GGUF in")
    parser.add_argument("--record", default=None, metavar="NAME", help="write benchmarks/results/NAME.txt")
    args = parser.parse_args()
    levels = [int(x) for x in args.levels.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.models or Path(tmp)
        gguf = folder / f"llama-{args.size}.gguf"
        if not gguf.exists():
            started = time.monotonic()
            write_llama(gguf, quant="q4_0", **SIZES[args.size])
            print(f"wrote {gguf} ({gguf.stat().st_size / 2**30:.2f} GiB) in {time.monotonic() - started:.0f} s")
        started = time.monotonic()
        results = asyncio.run(run(gguf, levels, Path(tmp), args.llama_server))
    text = report(results, args.size, time.monotonic() - started)
    print(text)
    if args.record:
        print(record(args.record, text))


if __name__ == "__main__":
    main()
