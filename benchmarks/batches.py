"""Batches benchmark: a batch's throughput (lines per second) against the same requests sent by 8 concurrent
clients, side by side on one server in one run.

Each round runs the same N chat requests (greedy, ``ignore_eos``, a fixed token count) twice: once as a batch
(uploaded as a JSONL file; timed from ``POST /v1/batches`` until the batch reads ``completed``, polled every
0.1 s), once as plain ``/v1/chat/completions`` calls from 8 client threads; rounds alternate which goes first so
drift hits both alike. A batch runs at background QoS with as many lines in flight as the server has lanes, and
background work never takes the last free lane (it is kept for interactive traffic), so where lanes are the
bottleneck a batch can use at most (parallel - 1) of them: target batch/clients >= 0.9 x (parallel - 1) /
parallel (0.675 with the default 4 lanes).

Run: ``python -m benchmarks.batches [--lines 64] [--tokens 32] [--rounds 3]``; results go to stdout and, with
``--record``, to benchmarks/results/batches.txt.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import platform
import statistics
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import llama_cpp
from conformance.server import start_server, stop_server
from openai import OpenAI

from benchmarks.recording import record
from superfluid.engine.models.model_sources import DEFAULT_MODEL

CLIENTS = 8


def requests(n: int, tokens: int) -> list[dict[str, Any]]:
    return [{"model": DEFAULT_MODEL, "messages": [{"role": "user", "content": f"Tell story number {i}."}],
             "max_tokens": tokens, "temperature": 0, "ignore_eos": True} for i in range(n)]


def batch_rate(client: OpenAI, bodies: list[dict[str, Any]]) -> float:
    """Lines per second of one batch of ``bodies``, from its creation until it completed."""
    data = "".join(json.dumps({"custom_id": f"r{i}", "method": "POST", "url": "/v1/chat/completions",
                               "body": body}) + "\n" for i, body in enumerate(bodies)).encode()
    file_id = client.files.create(file=("bench.jsonl", io.BytesIO(data)), purpose="batch").id
    start = time.perf_counter()
    batch = client.batches.create(input_file_id=file_id, endpoint="/v1/chat/completions", completion_window="24h")
    while batch.status not in ("completed", "failed", "cancelled", "expired"):
        time.sleep(0.1)
        batch = client.batches.retrieve(batch.id)
    elapsed = time.perf_counter() - start
    assert batch.status == "completed" and batch.request_counts and batch.request_counts.completed == len(bodies), batch
    client.files.delete(file_id)
    return len(bodies) / elapsed


def clients_rate(base_url: str, bodies: list[dict[str, Any]]) -> float:
    """Requests per second of ``bodies`` sent by CLIENTS threads, each taking the next request when it is free."""
    with httpx.Client(base_url=base_url, timeout=600, limits=httpx.Limits(max_connections=CLIENTS)) as http:
        def send(body: dict[str, Any]) -> None:
            reply = http.post("/v1/chat/completions", json=body)
            assert reply.status_code == 200, reply.text

        start = time.perf_counter()
        with ThreadPoolExecutor(CLIENTS) as pool:
            list(pool.map(send, bodies))
        return len(bodies) / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=64)
    parser.add_argument("--tokens", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--parallel", type=int, default=4)
    parser.add_argument("--note", default="", help="a line about the machine's state, recorded with the numbers")
    parser.add_argument("--record", action="store_true")
    args = parser.parse_args()

    flags = [DEFAULT_MODEL, "--threads", str(args.threads), "--parallel", str(args.parallel)]
    lines = [
        f"machine: {platform.machine()}, {os.cpu_count()} cores, {platform.python_implementation()} "
        f"{platform.python_version()}, llama-cpp-python {llama_cpp.__version__}",
        f"model: {DEFAULT_MODEL}, {args.lines} requests x {args.tokens} tokens, {args.rounds} rounds, "
        f"{CLIENTS} clients; server flags: {' '.join(flags[1:])}",
    ]
    if args.note:
        lines.append(f"note: {args.note}")
    bodies = requests(args.lines, args.tokens)
    rates: dict[str, list[float]] = {"batch": [], "clients": []}
    with tempfile.TemporaryDirectory() as tmp:
        server = start_server(flags, Path(tmp) / "serve.log")
        try:
            client = OpenAI(base_url=server.base_url + "/v1", api_key="unused", max_retries=0, timeout=600)
            clients_rate(server.base_url, bodies[:CLIENTS])  # warm-up
            for i in range(args.rounds):
                for how in ("batch", "clients") if i % 2 == 0 else ("clients", "batch"):
                    rate = batch_rate(client, bodies) if how == "batch" else clients_rate(server.base_url, bodies)
                    rates[how].append(rate)
        finally:
            stop_server(server)
    batch, clients = rates["batch"], rates["clients"]
    paired = [b / c for b, c in zip(batch, clients, strict=True)]
    b, c = statistics.median(batch), statistics.median(clients)
    lines += [
        f"batch     lines/s:    median {b:.2f}  (runs: {', '.join(f'{x:.2f}' for x in batch)})",
        f"{CLIENTS} clients requests/s: median {c:.2f}  (runs: {', '.join(f'{x:.2f}' for x in clients)})",
        f"  ratio batch/clients: {statistics.median(paired):.3f} median of paired rounds, {b / c:.3f} of medians"
        f"   (target >= {0.9 * (args.parallel - 1) / args.parallel:.3f}: background work leaves one lane free)",
    ]
    report = "\n".join(lines)
    print(report)
    if args.record:
        record("batches", report)


if __name__ == "__main__":
    main()
