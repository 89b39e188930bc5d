"""Constrained-decoding benchmark: decode tokens/s under a typical JSON schema against the same model decoding
freely, side by side in one process (the engine in-process, drafting off so only the grammar differs).

Target: constrained >= 0.8x unconstrained. Run: ``python -m benchmarks.grammar [--record]``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import statistics
import time

from benchmarks.recording import record
from superfluid.engine.decoding.grammar import Constraint
from superfluid.engine.models.model_sources import DEFAULT_MODEL, resolve
from superfluid.engine.models.served_model import ServedModel
from superfluid.engine.types import ChatMessage, ChatPrompt, GenerationRequest, SamplingParams, TextDelta
from superfluid.settings import Settings

SCHEMA = {
    "type": "object",
    "properties": {
        "title": {"type": "string", "maxLength": 60},
        "year": {"type": "integer", "minimum": 1900, "maximum": 2100},
        "genres": {"type": "array", "items": {"enum": ["drama", "comedy", "thriller", "documentary"]},
                   "maxItems": 3},
        "cast": {"type": "array", "minItems": 40, "items": {
            "type": "object",
            "properties": {"name": {"type": "string", "maxLength": 40}, "role": {"type": "string", "maxLength": 40}},
            "required": ["name", "role"], "additionalProperties": False}},
    },
    "required": ["title", "year", "genres", "cast"],
    "additionalProperties": False,
}
PROMPT = "Describe a film as JSON with its title, year, genres and a long cast list."


async def rate(served: ServedModel, constrained: bool, tokens: int) -> float:
    request = GenerationRequest(
        model=served.id,
        prompt=ChatPrompt(messages=(ChatMessage(role="user", content=PROMPT),)),
        sampling=SamplingParams(temperature=0.0, ignore_eos=not constrained),
        max_tokens=tokens,
        constraint=Constraint.for_schema(SCHEMA) if constrained else None,
    )
    stamps: list[float] = []
    counts: list[int] = []
    async for event in served.generate(request).events():
        if isinstance(event, TextDelta):
            stamps.append(time.perf_counter())
            counts.append(event.completion_tokens)
    return (counts[-1] - counts[0]) / (stamps[-1] - stamps[0])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=256)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--record", action="store_true")
    args = parser.parse_args()
    settings = Settings(models=(DEFAULT_MODEL,), threads=args.threads, parallel=1, spec_draft=0)
    served = ServedModel.load(DEFAULT_MODEL, resolve(DEFAULT_MODEL), settings)
    try:
        asyncio.run(rate(served, True, 16))  # compile and warm up
        free, bound = [], []
        for _ in range(args.rounds):
            free.append(asyncio.run(rate(served, False, args.tokens)))
            bound.append(asyncio.run(rate(served, True, args.tokens)))
    finally:
        served.close()
    f, b = statistics.median(free), statistics.median(bound)
    report = "\n".join([
        f"machine: {platform.machine()}, {os.cpu_count()} cores; threads={args.threads}; model {DEFAULT_MODEL}; "
        f"{args.tokens} tokens x {args.rounds} interleaved rounds; drafting off",
        f"unconstrained decode tok/s: median {f:.1f} (runs: {', '.join(f'{x:.1f}' for x in free)})",
        f"json_schema decode tok/s:   median {b:.1f} (runs: {', '.join(f'{x:.1f}' for x in bound)})",
        f"ratio constrained/unconstrained: {b / f:.3f} (target >= 0.8)",
    ])
    print(report)
    if args.record:
        record("grammar", report)


if __name__ == "__main__":
    main()
