"""Where the time goes between llama.cpp's own benchmark tools and the token rate superfluid serves.

Issue 15 asks for single-stream ≥ 0.8x llama-bench tg128 and 8-stream aggregate ≥ 0.8x llama-batched-bench B=8,
or a measured account of the rest. This is the account. superfluid runs alone with the traffic benchmark's flags
(8 lanes, a KV stream each) and serves the traffic benchmark's mix (a story, code, a question, JSON under a
schema; 96 tokens; greedy and sampled) at 1 and 8 streams. Around each level it reads the engine's time counters
from /metrics (docs/metrics.md, "Engine time") and splits the level's wall time W:

* idle: W less the engine's step time: no decode step ran (a request being parsed, validated, templated and
  tokenized before it reaches the engine, then given a lane; the gap between one request's end and the next
  one's start);
* host: step time less decode time: the engine thread's own work around each decode (building the batch,
  sampling, text output, writing the streamed tokens);
* prefill decodes: decodes that carried prompt rows (the tools' decode rates leave prompt processing out);
* generation decodes: the rest of llama.cpp's time. The benchmark's own client reads every stream on the same
  cores (as a local client does), and the CPU it takes while a decode runs makes the decode longer: its CPU time
  as a share of the wall time is reported beside the account.

The served rate against the issue's ceiling (llama-bench tg128 from an empty context for one stream;
batched-bench B=8 with 128-token prompts and 128 tokens each for eight) is a product of factors:

* depth: the same tool at the levels' own depth (prompts of their mean length, then 96 tokens) over the ceiling;
* for one stream, batched-bench B=1 over llama-bench at that depth (the factors below are batched-bench's);
* KV layout: batched-bench in the server's KV cache (8 streams of 4,096 cells, where the tool alone sizes its
  cache to fit) over the same in the tool's own. Without flash attention llama.cpp keeps V transposed, so each
  row of V a decode reads lies a stream's length away from the next: with thousands of cells, a page apart;
* serving: the served rate over batched-bench's at that depth and layout.

Serving's shortfall is split by time. Against the tool's rate C at the level's streams, N tokens would take
T = N / C, so the served rate is C x T / W and 1 - T / W is the sum of idle / W, host / W, prefill / W and three
terms for the generation decodes, which carry L lane rows (one per decoding lane; draft rows aside) at a mean of
b lanes per decode: their time beyond the tool's for L rows at b rows per decode (interpolated between its batch
sizes, a decode's time taken as linear in its rows); what decoding b rather than ``streams`` lanes at a time
costs at the tool's rates (replies end unevenly, JSON replies stop early); and (L - N) / C: tokens that came
from elsewhere than lane rows (each reply's first token from its prefill decode, accepted drafts), negative
when there are more of them than lane rows that made no token.

The tools drift with the machine by several percent from one run to the next, so they run once before the
levels and once after, and the figures are the means; both runs are in the record.

Run: ``python -m benchmarks.engine_account [--record]`` after ``benchmarks/build_llama_server.sh`` (for the tools).
About ten minutes. Never part of the test suite.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import platform
import subprocess
import time
from pathlib import Path
from typing import Any

import httpx
from prometheus_client.parser import text_string_to_metric_families

from benchmarks import peers, traffic
from benchmarks.recording import record
from superfluid.engine.models.model_sources import DEFAULT_MODEL, resolve

LEVELS = (1, 8)
BATCHES = (1, 2, 4, 8)


def engine_counters(text: str, model: str) -> dict[str, float]:
    """The engine's time counters and completion tokens of ``model`` from a /metrics page."""
    out: dict[str, float] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.labels.get("model") != model or not sample.name.endswith("_total"):
                continue
            name = sample.name.removeprefix("superfluid_").removesuffix("_total")
            if name.startswith("engine_") or name in ("completion_tokens", "draft_tokens_proposed"):
                kind = sample.labels.get("kind")
                out[f"{name}:{kind}" if kind else name] = sample.value
    return out


async def level(peer: peers.Peer, mode: str, concurrency: int, requests: int, tag: str) -> dict[str, Any]:
    payloads = [traffic.body(peer, mode, i, 96, f"[{tag} {i}]") for i in range(requests)]
    async with httpx.AsyncClient(base_url=peer.base_url, timeout=900) as client:
        before = engine_counters((await client.get("/metrics")).text, peer.model)
        start, client_cpu = time.perf_counter(), time.process_time()
        shots = await traffic.send(client, payloads, concurrency)
        wall, client_cpu = time.perf_counter() - start, time.process_time() - client_cpu
        after = engine_counters((await client.get("/metrics")).text, peer.model)
    moved = {key: after.get(key, 0.0) - before.get(key, 0.0) for key in after}
    return {"wall_s": wall, "tokens": moved["completion_tokens"], "client_cpu_s": client_cpu,
            "prompt_tokens": sum(s.prompt_tokens for s in shots) / len(shots),
            "step_s": moved["engine_step_seconds"],
            "generation_s": moved["engine_decode_seconds:generation"],
            "prefill_s": moved["engine_decode_seconds:prefill"],
            "generation_decodes": moved["engine_decodes:generation"],
            "generation_rows": moved["engine_decode_rows:generation"],
            "draft_rows": moved.get("draft_tokens_proposed", 0.0),
            "prefill_decodes": moved["engine_decodes:prefill"],
            "prefill_rows": moved["engine_decode_rows:prefill"],
            "errors": [s.error for s in shots if s.error]}


