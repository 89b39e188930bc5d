"""Foundation benchmark: what serving over HTTP costs compared with driving llama.cpp directly.

Measured side by side in one run, same model file, same thread count:

1. single-stream decode tokens/s: ``superfluid serve`` over HTTP with SSE streaming, divided by a direct
   llama-cpp-python loop (llama_decode one token, greedy sample, repeat). Target >= 0.95.
2. added latency of a non-streaming ``max_tokens=1`` chat request over the same request made directly on
   the engine in-process (``ServedModel.generate``), both with a warm prefix. Target <= 5 ms at p50.

Run: ``python -m benchmarks.foundation [--tokens 256] [--rounds 5]``; results go to stdout and, with
``--record``, to benchmarks/results/foundation.txt.
"""

from __future__ import annotations

import argparse
import asyncio
import ctypes
import json
import os
import platform
import statistics
import time
from pathlib import Path

import httpx
import llama_cpp
from conformance.server import start_server, stop_server

from superfluid.engine.model_sources import DEFAULT_MODEL, resolve
from superfluid.engine.served_model import ServedModel
from superfluid.engine.types import ChatMessage, ChatPrompt, GenerationRequest, SamplingParams
from superfluid.settings import Settings

PROMPT = "Write a long story about a lighthouse keeper and the sea."


def direct_decode_rate(path: Path, n_tokens: int, threads: int) -> float:
    """Tokens/s of a bare llama.cpp decode loop: one token per llama_decode, greedy, EOS suppressed."""
    llama_cpp.llama_backend_init()
    mparams = llama_cpp.llama_model_default_params()
    model = llama_cpp.llama_model_load_from_file(str(path).encode(), mparams)
    vocab = llama_cpp.llama_model_get_vocab(model)
    cparams = llama_cpp.llama_context_default_params()
    cparams.n_ctx = 2048
    cparams.n_batch = 512
    cparams.n_threads = threads
    cparams.n_threads_batch = threads
    ctx = llama_cpp.llama_init_from_model(model, cparams)
    n_vocab = llama_cpp.llama_vocab_n_tokens(vocab)
    eog = [t for t in range(n_vocab) if llama_cpp.llama_vocab_is_eog(vocab, t)]
    bias = (llama_cpp.llama_logit_bias * len(eog))(*[llama_cpp.llama_logit_bias(t, float("-inf")) for t in eog])
    chain = llama_cpp.llama_sampler_chain_init(llama_cpp.llama_sampler_chain_default_params())
    llama_cpp.llama_sampler_chain_add(chain, llama_cpp.llama_sampler_init_logit_bias(n_vocab, len(eog), bias))
    llama_cpp.llama_sampler_chain_add(chain, llama_cpp.llama_sampler_init_greedy())
    data = PROMPT.encode()
    buf = (llama_cpp.llama_token * 512)()
    n = llama_cpp.llama_tokenize(vocab, data, len(data), buf, 512, True, False)
    tokens = (llama_cpp.llama_token * n)(*buf[:n])
    llama_cpp.llama_decode(ctx, llama_cpp.llama_batch_get_one(tokens, n))
    one = (llama_cpp.llama_token * 1)()
    piece = ctypes.create_string_buffer(64)
    token = llama_cpp.llama_sampler_sample(chain, ctx, -1)
    start = time.perf_counter()
    for _ in range(n_tokens - 1):
        llama_cpp.llama_token_to_piece(vocab, token, piece, 64, 0, False)
        one[0] = token
        llama_cpp.llama_decode(ctx, llama_cpp.llama_batch_get_one(one, 1))
        token = llama_cpp.llama_sampler_sample(chain, ctx, -1)
    elapsed = time.perf_counter() - start
    llama_cpp.llama_sampler_free(chain)
    llama_cpp.llama_free(ctx)
    llama_cpp.llama_model_free(model)
    return (n_tokens - 1) / elapsed


def served_decode_rate(client: httpx.Client, model: str, n_tokens: int) -> float:
    """Tokens/s between the first and the last content chunk of one streamed reply."""
    body = {"model": model, "messages": [{"role": "user", "content": PROMPT}], "max_tokens": n_tokens,
            "temperature": 0, "ignore_eos": True, "stream": True}
    stamps: list[float] = []
    completion = 0
    with client.stream("POST", "/v1/chat/completions", json=body) as response:
        for line in response.iter_lines():
            if not line.startswith("data: {"):
                continue
            frame = json.loads(line[6:])
            if frame["choices"] and frame["choices"][0]["delta"].get("content"):
                stamps.append(time.perf_counter())
            if frame.get("usage"):
                completion = frame["usage"]["completion_tokens"]
    assert completion == n_tokens, f"expected {n_tokens} tokens, got {completion}"
    # Each content chunk carries one token here (ignore_eos, no stop strings), so chunks ~ tokens.
    return (len(stamps) - 1) / (stamps[-1] - stamps[0])


