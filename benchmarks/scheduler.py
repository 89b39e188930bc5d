"""Scheduler benchmark: superfluid against llama-server and llama-cpp-python's server, side by side.

Same model (the bundled SmolLM2-135M Q4_1), same threads, streaming chat, 96 tokens per request with EOS
suppressed. Measures, per server:

* single-stream decode tokens/s (first to last content chunk of one stream);
* 8 concurrent streams: aggregate tokens/s, p95 time to first token, streams cut short;
* warm prefix: time to first token of a request sharing a ~2,600-token system prompt with an earlier one,
  as a fraction of the cold request's;
* resident memory with 8 lanes of a 4,096-token window each, against model file + KV cache + 300 MB.

Run: ``python -m benchmarks.scheduler [--build] [--record] [--skip llama-cpp-python]``. ``--build`` builds
llama-server from the vendored llama.cpp first (about 12 minutes) and creates the llama-cpp-python server's
virtualenv. Never part of the test suite.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from benchmarks import peers
from benchmarks.recording import record
from superfluid.engine.models.model_sources import DEFAULT_MODEL, resolve

TOKENS = 96
LANES = 8
WINDOW = 4096
TOPICS = ["a lighthouse", "a city at night", "an old library", "a mountain pass", "a desert caravan",
          "a submarine", "a rainforest", "a train journey", "a chess match", "a bakery"]
SYSTEM = ("You are a meticulous archivist. Every answer you give is careful, precise and polite. " * 160).strip()


@dataclass
class StreamResult:
    ttft_s: float
    tokens: int
    stamps: list[float] = field(default_factory=list)
    cached: int | None = None
    error: str | None = None


def _body(peer: peers.Peer, messages: list[dict[str, str]], max_tokens: int, eog: list[int]) -> dict[str, Any]:
    body: dict[str, Any] = {"model": peer.model, "messages": messages, "max_tokens": max_tokens, "stream": True,
                            "temperature": 0}
    if peer.name == "llama-cpp-python":
        body["logit_bias"] = {str(t): -100 for t in eog}
    else:
        body["ignore_eos"] = True
    if peer.name == "llama-server":
        body["cache_prompt"] = True
    return body


async def stream(client: httpx.AsyncClient, peer: peers.Peer, messages: list[dict[str, str]], max_tokens: int,
                 eog: list[int]) -> StreamResult:
    start = time.perf_counter()
    result = StreamResult(ttft_s=float("nan"), tokens=0)
    try:
        async with client.stream("POST", "/v1/chat/completions", json=_body(peer, messages, max_tokens, eog)) as r:
            if r.status_code != 200:
                result.error = f"HTTP {r.status_code}"
                return result
            async for line in r.aiter_lines():
                if not line.startswith("data: {"):
                    continue
                frame = json.loads(line[6:])
                if frame.get("error"):
                    result.error = str(frame["error"])
                for choice in frame.get("choices") or []:
                    if (choice.get("delta") or {}).get("content"):
                        now = time.perf_counter()
                        if not result.stamps:
                            result.ttft_s = now - start
                        result.stamps.append(now)
                usage = frame.get("usage") or {}
                if usage:
                    result.tokens = int(usage.get("completion_tokens") or 0)
                    details = usage.get("prompt_tokens_details") or {}
                    result.cached = details.get("cached_tokens")
                timings = frame.get("timings") or {}
                if timings and result.cached is None and "cache_n" in timings:
                    result.cached = int(timings["cache_n"])
    except httpx.HTTPError as exc:
        result.error = repr(exc)
    if not result.tokens:
        result.tokens = len(result.stamps)
    return result


def decode_rate(result: StreamResult) -> float:
    return (len(result.stamps) - 1) / (result.stamps[-1] - result.stamps[0])


async def run_peer(peer: peers.Peer, eog: list[int], round_tag: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    async with httpx.AsyncClient(base_url=peer.base_url, timeout=600) as client:
        await stream(client, peer, [{"role": "user", "content": "Warm up."}], 8, eog)
        single = await stream(client, peer, [{"role": "user", "content": f"{round_tag} Tell a long tale."}], 256,
                              eog)
        out["single_tok_s"] = decode_rate(single)

        asks = [[{"role": "user", "content": f"{round_tag} Stream {i}: describe {TOPICS[i % len(TOPICS)]}."}]
                for i in range(LANES)]
        start = time.perf_counter()
        results = await asyncio.gather(*(stream(client, peer, m, TOKENS, eog) for m in asks))
        wall = time.perf_counter() - start
        out["aggregate_tok_s"] = sum(r.tokens for r in results) / wall
        ttfts = sorted(r.ttft_s for r in results)
        out["p95_ttft_s"] = ttfts[min(len(ttfts) - 1, round(0.95 * (len(ttfts) - 1)))]
        out["cut_short"] = sum(1 for r in results if r.error or r.tokens < TOKENS)

        system = f"{round_tag} {SYSTEM}"
        cold = await stream(client, peer, [{"role": "system", "content": system},
                                           {"role": "user", "content": "First question: who are you?"}], 4, eog)
        warm = await stream(client, peer, [{"role": "system", "content": system},
                                           {"role": "user", "content": "Second question: what do you keep?"}], 4,
                            eog)
        out["cold_ttft_s"], out["warm_ttft_s"] = cold.ttft_s, warm.ttft_s
        out["warm_ratio"] = warm.ttft_s / cold.ttft_s
        out["warm_cached_tokens"] = warm.cached
    out["rss_bytes"] = peer.rss_bytes()
    return out


def kv_bytes(path: Path, cells: int) -> int:
    """f16 K and V for every layer: layers x (kv heads x head size) x 2 tensors x 2 bytes per cell,
    read from the GGUF metadata (a vocab-only load has no per-layer shapes)."""
    import ctypes

    import llama_cpp

    mparams = llama_cpp.llama_model_default_params()
    mparams.vocab_only = True
    model = llama_cpp.llama_model_load_from_file(str(path).encode(), mparams)

    def meta(key: str) -> int:
        buf = ctypes.create_string_buffer(64)
        llama_cpp.llama_model_meta_val_str(model, key.encode(), buf, len(buf))
        return int(buf.value)

    try:
        arch = "llama"
        n_layer = meta(f"{arch}.block_count")
        n_embd = meta(f"{arch}.embedding_length")
        n_head = meta(f"{arch}.attention.head_count")
        n_head_kv = meta(f"{arch}.attention.head_count_kv")
    finally:
        llama_cpp.llama_model_free(model)
    return int(n_layer * n_head_kv * (n_embd // n_head) * 2 * 2 * cells)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--build", action="store_true")
    parser.add_argument("--record", action="store_true")
    parser.add_argument("--skip", action="append", default=[])
    args = parser.parse_args()
    if args.build:
        subprocess.run(["bash", str(Path(__file__).with_name("build_llama_server.sh"))], check=True)
        peers.ensure_lcpp_venv()

    gguf = resolve(DEFAULT_MODEL).locate()
    eog = [0, 2, 4]  # SmolLM2's end-of-generation tokens (llama_vocab_is_eog)
    logs = Path("/tmp/superfluid-bench")
    logs.mkdir(exist_ok=True)
    starters = {
        "superfluid": lambda: peers.superfluid(DEFAULT_MODEL, threads=args.threads, lanes=LANES, window=WINDOW,
                                               logs=logs),
        "llama-server": lambda: peers.llama_server(gguf, threads=args.threads, lanes=LANES, window=WINDOW,
                                                   logs=logs),
        "llama-cpp-python": lambda: peers.llama_cpp_python(gguf, threads=args.threads, window=WINDOW, logs=logs),
    }
    results: dict[str, list[dict[str, Any]]] = {name: [] for name in starters if name not in args.skip}
    for round_no in range(args.rounds):  # interleaved rounds, so drift hits every server alike
        for name in results:
            peer = starters[name]()
            try:
                results[name].append(asyncio.run(run_peer(peer, eog, f"[round {round_no}]")))
            finally:
                peer.stop()

    def med(name: str, key: str) -> float:
        return statistics.median(float(r[key]) for r in results[name])

    lines = [
        f"machine: {platform.machine()}, {os.cpu_count()} cores; threads={args.threads}; model {gguf.name}; "
        f"{TOKENS} tokens/stream; {LANES} lanes x {WINDOW} window; {args.rounds} interleaved rounds (medians)",
        f"{'server':<18}{'1-stream tok/s':>15}{'8-stream tok/s':>16}{'p95 TTFT ms':>13}{'cut short':>11}"
        f"{'warm/cold TTFT':>16}{'cached':>8}{'RSS MB':>9}",
    ]
    for name in results:
        lines.append(
            f"{name:<18}{med(name, 'single_tok_s'):>15.1f}{med(name, 'aggregate_tok_s'):>16.1f}"
            f"{med(name, 'p95_ttft_s') * 1000:>13.0f}{max(r['cut_short'] for r in results[name]):>11d}"
            f"{med(name, 'warm_ratio') * 100:>15.1f}%{results[name][-1]['warm_cached_tokens']!s:>8}"
            f"{med(name, 'rss_bytes') / 2**20:>9.0f}"
        )
    if "superfluid" in results and "llama-server" in results:

        def ratio(key: str) -> float:
            return med("superfluid", key) / med("llama-server", key)

        lines.append(f"superfluid / llama-server: single {ratio('single_tok_s'):.3f} (target >= 0.95), "
                     f"8-stream {ratio('aggregate_tok_s'):.3f} (target >= 1.0), "
                     f"p95 TTFT {ratio('p95_ttft_s'):.3f} (target <= 1.0)")
    if "superfluid" in results and "llama-cpp-python" in results:
        lines.append(f"superfluid / llama-cpp-python 8-stream aggregate: "
                     f"{med('superfluid', 'aggregate_tok_s') / med('llama-cpp-python', 'aggregate_tok_s'):.2f}x "
                     "(target >= 3x)")
    if "superfluid" in results:
        budget = gguf.stat().st_size + kv_bytes(gguf, LANES * WINDOW) + 300 * 2**20
        lines.append(f"superfluid RSS {med('superfluid', 'rss_bytes') / 2**20:.0f} MB vs budget "
                     f"{budget / 2**20:.0f} MB (model file + KV cache of {LANES * WINDOW} cells + 300 MB)")
        lines.append(f"superfluid warm prefix: {med('superfluid', 'warm_ratio') * 100:.1f}% of cold TTFT "
                     "(target <= 5%)")
    report = "\n".join(lines)
    print(report)
    if args.record:
        record("scheduler", report + "\n" + json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