def tg_rate(bin_dir: Path, gguf: Path, threads: int, depth: int, tokens: int) -> float:
    """llama-bench's decode rate for ``tokens`` tokens after ``depth`` tokens of context."""
    done = subprocess.run([str(bin_dir / "llama-bench"), "-m", str(gguf), "-t", str(threads), "-o", "json", "-p",
                           "0", "-n", str(tokens), "-d", str(depth), "-r", "3", "-fa", peers.flash_attn(),
                           *(["--repack", "0"] if peers.no_repack() else [])],
                          capture_output=True, text=True, check=False)
    return float(json.loads(done.stdout)[0]["avg_ts"])


def at_rows(rates: dict[int, float], rows: float) -> float:
    """The batched rate at a mean of ``rows`` rows per decode: a decode's time (batch size over rate) taken as
    linear between the measured batch sizes."""
    sizes = sorted(rates)
    rows = min(max(rows, sizes[0]), sizes[-1])
    for low, high in itertools.pairwise(sizes):
        if low <= rows <= high:
            share = (rows - low) / (high - low)
            seconds = low / rates[low] + share * (high / rates[high] - low / rates[low])
            return rows / seconds
    return rates[sizes[0]]


def account(got: dict[str, Any], streams: int, tools: dict[str, Any]) -> dict[str, float]:
    """The level's rate against the issue's ceiling as factors (context depth, the tool, the server's KV layout,
    serving), and the serving factor's shortfall split as the module says (fractions of the level's wall time)."""
    wall, tokens = got["wall_s"], got["tokens"]
    if streams == 1:  # llama-bench's own figure at the levels' depth, then batched-bench against it
        ceiling, at_depth = tools["tg128"], tools["tg at depth"]
        tool = tools["batched at depth"][1] / at_depth
    else:
        ceiling, at_depth = tools["batched B=8"], tools["batched at depth"][streams]
        tool = 1.0
    served_as = tools["batched at depth, server layout"]
    full = served_as[streams]
    lane_rows = got["generation_rows"] - got["draft_rows"]  # one row per decoding lane; drafts ride along
    occupancy = at_rows(served_as, lane_rows / max(got["generation_decodes"], 1))
    served = tokens / wall
    return {
        "served / ceiling": served / ceiling,
        "depth": at_depth / ceiling,
        "tool": tool,
        "layout": full / tools["batched at depth"][streams],
        "serving": served / full,
        "idle": (wall - got["step_s"]) / wall,
        "host": (got["step_s"] - got["generation_s"] - got["prefill_s"]) / wall,
        "prefill decodes": got["prefill_s"] / wall,
        "generation decodes beyond the tool's time": (got["generation_s"] - lane_rows / occupancy) / wall,
        "fewer lanes per decode than streams": lane_rows * (1 / occupancy - 1 / full) / wall,
        "tokens not from lanes' generation rows": (lane_rows - tokens) / full / wall,
    }


def report(levels: dict[str, dict[str, Any]], tools: dict[str, Any], header: str) -> str:
    def rates(table: dict[int, float]) -> str:
        return ", ".join(f"B={b} {r:.1f}" for b, r in sorted(table.items()))

    lines = [header,
             f"ceilings (same llama.cpp build): llama-bench tg128 {tools['tg128']:.1f}; batched-bench B=8 (128-token "
             f"prompts, 128 tokens) {tools['batched B=8']:.1f}",
             f"batched-bench at the levels' depth, its own small KV cache: {rates(tools['batched at depth'])}",
             f"  and in the server's KV layout ({traffic.LANES} streams of {traffic.WINDOW} cells): "
             f"{rates(tools['batched at depth, server layout'])}"]
    for name, got in levels.items():
        streams = int(name.split("c")[-1])
        parts = account(got, streams, tools)
        label = "llama-bench tg128" if streams == 1 else "batched-bench B=8"
        lanes = (got["generation_rows"] - got["draft_rows"]) / max(got["generation_decodes"], 1)
        lines.append(f"\n{name}: {got['tokens']:.0f} tokens in {got['wall_s']:.2f} s = "
                     f"{got['tokens'] / got['wall_s']:.1f} tok/s; prompts {got['prompt_tokens']:.0f} tokens; "
                     f"{lanes:.2f} lanes per generation decode ({got['draft_rows']:.0f} draft rows); "
                     f"{got['prefill_decodes']:.0f} prefill decodes; "
                     f"engine busy {got['step_s'] / got['wall_s']:.0%}"
                     + (f"; errors {got['errors']}" if got["errors"] else ""))
        tool = parts.pop("tool")
        lines.append(f"  served / {label} {parts.pop('served / ceiling'):.2f} = depth {parts.pop('depth'):.2f} "
                     + (f"x batched-bench B=1 / llama-bench {tool:.2f} " if streams == 1 else "")
                     + f"x KV layout {parts.pop('layout'):.2f} "
                     f"x serving {parts.pop('serving'):.2f}")
        lines.append("  serving's shortfall (against batched-bench at this depth, layout and batch size), "
                     "as shares of the level's wall time:")
        for part, share in parts.items():
            lines.append(f"    {part:<44}{share:+7.1%}")
        lines.append(f"    {'sum':<44}{sum(parts.values()):+7.1%}")
        client = got["client_cpu_s"] / got["wall_s"]
        lines.append(f"  this client's CPU, reading every stream on the same cores: {client:.1%} of the wall time "
                     "(what it takes from decodes lands in the generation decodes' share)")
    return "\n".join(lines)