def http_latency_ms(client: httpx.Client, model: str, rounds: int) -> list[float]:
    body = {"model": model, "messages": [{"role": "user", "content": PROMPT}], "max_tokens": 1, "temperature": 0}
    out = []
    for _ in range(rounds):
        start = time.perf_counter()
        response = client.post("/v1/chat/completions", json=body)
        out.append((time.perf_counter() - start) * 1000)
        response.raise_for_status()
    return out


def engine_latency_ms(served: ServedModel, rounds: int) -> list[float]:
    request = GenerationRequest(
        model=served.id,
        prompt=ChatPrompt(messages=(ChatMessage(role="user", content=PROMPT),)),
        sampling=SamplingParams(temperature=0.0),
        max_tokens=1,
    )

    async def run() -> list[float]:
        out = []
        for _ in range(rounds):
            start = time.perf_counter()
            await served.generate(request).collect()
            out.append((time.perf_counter() - start) * 1000)
        return out

    return asyncio.run(run())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=256)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--latency-rounds", type=int, default=200)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--record", action="store_true")
    parser.add_argument("--server-arg", action="append", default=[],
                        help="extra `superfluid serve` flag (repeatable), e.g. --server-arg=--spec-draft=0")
    args = parser.parse_args()

    source = resolve(DEFAULT_MODEL)
    path = source.locate()
    lines = [
        f"machine: {platform.machine()}, {os.cpu_count()} cores, {platform.python_implementation()} "
        f"{platform.python_version()}, llama-cpp-python {llama_cpp.__version__}",
        f"model: {DEFAULT_MODEL} ({path.name}), threads={args.threads}, {args.tokens} tokens/stream, "
        f"{args.rounds} rounds; server flags: --parallel 1 {' '.join(args.server_arg)}".rstrip(),
    ]
    log_path = Path("/tmp/superfluid-bench-serve.log")
    server = start_server([DEFAULT_MODEL, "--threads", str(args.threads), "--parallel", "1", *args.server_arg],
                          log_path)
    try:
        with httpx.Client(base_url=server.base_url, timeout=300) as client:
            served_decode_rate(client, DEFAULT_MODEL, 16)  # warm-up
            direct, served = [], []
            for _ in range(args.rounds):  # interleaved, so drift hits both sides alike
                direct.append(direct_decode_rate(path, args.tokens, args.threads))
                served.append(served_decode_rate(client, DEFAULT_MODEL, args.tokens))
            d, s = statistics.median(direct), statistics.median(served)
            lines.append(f"decode tok/s  direct llama-cpp-python loop: median {d:.1f}  (runs: "
                         + ", ".join(f"{x:.1f}" for x in direct) + ")")
            lines.append(f"decode tok/s  superfluid serve, HTTP+SSE:   median {s:.1f}  (runs: "
                         + ", ".join(f"{x:.1f}" for x in served) + ")")
            paired = statistics.median(b / a for a, b in zip(direct, served, strict=True))
            lines.append(f"ratio served/direct: {s / d:.3f} of medians, {paired:.3f} median of paired rounds   "
                         "(target >= 0.95)")

            settings = Settings(models=(DEFAULT_MODEL,), threads=args.threads, parallel=1)
            engine = ServedModel.load(DEFAULT_MODEL, source, settings)
            try:
                http_latency_ms(client, DEFAULT_MODEL, 10)
                engine_latency_ms(engine, 10)
                http_ms, engine_ms = [], []
                for _ in range(args.latency_rounds // 20):
                    http_ms += http_latency_ms(client, DEFAULT_MODEL, 20)
                    engine_ms += engine_latency_ms(engine, 20)
            finally:
                engine.close()
            hp, ep = statistics.median(http_ms), statistics.median(engine_ms)
            lines.append(f"max_tokens=1 latency p50: HTTP {hp:.2f} ms, engine in-process {ep:.2f} ms, "
                         f"added {hp - ep:.2f} ms   (target <= 5 ms; {len(http_ms)} requests each)")
            q = statistics.quantiles
            lines.append(f"max_tokens=1 latency p90: HTTP {q(http_ms, n=10)[-1]:.2f} ms, "
                         f"engine {q(engine_ms, n=10)[-1]:.2f} ms")
    finally:
        stop_server(server)
    report = "\n".join(lines)
    print(report)
    if args.record:
        out = Path(__file__).resolve().parent / "results" / "foundation.txt"
        out.parent.mkdir(exist_ok=True)
        out.write_text(time.strftime("%Y-%m-%d %H:%M UTC\n", time.gmtime()) + report + "\n")


if __name__ == "__main__":
    main()
