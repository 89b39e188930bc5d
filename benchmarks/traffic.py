"""Traffic benchmark: superfluid and llama-server side by side, greedy and sampled, at 1 to 32 streams.

Same model (the bundled SmolLM2-135M Q4_1), same threads, same lanes (superfluid ``--parallel 8 --ctx-size
4096 --kv-size 32768``, llama-server ``-np 8 -c 32768``; at 16 and 32 streams requests queue behind the 8 lanes),
same flash attention (llama-server and the llama.cpp tools get ``-fa`` as superfluid's ``--flash-attn auto``
resolves: off; benchmarks/long_chat.py compares the defaults).
Streaming chat on a mix of prompts (a story, code, a question, JSON under a schema), two kinds of traffic:
greedy (temperature 0) and sampled (temperature 0.7, top_p 0.95, a seed per request). EOS is suppressed except
for the JSON requests, which end when the schema's object closes. Both servers run at once and take turns level
by level, so drift on the machine hits both alike. Reported per server, traffic kind and concurrency:

* aggregate tok/s (all completion tokens over the level's wall time) and the median per-stream tok/s; each level
  sends one request per stream from 8 streams up and twelve below (the mix three times over), ``streams`` at a
  time;
* p50 and p95 time to first token (queueing included); a request the server drops unanswered is sent again once
  (its time counts from the first try) and the report lists such retries;
* CPU seconds per generated token of the server process (all its threads, from /proc), and its RSS; and of this
  client (it reads every stream on the same cores, as a local client does);
* prefill tok/s on a ~2,000-token prompt (prompt tokens over time to first token, max_tokens 1; the median of six
  prompts, the two servers taking turns to go first);
* the ceiling: llama-bench (pp / tg) and llama-batched-bench (aggregate tg at each concurrency) of the same
  llama.cpp build, run after the servers stop.

CPU seconds per token is the figure a busy machine skews least; rates and latencies move with other load.

Run: ``python -m benchmarks.traffic [--quick] [--build] [--record]``. ``--quick`` (levels 1 and 8, 32 tokens, no
batched-bench sweep) takes a few minutes; ``--build`` compiles llama-server, llama-bench and llama-batched-bench
first (benchmarks/build_llama_server.sh); without them the ceiling is left out. ``--llama-server PATH`` and
``--bin DIR`` take binaries of the same llama.cpp version built elsewhere. superfluid's process starts first
unless ``--started-first llama-server`` (recorded as traffic-KIND-llama-server-first, or
traffic-quick-KIND-llama-server-first with ``--quick``); that changes only the order the processes start in, not
who takes the first turn at a level. On this VM the process started first has at times seen slower first requests
after the other's level (benchmarks/start_order.py). Never part of the test suite.

Each record names the processor (model, kind, and the kernels llama.cpp found) on its first line, and its file name
carries the kind (``traffic-intel-amx``, ``traffic-amd-avx512``...), so one machine's record never replaces
another's. benchmarks/results/traffic.txt and its siblings without a kind predate this and were taken on an Intel
Xeon with AMX.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from benchmarks import peers
from benchmarks.proc import cpu_seconds
from benchmarks.recording import cpu_kind, machine_line, record
from superfluid.engine.models.model_sources import DEFAULT_MODEL, resolve

LANES = 8
WINDOW = 4096
BIN = peers.BUILD / "cmake" / "bin"
SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer"},
                                           "city": {"type": "string"}, "hobbies": {"type": "array",
                                                                                   "items": {"type": "string"}}},
          "required": ["name", "age", "city", "hobbies"], "additionalProperties": False}
KINDS = ("story", "code", "qa", "json")
TOPICS = ["a lighthouse", "a night train", "an old library", "a mountain pass", "a desert caravan", "a bakery",
          "a chess club", "a submarine"]


def _ask(kind: str, i: int) -> str:
    topic = TOPICS[i % len(TOPICS)]
    return {
        "story": f"Write a long story about {topic}.",
        "code": f"Write a Python class that models {topic}, with methods and docstrings.",
        "qa": f"Explain in detail how {topic} works, and why people care about it.",
        "json": f"Invent a person who lives near {topic}. Reply with JSON only.",
    }[kind]


def body(peer: peers.Peer, mode: str, i: int, max_tokens: int, tag: str) -> dict[str, Any]:
    kind = KINDS[i % len(KINDS)]
    out: dict[str, Any] = {"model": peer.model, "stream": True, "max_tokens": max_tokens,
                           "stream_options": {"include_usage": True},
                           "messages": [{"role": "user", "content": f"{tag} {_ask(kind, i)}"}]}
    if mode == "greedy":
        out["temperature"] = 0
    else:
        out.update(temperature=0.7, top_p=0.95, seed=1000 + i)
    if kind == "json":
        out["response_format"] = {"type": "json_schema", "json_schema": {"name": "person", "schema": SCHEMA}}
    else:
        out["ignore_eos"] = True
    return out


@dataclass
class Shot:
    ttft_s: float = float("nan")
    tokens: int = 0
    prompt_tokens: int = 0
    stamps: list[float] = field(default_factory=list)
    error: str | None = None
    retried: bool = False

    @property
    def rate(self) -> float:
        if len(self.stamps) < 2 or self.stamps[-1] <= self.stamps[0]:
            return float("nan")
        return (len(self.stamps) - 1) / (self.stamps[-1] - self.stamps[0])


async def shot(client: httpx.AsyncClient, payload: dict[str, Any]) -> Shot:
    """One streamed request. A connection the server drops before answering is tried once more, as the SDKs do
    (llama-server now and then closes one without a response); the time to first token counts from the first try."""
    start = time.perf_counter()
    result = Shot()
    for attempt in (1, 2):
        answered = False
        try:
            async with client.stream("POST", "/v1/chat/completions", json=payload) as response:
                answered = True
                await _read(response, start, result)
            break
        except httpx.RemoteProtocolError as exc:
            if attempt == 1 and not answered:
                result.retried = True
                continue
            result.error = repr(exc)
            break
        except httpx.HTTPError as exc:
            result.error = repr(exc)
            break
    result.tokens = result.tokens or len(result.stamps)
    return result


async def _read(response: httpx.Response, start: float, result: Shot) -> None:
    """A reply's status, or its stream's frames, into ``result``."""
    if response.status_code != 200:
        result.error = f"HTTP {response.status_code}: {(await response.aread())[:200]!r}"
        return
    async for line in response.aiter_lines():
        if not line.startswith("data: {"):
            continue
        frame = json.loads(line[6:])
        if frame.get("error"):
            result.error = str(frame["error"])[:200]
        for choice in frame.get("choices") or []:
            if (choice.get("delta") or {}).get("content"):
                now = time.perf_counter()
                if not result.stamps:
                    result.ttft_s = now - start
                result.stamps.append(now)
        usage = frame.get("usage") or {}
        if usage:
            result.tokens = int(usage.get("completion_tokens") or 0)
            result.prompt_tokens = int(usage.get("prompt_tokens") or 0)


async def send(client: httpx.AsyncClient, payloads: list[dict[str, Any]], concurrency: int) -> list[Shot]:
    """Every payload as a ``shot``, ``concurrency`` at a time; the results in the payloads' order."""
    gate = asyncio.Semaphore(concurrency)

    async def gated(payload: dict[str, Any]) -> Shot:
        async with gate:
            return await shot(client, payload)

    return list(await asyncio.gather(*(gated(p) for p in payloads)))


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(v for v in values if v == v)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def requests_at(concurrency: int) -> int:
    """How many requests the traffic benchmark's level sends: one per stream from 8 streams up, and below that
    the mix three times over, so that the level's p95 is not just its slowest of four requests."""
    return concurrency if concurrency >= LANES else 3 * len(KINDS)