async def prompt_tokens(peer: peers.Peer) -> int:
    """The mix's mean prompt length on this server (the tools are run at the levels' depth)."""
    await traffic.level(peer, "greedy", 2, 8, "warm-up")
    async with httpx.AsyncClient(base_url=peer.base_url, timeout=900) as client:
        shots = [await traffic.shot(client, traffic.body(peer, "greedy", i, 1, f"[r0 greedy {i}]"))
                 for i in range(len(traffic.KINDS))]
    return round(sum(s.prompt_tokens for s in shots) / len(shots))


async def serve(peer: peers.Peer, rounds: int) -> dict[str, dict[str, Any]]:
    results: dict[str, dict[str, Any]] = {}
    for round_no in range(rounds):
        for mode in ("greedy", "sampled"):
            for concurrency in LEVELS:
                got = await level(peer, mode, concurrency, max(2 * concurrency, 8), f"r{round_no} {mode}")
                total = results.setdefault(f"{mode} c{concurrency}", {})
                for key, value in got.items():
                    if key == "prompt_tokens":
                        total[key] = (total.get(key, 0.0) * round_no + value) / (round_no + 1)
                    elif isinstance(value, list):
                        total[key] = total.get(key, []) + value
                    else:
                        total[key] = total.get(key, 0.0) + value
    return results


def measure_tools(bin_dir: Path, gguf: Path, threads: int, prompt: int) -> dict[str, Any]:
    server_kv = traffic.LANES * traffic.WINDOW
    return {
        "tg128": tg_rate(bin_dir, gguf, threads, 0, 128),
        "tg at depth": tg_rate(bin_dir, gguf, threads, prompt, 96),
        "batched B=8": traffic.batched_rates(bin_dir, gguf, threads, 128, 128, BATCHES)[8],
        "batched at depth": traffic.batched_rates(bin_dir, gguf, threads, prompt, 96, BATCHES),
        "batched at depth, server layout": traffic.batched_rates(bin_dir, gguf, threads, prompt, 96, BATCHES,
                                                                 server_kv),
    }


def mean_tools(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The tools' figures averaged over runs (before and after the server's levels, so drift shows and halves)."""
    out: dict[str, Any] = {}
    for key, value in runs[0].items():
        if isinstance(value, dict):
            out[key] = {b: sum(run[key][b] for run in runs) / len(runs) for b in value}
        else:
            out[key] = sum(run[key] for run in runs) / len(runs)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--bin", type=Path, default=traffic.BIN, help="where llama-bench and llama-batched-bench are")
    parser.add_argument("--record", action="store_true")
    args = parser.parse_args()
    gguf = resolve(DEFAULT_MODEL).locate()
    logs = Path(f"/tmp/superfluid-account-{os.getpid()}")
    logs.mkdir(exist_ok=True)
    peer = traffic.start_peer("superfluid", args.threads, logs)
    try:  # the tools run while the server idles (its engine thread ends when it has no work)
        prompt = asyncio.run(prompt_tokens(peer))
        runs = [measure_tools(args.bin, gguf, args.threads, prompt)]
        levels = asyncio.run(serve(peer, args.rounds))
        runs.append(measure_tools(args.bin, gguf, args.threads, prompt))
    finally:
        peer.stop()
    tools = mean_tools(runs)
    header = (f"machine: {platform.machine()}, {len(os.sched_getaffinity(0))} cores; threads={args.threads}; "
              f"model {gguf.name}; superfluid alone, {traffic.LANES} lanes x {traffic.WINDOW} window, flash "
              f"attention {peers.flash_attn()}; the traffic mix, 96 tokens; {args.rounds} rounds per level; "
              f"the tools at the levels' depth: {prompt}-token prompts, then 96 tokens; each tool figure is the "
              f"mean of a run before the levels and one after (llama-bench tg128 "
              + " and ".join(f"{run['tg128']:.1f}" for run in runs) + "; batched-bench B=8 at depth in the "
              "server's layout " + " and ".join(f"{run['batched at depth, server layout'][8]:.1f}" for run in runs)
              + ")")
    text = report(levels, tools, header)
    print(text)
    if args.record:
        print(record("engine-account", text + "\n" + json.dumps({"levels": levels, "tools": runs}, indent=1)))


if __name__ == "__main__":
    main()
