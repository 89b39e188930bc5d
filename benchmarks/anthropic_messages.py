"""Anthropic dialect benchmark: single-stream decode through ``/v1/messages`` against the same request through
``/v1/chat/completions``, side by side on one server in one run.

Both requests are the same prompt, greedy, ``ignore_eos`` (read on /v1/messages as on chat), the same token
budget, streamed over a plain socket that only stamps each read's arrival (benchmarks/foundation.py's
client). The rate is tokens/s between the first and the last text frame of the reply; the rounds alternate
the two routes so that drift on a shared machine hits both alike. Target: messages/chat >= 0.95.

Run: ``python -m benchmarks.anthropic_messages [--tokens 256] [--rounds 10]``; with ``--record`` the output goes to
benchmarks/results/anthropic_messages.txt as well.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
from pathlib import Path

from conformance.server import start_server, stop_server

from benchmarks.foundation import PROMPT, _sse_frames, _stream_chat, served_decode_rate
from benchmarks.recording import record
from superfluid.engine.models.model_sources import DEFAULT_MODEL


def _body(n_tokens: int) -> dict[str, object]:
    """foundation.py's streamed chat request; every field means the same on /v1/messages."""
    return {"model": DEFAULT_MODEL, "messages": [{"role": "user", "content": PROMPT}], "max_tokens": n_tokens,
            "temperature": 0, "ignore_eos": True, "stream": True}


def chat_rate(base_url: str, n_tokens: int) -> float:
    """The same request through /v1/chat/completions (foundation.py's measure)."""
    return served_decode_rate(base_url, DEFAULT_MODEL, n_tokens)


def messages_rate(base_url: str, n_tokens: int) -> float:
    stamps, completion = [], 0
    for stamp, frame in _sse_frames(_stream_chat(base_url, _body(n_tokens), path="/v1/messages")):
        if frame["type"] == "content_block_delta":
            stamps.append(stamp)
        elif frame["type"] == "message_delta":
            usage = frame["usage"]
            assert isinstance(usage, dict)
            completion = usage["output_tokens"]
    assert completion == n_tokens, f"messages: expected {n_tokens} tokens, got {completion}"
    return (len(stamps) - 1) / (stamps[-1] - stamps[0])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=256)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--record", action="store_true")
    parser.add_argument("--note", default="", help="a line about the machine's state, kept in the record")
    args = parser.parse_args()

    flags = [DEFAULT_MODEL, "--threads", str(args.threads), "--parallel", "1"]
    lines = [
        f"machine: {platform.machine()}, {os.cpu_count()} cores, {platform.python_implementation()} "
        f"{platform.python_version()}" + (f"; {args.note}" if args.note else ""),
        f"model: {DEFAULT_MODEL}, threads={args.threads}, {args.tokens} tokens/stream, {args.rounds} rounds; "
        f"server flags: {' '.join(flags[1:])}",
    ]
    server = start_server(flags, Path("/tmp/superfluid-bench-anthropic.log"))
    try:
        chat_rate(server.base_url, 16)  # warm-up: the prompt is in the prefix cache for both routes from here on
        messages_rate(server.base_url, 16)
        chat: list[float] = []
        messages: list[float] = []
        for i in range(args.rounds):  # alternating which goes first
            pair = [(chat, chat_rate), (messages, messages_rate)]
            for rates, measure in pair if i % 2 == 0 else reversed(pair):
                rates.append(measure(server.base_url, args.tokens))
    finally:
        stop_server(server)
    paired = [m / c for c, m in zip(chat, messages, strict=True)]
    for name, rates in (("/v1/chat/completions", chat), ("/v1/messages", messages)):
        lines.append(f"decode tok/s  {name}: median {statistics.median(rates):.1f}  (runs: "
                     + ", ".join(f"{x:.1f}" for x in rates) + ")")
    quartiles = statistics.quantiles(paired, n=4) if len(paired) > 1 else [paired[0]] * 3
    lines.append(f"  ratio messages/chat: {statistics.median(paired):.3f} median of paired rounds (quartiles "
                 f"{quartiles[0]:.3f}-{quartiles[2]:.3f}), "
                 f"{statistics.median(messages) / statistics.median(chat):.3f} of medians   (target >= 0.95)")
    report = "\n".join(lines)
    print(report)
    if args.record:
        record("anthropic_messages", report)


if __name__ == "__main__":
    main()
