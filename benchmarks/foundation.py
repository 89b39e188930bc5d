"""Foundation benchmark: what serving over HTTP costs compared with driving llama.cpp directly.

Measured side by side in one run, same model file, same thread count:

1. single-stream decode tokens/s: ``superfluid serve`` over HTTP with SSE streaming, divided by a direct
   llama-cpp-python loop (llama_decode one token, greedy sample, repeat). Target >= 0.95.
2. added latency of a non-streaming ``max_tokens=1`` chat request over the same request made directly on
   the engine in-process (``ServedModel.generate``), both with a warm prefix. Target <= 5 ms at p50.

The served side is measured on a plain socket that only stamps each read's arrival (frames are parsed after
the stream ends), so on a small machine the client takes as little CPU as it can from the server it measures.
Two servers run side by side: default flags, and ``--spec-draft 0`` (serving alone, no speculative drafting).

Run: ``python -m benchmarks.foundation [--tokens 256] [--rounds 10]``; results go to stdout and, with
``--record``, to benchmarks/results/foundation.txt.
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import ctypes
import json
import os
import platform
import socket
import statistics
import time
from pathlib import Path

import httpx
import llama_cpp
from conformance.server import start_server, stop_server

from benchmarks.recording import record
from superfluid.engine.models.amx import extra_buffers_usable
from superfluid.engine.models.model_sources import DEFAULT_MODEL, resolve
from superfluid.engine.models.served_model import ServedModel
from superfluid.engine.types import ChatMessage, ChatPrompt, GenerationRequest, SamplingParams
from superfluid.settings import Settings

PROMPT = "Write a long story about a lighthouse keeper and the sea."


def direct_decode_rate(path: Path, n_tokens: int, threads: int, n_ctx: int = 8192) -> float:
    """Tokens/s of a bare llama.cpp decode loop: one token per llama_decode, greedy, EOS suppressed."""
    llama_cpp.llama_backend_init()
    mparams = llama_cpp.llama_model_default_params()
    mparams.use_extra_bufts = extra_buffers_usable()  # as the server loads it
    model = llama_cpp.llama_model_load_from_file(str(path).encode(), mparams)
    vocab = llama_cpp.llama_model_get_vocab(model)
    cparams = llama_cpp.llama_context_default_params()
    cparams.n_ctx = n_ctx  # the window the server opens for this model, so both sides attend over the same cache
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


def _stream_chat(base_url: str, body: dict[str, object], path: str = "/v1/chat/completions"
                 ) -> list[tuple[float, bytes]]:
    """POST a streaming request on a plain socket; every read is kept with its arrival time.

    The client does no parsing while the stream runs, so on a 2-core machine it takes as little CPU as
    possible away from the server it measures; the frames are decoded afterwards.
    """
    host, port = base_url.removeprefix("http://").split(":")
    payload = json.dumps(body).encode()
    head = (f"POST {path} HTTP/1.1\r\nhost: {host}\r\ncontent-type: application/json\r\n"
            f"content-length: {len(payload)}\r\nconnection: close\r\n\r\n").encode()
    reads: list[tuple[float, bytes]] = []
    with socket.create_connection((host, int(port))) as sock:
        sock.sendall(head + payload)
        while data := sock.recv(1 << 16):
            reads.append((time.perf_counter(), data))
    return reads


def _sse_frames(reads: list[tuple[float, bytes]]) -> list[tuple[float, dict[str, object]]]:
    """(arrival time, JSON) of each SSE data frame, undoing HTTP/1.1 chunked transfer encoding."""
    raw = b"".join(data for _, data in reads)
    ends, stamps, offset = [], [], 0
    for stamp, data in reads:
        offset += len(data)
        ends.append(offset)
        stamps.append(stamp)
    header_end = raw.index(b"\r\n\r\n") + 4
    assert b"transfer-encoding: chunked" in raw[:header_end].lower(), raw[:header_end]
    body, arrival, pos = bytearray(), [], header_end
    while True:
        line_end = raw.index(b"\r\n", pos)
        size = int(raw[pos:line_end], 16)
        if size == 0:
            break
        start = line_end + 2
        body += raw[start:start + size]
        # The whole chunk was in hand once the read holding its last byte arrived.
        arrival += [stamps[bisect.bisect_left(ends, start + size)]] * size
        pos = start + size + 2
    frames, at = [], 0
    for block in bytes(body).split(b"\n\n"):
        at += len(block) + 2
        data = block.rpartition(b"\n")[2]  # the data line, after an ``event:`` line when the dialect names events
        if data.startswith(b"data: {"):
            frames.append((arrival[at - 3], json.loads(data[6:])))
    return frames


def served_decode_rate(base_url: str, model: str, n_tokens: int) -> float:
    """Tokens/s between the first and the last content chunk of one streamed reply."""
    body = {"model": model, "messages": [{"role": "user", "content": PROMPT}], "max_tokens": n_tokens,
            "temperature": 0, "ignore_eos": True, "stream": True}
    stamps: list[float] = []
    completion = 0
    for stamp, frame in _sse_frames(_stream_chat(base_url, body)):
        choices = frame["choices"]
        assert isinstance(choices, list)
        if choices and choices[0]["delta"].get("content"):
            stamps.append(stamp)
        usage = frame.get("usage")
        if isinstance(usage, dict):
            completion = usage["completion_tokens"]
    assert completion == n_tokens, f"expected {n_tokens} tokens, got {completion}"
    # Each token goes out in a chunk of its own (ignore_eos, no stop strings), so chunks ~ tokens; a token that
    # only completes a UTF-8 character shares a chunk, which makes this count err low.
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


def _quartiles(values: list[float]) -> str:
    q1, _, q3 = statistics.quantiles(values, n=4)
    return f"{q1:.3f}-{q3:.3f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=256)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--latency-rounds", type=int, default=200)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--record", action="store_true")
    parser.add_argument("--server-arg", action="append", default=[],
                        help="extra `superfluid serve` flag for both servers (repeatable)")
    args = parser.parse_args()

    source = resolve(DEFAULT_MODEL)
    path = source.locate()
    base = [DEFAULT_MODEL, "--threads", str(args.threads), "--parallel", "1", *args.server_arg]
    # Two servers, side by side: default flags, and with drafting off (serving cost alone, no speculation).
    variants = {"default flags": base, "--spec-draft 0": [*base, "--spec-draft", "0"]}
    lines = [
        f"machine: {platform.machine()}, {os.cpu_count()} cores, {platform.python_implementation()} "
        f"{platform.python_version()}, llama-cpp-python {llama_cpp.__version__}",
        f"model: {DEFAULT_MODEL} ({path.name}), threads={args.threads}, {args.tokens} tokens/stream, "
        f"{args.rounds} rounds; server flags: {' '.join(base[1:])}",
    ]
    servers = {name: start_server(flags, Path(f"/tmp/superfluid-bench-serve-{i}.log"))
               for i, (name, flags) in enumerate(variants.items())}
    try:
        for server in servers.values():
            served_decode_rate(server.base_url, DEFAULT_MODEL, 16)  # warm-up
        direct: list[float] = []
        served: dict[str, list[float]] = {name: [] for name in servers}
        for _ in range(args.rounds):  # interleaved, so drift hits every side alike
            direct.append(direct_decode_rate(path, args.tokens, args.threads))
            for name, server in servers.items():
                served[name].append(served_decode_rate(server.base_url, DEFAULT_MODEL, args.tokens))
        d = statistics.median(direct)
        lines.append(f"decode tok/s  direct llama-cpp-python loop: median {d:.1f}  (runs: "
                     + ", ".join(f"{x:.1f}" for x in direct) + ")")
        for name, rates in served.items():
            s = statistics.median(rates)
            paired = [b / a for a, b in zip(direct, rates, strict=True)]
            lines.append(f"decode tok/s  superfluid serve ({name}), HTTP+SSE: median {s:.1f}  (runs: "
                         + ", ".join(f"{x:.1f}" for x in rates) + ")")
            lines.append(f"  ratio served/direct ({name}): {statistics.median(paired):.3f} median of paired rounds "
                         f"(quartiles {_quartiles(paired)}), {s / d:.3f} of medians   (target >= 0.95)")

        client_url = servers["default flags"].base_url
        settings = Settings(models=(DEFAULT_MODEL,), threads=args.threads, parallel=1)
        engine = ServedModel.load(DEFAULT_MODEL, source, settings)
        try:
            with httpx.Client(base_url=client_url, timeout=300) as client:
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
        for server in servers.values():
            stop_server(server)
    report = "\n".join(lines)
    print(report)
    if args.record:
        record("foundation", report)


if __name__ == "__main__":
    main()
