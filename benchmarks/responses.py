"""Responses benchmark: single-stream decode through ``/v1/responses`` against the same request through
``/v1/chat/completions``, side by side on one server in one run.

Both streams ask for the same greedy reply to the same prompt (``ignore_eos``, a fixed token count); each round
runs one of each, alternating which goes first, so drift hits both alike. The rate is tokens per second between
the first and the last text event, read on a plain socket that only stamps arrivals (benchmarks/foundation.py).
Target: responses/chat >= 0.95.

Beside the rates, the server process's CPU time per streamed token (Linux: /proc/PID/stat, every thread): on a
machine other work is also using, the wall-clock rates swing with that work, while the CPU a route spends per
token does not, so it shows what the rates would on a quiet machine.

Run: ``python -m benchmarks.responses [--tokens 256] [--rounds 10]``; results go to stdout and, with
``--record``, to benchmarks/results/responses.txt.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import tempfile
from collections.abc import Callable
from pathlib import Path

import llama_cpp
from conformance.server import start_server, stop_server

from benchmarks import proc
from benchmarks.foundation import PROMPT, _quartiles, _sse_frames, _stream_chat, served_decode_rate
from benchmarks.recording import record
from superfluid.engine.models.model_sources import DEFAULT_MODEL


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU time of a process, all its threads (None where /proc is not there)."""
    try:
        return proc.cpu_seconds(pid)
    except OSError:
        return None


def per_token_cpu_ms(pid: int, run: Callable[[], float], n_tokens: int) -> tuple[float, float | None]:
    """``run()``'s rate, and the server's CPU milliseconds per token while it ran."""
    before = cpu_seconds(pid)
    rate = run()
    after = cpu_seconds(pid)
    return rate, None if before is None or after is None else (after - before) * 1000 / n_tokens


def responses_decode_rate(base_url: str, model: str, n_tokens: int) -> float:
    """Tokens/s between the first and the last output_text.delta event of one streamed response."""
    body = {"model": model, "input": PROMPT, "max_output_tokens": n_tokens, "temperature": 0, "ignore_eos": True,
            "stream": True, "store": False}
    stamps: list[float] = []
    output = 0
    for stamp, frame in _sse_frames(_stream_chat(base_url, body, "/v1/responses")):
        if frame["type"] == "response.output_text.delta":
            stamps.append(stamp)
        response = frame.get("response")
        if isinstance(response, dict) and response.get("usage"):
            output = response["usage"]["output_tokens"]
    assert output == n_tokens, f"expected {n_tokens} tokens, got {output}"
    return (len(stamps) - 1) / (stamps[-1] - stamps[0])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=256)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--note", default="", help="a line about the machine's state, recorded with the numbers")
    parser.add_argument("--record", action="store_true")
    args = parser.parse_args()

    flags = [DEFAULT_MODEL, "--threads", str(args.threads), "--parallel", "1"]
    lines = [
        f"machine: {platform.machine()}, {os.cpu_count()} cores, {platform.python_implementation()} "
        f"{platform.python_version()}, llama-cpp-python {llama_cpp.__version__}",
        f"model: {DEFAULT_MODEL}, {args.tokens} tokens/stream, {args.rounds} rounds; server flags: "
        f"{' '.join(flags[1:])}",
    ]
    if args.note:
        lines.append(f"note: {args.note}")
    with tempfile.TemporaryDirectory() as tmp:
        server = start_server(flags, Path(tmp) / "serve.log")
        try:
            served_decode_rate(server.base_url, DEFAULT_MODEL, 16)  # warm-up, both routes
            responses_decode_rate(server.base_url, DEFAULT_MODEL, 16)
            rates: dict[str, list[float]] = {"chat": [], "responses": []}
            cpu: dict[str, list[float]] = {"chat": [], "responses": []}
            runs: dict[str, Callable[[], float]] = {
                "chat": lambda: served_decode_rate(server.base_url, DEFAULT_MODEL, args.tokens),
                "responses": lambda: responses_decode_rate(server.base_url, DEFAULT_MODEL, args.tokens)}
            for i in range(args.rounds):
                for route in ("chat", "responses") if i % 2 == 0 else ("responses", "chat"):
                    rate, ms = per_token_cpu_ms(server.process.pid, runs[route], args.tokens)
                    rates[route].append(rate)
                    if ms is not None:
                        cpu[route].append(ms)
        finally:
            stop_server(server)
    chat, responses = rates["chat"], rates["responses"]
    paired = [r / c for c, r in zip(chat, responses, strict=True)]
    c, r = statistics.median(chat), statistics.median(responses)
    lines += [
        f"decode tok/s  /v1/chat/completions stream: median {c:.1f}  (runs: {', '.join(f'{x:.1f}' for x in chat)})",
        f"decode tok/s  /v1/responses stream:        median {r:.1f}  (runs: "
        f"{', '.join(f'{x:.1f}' for x in responses)})",
        f"  ratio responses/chat: {statistics.median(paired):.3f} median of paired rounds"
        + (f" (quartiles {_quartiles(paired)})" if len(paired) > 1 else "")
        + f", {r / c:.3f} of medians   (target >= 0.95)",
    ]
    if cpu["chat"] and cpu["responses"]:
        cc, cr = statistics.median(cpu["chat"]), statistics.median(cpu["responses"])
        lines += [
            f"server CPU ms/token  chat: median {cc:.2f}  (runs: {', '.join(f'{x:.2f}' for x in cpu['chat'])})",
            f"server CPU ms/token  responses: median {cr:.2f}  (runs: "
            f"{', '.join(f'{x:.2f}' for x in cpu['responses'])})",
            f"  CPU per token chat/responses: {cc / cr:.3f} (the rate ratio a quiet machine would show)",
        ]
    report = "\n".join(lines)
    print(report)
    if args.record:
        record("responses", report)


if __name__ == "__main__":
    main()