async def level(peer: peers.Peer, mode: str, concurrency: int, max_tokens: int, tag: str,
                requests: int | None = None) -> dict[str, Any]:
    """``requests`` requests (default ``max(concurrency, len(KINDS))``), ``concurrency`` at a time: below four
    streams a level still sends the whole mix (a story, code, a question, JSON), not one or two requests of it."""
    count = requests if requests is not None else max(concurrency, len(KINDS))
    payloads = [body(peer, mode, i, max_tokens, f"[{tag} {i}]") for i in range(count)]
    async with httpx.AsyncClient(base_url=peer.base_url, timeout=900) as client:
        cpu = cpu_seconds(peer.process.pid)
        client_cpu = time.process_time()
        start = time.perf_counter()
        shots = await send(client, payloads, concurrency)
        wall = time.perf_counter() - start
        cpu = cpu_seconds(peer.process.pid) - cpu
        client_cpu = time.process_time() - client_cpu
    tokens = sum(s.tokens for s in shots)
    return {
        "aggregate_tok_s": tokens / wall,
        "stream_tok_s": statistics.median(s.rate for s in shots),
        "ttft_p50_ms": _pct([s.ttft_s for s in shots], 0.5) * 1000,
        "ttft_p95_ms": _pct([s.ttft_s for s in shots], 0.95) * 1000,
        "ttfts_ms": [round(s.ttft_s * 1000, 1) for s in shots],
        "cpu_ms_per_token": cpu / max(tokens, 1) * 1000,
        "client_cpu_ms_per_token": client_cpu / max(tokens, 1) * 1000,
        "rss_mb": peer.rss_bytes() / 2**20,
        "tokens": tokens,
        "errors": [s.error for s in shots if s.error],
        "retried": sum(s.retried for s in shots),
    }


