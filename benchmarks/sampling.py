"""Sampling step alone: llama.cpp's sampler chain (the old per-lane path) against the numpy LaneSampler.

Both sample the same real logits rows of the bundled model (the last position of eight prompts: stories, code,
Q&A, JSON), in the same process, in alternating blocks, timed in CPU seconds of this thread
(``time.thread_time``), so other load on the machine changes little: a busy machine slows both the same way.
The numpy sampler writes biases and penalties into the row it samples, so each row is put back after each
numpy draw, outside the timed part. Also reports how often both pick the same token with the same seed.

Run: ``python -m benchmarks.sampling [--quick] [--record]``. Never part of the test suite.
"""

from __future__ import annotations

import argparse
import functools
import os
import platform
import time
from collections.abc import Callable

import llama_cpp

from benchmarks.recording import record
from superfluid.engine.decoding.lane_sampler import LaneSampler
from superfluid.engine.decoding.sampling import LogitRows, SamplerChain, model_defaults, resolve
from superfluid.engine.models.llama_model import LlamaModel
from superfluid.engine.models.model_sources import DEFAULT_MODEL
from superfluid.engine.models.model_sources import resolve as resolve_model
from superfluid.engine.types import SamplingParams

PROMPTS = [
    "Once upon a time, in a lighthouse at the edge of the world, the keeper",
    "def fibonacci(n: int) -> int:\n    \"\"\"Return the n-th Fibonacci number.\"\"\"\n",
    "Question: What is the capital of France? Answer:",
    '{"name": "Ada Lovelace", "born": 1815, "known_for": [',
    "The train left the station at dawn and the passengers",
    "SELECT name, count(*) FROM orders WHERE",
    "Q: How many legs does a spider have?\nA:",
    '{"city": "Oslo", "population":',
]
CONFIGS = {
    "greedy": SamplingParams(temperature=0.0, seed=1),
    "sampled T=0.7 top_p=0.95 (top_k 40, min_p 0.05)": SamplingParams(temperature=0.7, top_p=0.95, seed=1),
    "sampled + presence/frequency penalties": SamplingParams(temperature=0.7, top_p=0.95, seed=1,
                                                             presence_penalty=0.5, frequency_penalty=0.3),
    "sampled + repeat penalty 1.1": SamplingParams(temperature=0.7, top_p=0.95, seed=1, repeat_penalty=1.1),
    "sampled top_k=0 top_p=0.95": SamplingParams(temperature=0.7, top_p=0.95, top_k=0, seed=1),
}


def _decode_prompts(model: LlamaModel) -> list[int]:
    """One decode holding the eight prompts in lanes 0..7; returns each prompt's last batch index."""
    batch = llama_cpp.llama_batch_init(512, 0, 1)
    last: list[int] = []
    n = 0
    for seq, prompt in enumerate(PROMPTS):
        tokens = model.tokenize(prompt, add_special=True, parse_special=False)
        for pos, token in enumerate(tokens):
            batch.token[n], batch.pos[n], batch.n_seq_id[n] = token, pos, 1
            batch.seq_id[n][0] = seq
            batch.logits[n] = pos == len(tokens) - 1
            n += 1
        last.append(n - 1)
    batch.n_tokens = n
    assert llama_cpp.llama_decode(model.ctx, batch) == 0
    llama_cpp.llama_batch_free(batch)
    return last


def _timed(sample: Callable[[int], int], restore: Callable[[int], None], indexes: list[int],
           draws: int) -> tuple[float, list[int]]:
    spent = 0.0
    picks = []
    for _ in range(draws):
        for index in indexes:
            start = time.thread_time()
            picks.append(sample(index))
            spent += time.thread_time() - start
            restore(index)
    return spent, picks


def measure(model: LlamaModel, params: SamplingParams, indexes: list[int], rounds: int,
            draws: int) -> tuple[float, float, float]:
    """(chain us/token, numpy us/token, share of equal picks)."""
    effective = resolve(params, model_defaults({}))
    rows = LogitRows(model.meta.n_vocab)
    saved = {i: rows.row(model.ctx, i).copy() for i in indexes}

    def restore(index: int) -> None:
        rows.row(model.ctx, index)[:] = saved[index]

    chain_s = numpy_s = 0.0
    same = total = 0
    for _ in range(rounds):
        chain = SamplerChain(effective, model.meta.n_vocab)
        lane = LaneSampler(effective, rows)
        spent, old = _timed(functools.partial(chain.sample, model.ctx), restore, indexes, draws)
        chain_s += spent
        spent, new = _timed(functools.partial(lane.sample, model.ctx), restore, indexes, draws)
        numpy_s += spent
        chain.close()
        same += sum(a == b for a, b in zip(old, new, strict=True))
        total += len(old)
    return chain_s / total * 1e6, numpy_s / total * 1e6, same / total


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="fewer draws (seconds instead of a minute)")
    parser.add_argument("--record", action="store_true", help="write benchmarks/results/sampling.txt")
    args = parser.parse_args()
    rounds, draws = (3, 20) if args.quick else (10, 50)
    model = LlamaModel(resolve_model(DEFAULT_MODEL).locate(), n_ctx=4096, n_seq_max=8, n_batch=512, n_threads=2)
    indexes = _decode_prompts(model)
    lines = [f"machine: {platform.machine()}, {len(os.sched_getaffinity(0))} cores; model {DEFAULT_MODEL}; "
             f"vocab {model.meta.n_vocab}; {len(indexes)} real logits rows; {rounds} rounds x {draws} draws "
             "per row; CPU time of the sampling thread",
             f"{'config':50} {'chain us/tok':>13} {'numpy us/tok':>13} {'speed-up':>9} {'same pick':>10}"]
    for name, params in CONFIGS.items():
        old, new, same = measure(model, params, indexes, rounds, draws)
        lines.append(f"{name:50} {old:13.1f} {new:13.1f} {old / new:8.2f}x {same:10.1%}")
    model.close()
    report = "\n".join(lines)
    print(report)
    if args.record:
        print(record("sampling", report))


if __name__ == "__main__":
    main()
