"""LoRA benchmark: decode speed under an adapter, and the cost of a change-over, side by side in one process.

Four measurements, interleaved over rounds (the engine in-process, drafting off, two lanes):

- one stream, base model vs one stream under a rank-16 adapter on the q/v/down projections of every layer;
- two streams under the same set vs two streams under different sets (one queued before the load, one after),
  which decode in turns of ticks (docs/lora.md): the aggregate rate, and how many times the context switched.

Run: ``python -m benchmarks.lora [--record]``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import statistics
import tempfile
import time
from pathlib import Path

from conformance.lora_adapters import write_adapter

from benchmarks.recording import record
from superfluid.engine.models.model_sources import DEFAULT_MODEL, resolve
from superfluid.engine.models.served_model import ServedModel
from superfluid.engine.types import ChatMessage, ChatPrompt, GenerationRequest, SamplingParams, TextDelta
from superfluid.settings import Settings

PROMPTS = ("Tell a long story about a lighthouse.", "Describe a long walk through a forest.")


def _request(served: ServedModel, prompt: str, tokens: int) -> GenerationRequest:
    return GenerationRequest(model=served.id, prompt=ChatPrompt(messages=(ChatMessage(role="user", content=prompt),)),
                             sampling=SamplingParams(temperature=0.0, ignore_eos=True), max_tokens=tokens)


async def _drain(served: ServedModel, request: GenerationRequest, stamps: list[float]) -> int:
    last = 0
    async for event in served.generate(request).events():
        if isinstance(event, TextDelta):
            stamps.append(time.perf_counter())
            last = event.completion_tokens
    return last


async def single(served: ServedModel, adapter: str | None, tokens: int) -> float:
    if adapter:
        await served.load_adapter(adapter, 1.0)
    stamps: list[float] = []
    try:
        n = await _drain(served, _request(served, PROMPTS[0], tokens), stamps)
    finally:
        served.unload_adapter(None)
    return (n - 1) / (stamps[-1] - stamps[0])


async def pair(served: ServedModel, adapter: str | None, tokens: int) -> tuple[float, int]:
    """Aggregate tok/s of two streams; with ``adapter``, the second is queued after it is loaded."""
    stamps: list[float] = []
    switches = served._scheduler.slot_view()["totals"]["adapter_switches"]
    first = asyncio.ensure_future(_drain(served, _request(served, PROMPTS[0], tokens), stamps))
    await asyncio.sleep(0)
    if adapter:
        await served.load_adapter(adapter, 1.0)
    second = asyncio.ensure_future(_drain(served, _request(served, PROMPTS[1], tokens), stamps))
    try:
        n = await first + await second
    finally:
        served.unload_adapter(None)
    return n / (max(stamps) - min(stamps)), served._scheduler.slot_view()["totals"]["adapter_switches"] - switches


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--tokens", type=int, default=128)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--record", action="store_true")
    args = parser.parse_args()
    directory = Path(tempfile.mkdtemp(prefix="superfluid-lora-bench-"))
    write_adapter(directory / "rank16.gguf", b=0.01, rank=16)
    settings = Settings(models=(DEFAULT_MODEL,), threads=args.threads, parallel=2, spec_draft=0, lora_dir=directory)
    served = ServedModel.load(DEFAULT_MODEL, resolve(DEFAULT_MODEL), settings)
    base, adapted, same, mixed, switches = [], [], [], [], []
    try:
        asyncio.run(single(served, "rank16.gguf", 16))  # warm up, and load the adapter's weights once
        for _ in range(args.rounds):
            base.append(asyncio.run(single(served, None, args.tokens)))
            adapted.append(asyncio.run(single(served, "rank16.gguf", args.tokens)))
            same.append(asyncio.run(pair(served, None, args.tokens))[0])
            rate, switched = asyncio.run(pair(served, "rank16.gguf", args.tokens))
            mixed.append(rate)
            switches.append(switched)
            print(f"round {len(base)}: base {base[-1]:.1f}, adapter {adapted[-1]:.1f}, pair same {same[-1]:.1f}, "
                  f"pair different {rate:.1f} tok/s, {switched} switches", flush=True)
    finally:
        served.close()

    def runs(xs: list[float]) -> str:
        return f"median {statistics.median(xs):.1f} (runs: {', '.join(f'{x:.1f}' for x in xs)})"

    report = "\n".join([
        f"machine: {platform.machine()}, {os.cpu_count()} cores; threads={args.threads}; model {DEFAULT_MODEL}; "
        f"{args.tokens} tokens per stream x {args.rounds} interleaved rounds; drafting off; 2 lanes",
        f"one stream, base model, decode tok/s:        {runs(base)}",
        f"one stream, rank-16 adapter, decode tok/s:   {runs(adapted)}",
        f"adapter / base: {statistics.median(adapted) / statistics.median(base):.3f}",
        f"two streams, same adapter set, tok/s:        {runs(same)}",
        f"two streams, different sets (turns), tok/s:  {runs(mixed)}; context switches per pair: {switches}",
        f"different / same: {statistics.median(mixed) / statistics.median(same):.3f}",
    ])
    print(report)
    if args.record:
        print(f"recorded in {record('lora', report)}")


if __name__ == "__main__":
    main()