def start_peer(kind: str, threads: int, logs: Path, *, name: str | None = None,
               llama_server: Path = peers.LLAMA_SERVER, flags: tuple[str, ...] = (),
               env: dict[str, str] | None = None) -> peers.Peer:
    """``kind`` ("superfluid" or "llama-server") on the bundled model with this benchmark's lanes and window (the
    module docstring's flags), its log named ``name`` (default: ``kind``); ``flags`` and ``env`` are superfluid's."""
    if kind == "superfluid":
        return peers.superfluid(DEFAULT_MODEL, threads=threads, lanes=LANES, window=WINDOW, logs=logs,
                                name=name or kind, flags=flags, env=env)
    return peers.llama_server(resolve(DEFAULT_MODEL).locate(), threads=threads, lanes=LANES, window=WINDOW,
                              logs=logs, binary=llama_server, name=name or kind)


def side_by_side(threads: int, logs: Path, llama_server: Path, first: str = "superfluid",
                 flags: tuple[str, ...] = ()) -> dict[str, peers.Peer]:
    """superfluid (with ``flags`` added) and llama-server (``start_peer``), the one named ``first`` started first
    (benchmarks/start_order.py). The mapping lists superfluid first either way."""
    kinds = ("superfluid", "llama-server")
    started: dict[str, peers.Peer] = {}
    try:
        for kind in sorted(kinds, key=lambda k: k != first):
            started[kind] = start_peer(kind, threads, logs, llama_server=llama_server,
                                       flags=flags if kind == "superfluid" else ())
    except BaseException:
        for peer in started.values():
            peer.stop()
        raise
    return {kind: started[kind] for kind in kinds}


