"""A chat model's single stream before and after one request to a second model served by the same process.

Each model has an engine thread, and llama.cpp's OpenMP runtime keeps a pool of workers for every thread that
ran a parallel region; with two pools on a small machine every decode waits on futexes (docs/performance.md,
"AMX kernels and one OpenMP pool per model"). The script starts ``superfluid serve CHAT OTHER``, times three
96-token greedy requests to CHAT, sends one request to OTHER (an embedding for an embedding model, else a short
chat), then times five more requests to CHAT, the first of them at once and the rest after a pause longer than an
idle engine thread lingers. Rates are completion tokens over wall time.

Run: ``python -m benchmarks.two_models [--other all-minilm-l6-v2] [--record]``. Never part of the test suite.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import httpx

from benchmarks import peers
from benchmarks.recording import record
from superfluid.engine.worker import LINGER_S

CHAT = "smollm2-135m-instruct"


def _rate(base: str) -> float:
    start = time.perf_counter()
    reply = httpx.post(base + "/v1/chat/completions", timeout=120, json={
        "model": CHAT, "temperature": 0, "max_tokens": 96, "ignore_eos": True,
        "messages": [{"role": "user", "content": "Write a long story about a cat."}]}).json()
    return float(reply["usage"]["completion_tokens"]) / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--other", default="all-minilm-l6-v2")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--record", action="store_true")
    args = parser.parse_args()
    logs = Path(f"/tmp/superfluid-two-models-{os.getpid()}")
    logs.mkdir(exist_ok=True)
    peer = peers.superfluid(CHAT, also=(args.other,), threads=args.threads, lanes=None, window=None, logs=logs)
    try:
        before = [_rate(peer.base_url) for _ in range(3)]
        if "minilm" in args.other or "embed" in args.other:
            other = httpx.post(peer.base_url + "/v1/embeddings", timeout=120,
                               json={"model": args.other, "input": ["hello world"] * 4})
        else:
            other = httpx.post(peer.base_url + "/v1/chat/completions", timeout=120, json={
                "model": args.other, "max_tokens": 8, "messages": [{"role": "user", "content": "Hi"}]})
        other.raise_for_status()
        at_once = _rate(peer.base_url)
        time.sleep(2 * LINGER_S)
        later = [_rate(peer.base_url) for _ in range(4)]
    finally:
        peer.stop()
    text = "\n".join([
        f"chat model {CHAT}, second model {args.other}; {args.threads} threads; 96-token greedy requests, tok/s",
        "before the second model's request: " + ", ".join(f"{r:.1f}" for r in before),
        f"right after it (within the second model's {LINGER_S} s linger): {at_once:.1f}",
        "after a pause of twice the linger: " + ", ".join(f"{r:.1f}" for r in later),
    ])
    print(text)
    if args.record:
        print(record("two-models", text))


if __name__ == "__main__":
    main()