def long_prompt(tag: str, words: int = 1500) -> str:
    """About 2,000 tokens of varied text (no long repeats a prefix cache or a tokenizer could shortcut)."""
    parts = [f"{tag} Notes from the archive."]
    for i in range(words // 12):
        parts.append(f"Entry {i}: the keeper of {TOPICS[i % len(TOPICS)]} counted {i * 37 % 101} lamps, "
                     f"{i * 13 % 59} books and {i * 7 % 23} clocks.")
    return " ".join(parts) + " Summarise the notes."


async def prefill(peer: peers.Peer, tag: str) -> float:
    payload = {"model": peer.model, "stream": True, "max_tokens": 1, "temperature": 0,
               "stream_options": {"include_usage": True},
               "messages": [{"role": "user", "content": long_prompt(tag)}]}
    async with httpx.AsyncClient(base_url=peer.base_url, timeout=900) as client:
        result = await shot(client, payload)
    return result.prompt_tokens / result.ttft_s if result.prompt_tokens and result.ttft_s > 0 else float("nan")


def ceilings(bin_dir: Path, gguf: Path, threads: int, quick: bool, levels: list[int]) -> dict[str, Any]:
    """llama-bench pp/tg and llama-batched-bench aggregate decode rates of the same llama.cpp build."""
    out: dict[str, Any] = {}
    if not (bin_dir / "llama-bench").exists() or not (bin_dir / "llama-batched-bench").exists():
        return {"not measured": f"llama-bench or llama-batched-bench missing in {bin_dir} (run with --build)"}
    bench = [str(bin_dir / "llama-bench"), "-m", str(gguf), "-t", str(threads), "-o", "json",
             "-p", "2000", "-n", "32" if quick else "128", "-r", "1" if quick else "3", "-fa", peers.flash_attn(),
             *(["--repack", "0"] if peers.no_repack() else [])]
    done = subprocess.run(bench, capture_output=True, text=True, check=False)
    for test in json.loads(done.stdout or "[]"):
        name = f"pp{test['n_prompt']}" if test["n_prompt"] else f"tg{test['n_gen']}"
        out[f"llama-bench {name} tok/s"] = round(float(test["avg_ts"]), 1)
    npl = [1, 8] if quick else levels
    for size, rate in batched_rates(bin_dir, gguf, threads, 128, 32 if quick else 128, npl).items():
        out[f"batched-bench B={size} tg tok/s"] = round(rate, 1)
    return out


def batched_rates(bin_dir: Path, gguf: Path, threads: int, prompt: int, tokens: int, batches: Sequence[int],
                  kv_size: int | None = None) -> dict[int, float]:
    """llama-batched-bench's aggregate decode rate at each batch size, after ``prompt`` tokens per sequence, in
    a KV cache of ``kv_size`` cells (a stream per sequence of the largest batch; default: just big enough).
    The first batch size runs twice and the second run counts: the first faults in the fresh KV cache."""
    cmd = [str(bin_dir / "llama-batched-bench"), "-m", str(gguf), "-t", str(threads), "-tb", str(threads),
           "-c", str(kv_size or max(batches) * (prompt + tokens) + 256), "-npp", str(prompt), "-ntg", str(tokens),
           "-npl", ",".join(map(str, (batches[0], *batches))), "--output-format", "jsonl", "-fa", peers.flash_attn(),
           *peers.no_repack()]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    rates = {}
    for line in (done.stdout + done.stderr).splitlines():
        if line.startswith('{"n_kv_max"'):
            row = json.loads(line)
            rates[int(row["pl"])] = float(row["speed_tg"])
    return rates


async def run(servers: dict[str, peers.Peer], levels: list[int], max_tokens: int, prefills: int) -> dict[str, Any]:
    results: dict[str, Any] = {name: {} for name in servers}
    for peer in servers.values():  # warm up: first requests load pages, build caches
        await level(peer, "greedy", 2, 8, "warm-up")
    for mode_no, mode in enumerate(("greedy", "sampled")):
        for level_no, concurrency in enumerate(levels):
            # who goes first alternates from level to level, and each concurrency gets the other order in the
            # other traffic (a turn counter over all levels gave superfluid the first turn at 1 stream in both)
            names = list(servers) if (mode_no + level_no) % 2 == 0 else list(reversed(servers))
            for name in names:
                got = await level(servers[name], mode, concurrency, max_tokens, f"{mode} c{concurrency}",
                                  requests_at(concurrency))
                results[name][f"{mode} c{concurrency}"] = got
                print(f"{name} {mode} c{concurrency}: " + ", ".join(  # progress, for a run cut short
                    f"{k} {v:.1f}" for k, v in got.items() if isinstance(v, float)), flush=True)
    for round_no in range(prefills):
        names = list(servers) if round_no % 2 == 0 else list(reversed(servers))  # who goes first alternates
        for name in names:
            results[name].setdefault("prefill_tok_s", []).append(await prefill(servers[name], f"[prefill {round_no}]"))
    return results


def report(results: dict[str, Any], levels: list[int], header: str, ceiling: dict[str, Any]) -> str:
    lines = [header, f"{'server':<13}{'traffic':<9}{'streams':>7}{'agg tok/s':>10}{'stream tok/s':>13}"
                     f"{'TTFT p50':>9}{'p95 ms':>8}{'CPU ms/tok':>11}{'client':>7}{'RSS MB':>8}{'errors':>7}"]
    for mode in ("greedy", "sampled"):
        for concurrency in levels:
            for name, by_level in results.items():
                r = by_level[f"{mode} c{concurrency}"]
                lines.append(f"{name:<13}{mode:<9}{concurrency:>7}{r['aggregate_tok_s']:>10.1f}"
                             f"{r['stream_tok_s']:>13.1f}{r['ttft_p50_ms']:>9.0f}{r['ttft_p95_ms']:>8.0f}"
                             f"{r['cpu_ms_per_token']:>11.2f}{r.get('client_cpu_ms_per_token', float('nan')):>7.2f}"
                             f"{r['rss_mb']:>8.0f}{len(r['errors']):>7}")
    if set(results) == {"superfluid", "llama-server"}:
        ours, theirs = results["superfluid"], results["llama-server"]
        lines.append("superfluid / llama-server (aggregate tok/s; p95 TTFT; CPU per token):")
        for mode in ("greedy", "sampled"):
            cells = []
            for c in levels:
                a, b = ours[f"{mode} c{c}"], theirs[f"{mode} c{c}"]
                cpu = a["cpu_ms_per_token"] / b["cpu_ms_per_token"]
                cells.append(f"c{c} {a['aggregate_tok_s'] / b['aggregate_tok_s']:.2f}x"
                             f"/{a['ttft_p95_ms'] / b['ttft_p95_ms']:.2f}/{cpu:.2f}")
            lines.append(f"  {mode:<8} " + "  ".join(cells))
        p_ours, p_theirs = statistics.median(ours["prefill_tok_s"]), statistics.median(theirs["prefill_tok_s"])
        lines.append(f"prefill ~2,000-token prompt: superfluid {p_ours:.0f} tok/s, llama-server {p_theirs:.0f} tok/s"
                     f" ({p_ours / p_theirs:.2f}x)")
    retried = [f"{name} {level} ({r['retried']})" for name, by_level in results.items() for level, r in by_level.items()
               if isinstance(r, dict) and r.get("retried")]
    if retried:
        lines.append("requests sent again after the server dropped the connection unanswered: " + ", ".join(retried))
    if ceiling:
        lines.append("ceiling (same llama.cpp build): " + ", ".join(f"{k} {v}" for k, v in ceiling.items()))
        tg = next((v for k, v in ceiling.items() if k.startswith("llama-bench tg")), None)
        if tg and "superfluid" in results:
            single = results["superfluid"]["sampled c1"]["stream_tok_s"]
            lines.append(f"superfluid sampled single stream / llama-bench tg: {single / tg:.2f}")
        b8 = ceiling.get("batched-bench B=8 tg tok/s")
        if b8 and "superfluid" in results and 8 in levels:
            lines.append(f"superfluid sampled 8-stream aggregate / batched-bench B=8: "
                         f"{results['superfluid']['sampled c8']['aggregate_tok_s'] / b8:.2f}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--quick", action="store_true", help="levels 1 and 8, 32 tokens: a few minutes")
    parser.add_argument("--levels", default="1,2,4,8,16,32")
    parser.add_argument("--tokens", type=int, default=96)
    parser.add_argument("--build", action="store_true")
    parser.add_argument("--record", action="store_true")
    parser.add_argument("--llama-server", type=Path, default=peers.LLAMA_SERVER,
                        help="a llama-server binary of the same llama.cpp version built elsewhere")
    parser.add_argument("--bin", type=Path, default=BIN, help="where llama-bench and llama-batched-bench are")
    parser.add_argument("--note", default="", help="a line for the record (e.g. what else ran on the machine)")
    parser.add_argument("--started-first", choices=("superfluid", "llama-server"), default="superfluid",
                        help="which server's process starts first (not who goes first at a level); "
                             "llama-server records as traffic[-quick]-llama-server-first")
    args = parser.parse_args()
    if args.build:
        subprocess.run(["bash", str(Path(__file__).with_name("build_llama_server.sh"))], check=True)
    levels = [1, 8] if args.quick else [int(x) for x in args.levels.split(",")]
    max_tokens = 32 if args.quick else args.tokens
    gguf = resolve(DEFAULT_MODEL).locate()
    logs = Path(f"/tmp/superfluid-traffic-{os.getpid()}")  # the servers' logs, kept for a look afterwards
    logs.mkdir(exist_ok=True)
    load_before = os.getloadavg()[0]
    servers = side_by_side(args.threads, logs, args.llama_server, args.started_first)
    try:
        results = asyncio.run(run(servers, levels, max_tokens, 1 if args.quick else 6))
    finally:
        for peer in servers.values():
            peer.stop()
    ceiling = ceilings(args.bin, gguf, args.threads, args.quick, levels)
    header = (f"{machine_line()}\n"
              f"machine: {platform.machine()}, {len(os.sched_getaffinity(0))} cores; threads={args.threads}; "
              f"model {gguf.name}; {max_tokens} tokens/stream (JSON replies end with their object); {LANES} lanes x "
              f"{WINDOW} window; flash attention {peers.flash_attn()} on every side (superfluid's --flash-attn auto "
              f"here); load average {load_before:.1f} before, {os.getloadavg()[0]:.1f} after"
              + f"; {args.started_first} started first"
              + ("; quick" if args.quick else "") + (f"\nnote: {args.note}" if args.note else ""))
    text = report(results, levels, header, ceiling)
    print(text)
    if args.record:
        name = ("traffic-quick" if args.quick else "traffic") + f"-{cpu_kind()}"
        print(record(name if args.started_first == "superfluid" else f"{name}-llama-server-first",
                     text + "\n" + json.dumps({"results": results, "ceiling": ceiling}, indent=1)))


if __name__ == "__main__":
    main()
