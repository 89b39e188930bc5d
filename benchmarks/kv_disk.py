"""The prefix cache's RAM and disk tiers: time to first token of a long conversation cold, warm in its lane, warm
from the RAM tier and from disk in the same process, from disk after a restart, and back on a plain `superfluid
serve` after others of its size came between, side by side in one run; and the lane-warm time with both tiers
off beside it (the tiers must not slow the lane path).

For each prefix size (about 2k and 6k prompt tokens) and each of three conversations: the server (one lane, so a
second conversation pushes the first out of RAM) answers a document plus question 1 (cold), the same document plus
question 2 (RAM-warm), then another document (pushing the first out), then the first document plus question 3
(disk-warm), is restarted on the same sessions directory, and answers the first document plus question 4
(disk-warm after restart). Greedy, one generated token per request: what is measured is the prompt. Medians of the
three conversations are reported, with each figure's ratio to cold.

Run: ``python -m benchmarks.kv_disk [--record]``. Never part of the test suite.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import httpx
from conformance.server import RunningServer, start_server, stop_server

from benchmarks.recording import machine_line, record
from benchmarks.traffic import long_prompt

SIZES = {"2k": 900, "6k": 2700}
"""``long_prompt`` words for about 2,000 and 6,000 prompt tokens."""
CONVERSATIONS = 3
MODEL = "smollm2-135m-instruct"
OTHERS = {"2k": 6, "6k": 2}
"""Conversations between a plain server's first and its return: more than its shared window holds."""


def _ttft(server: RunningServer, document: str, question: str) -> tuple[float, int, int, int]:
    """(seconds to the first token, prompt tokens, warm tokens, of those from disk)."""
    body = {"model": MODEL, "stream": True, "max_tokens": 1, "temperature": 0,
            "stream_options": {"include_usage": True},
            "messages": [{"role": "user", "content": document}, {"role": "assistant", "content": "Noted."},
                         {"role": "user", "content": question}]}
    started = time.perf_counter()
    first = None
    prompt = 0
    with httpx.stream("POST", server.base_url + "/v1/chat/completions", json=body, timeout=900) as reply:
        warm = int(reply.headers["x-superfluid-warm"])
        disk = int(reply.headers.get("x-superfluid-warm-disk", 0))
        for line in reply.iter_lines():
            if first is None and line.startswith("data: ") and '"content"' in line:
                first = time.perf_counter() - started
            if '"usage"' in line and '"prompt_tokens"' in line:
                prompt = int(line.split('"prompt_tokens":')[1].split(",")[0])
    return (first or time.perf_counter() - started), prompt, warm, disk


def _serve(base: Path, log: str, *extra: str) -> RunningServer:
    return start_server([MODEL, "--parallel", "1", "--ctx-size", "8192", "--sessions", str(base / "sessions"),
                         *extra], base / log)


def _case(words: int, tag: str, extra: tuple[str, ...]) -> dict[str, tuple[float, int, int, int]]:
    with tempfile.TemporaryDirectory(prefix="kv-disk-bench-") as tmp:
        base = Path(tmp)
        document, other = long_prompt(f"{tag}-a", words), long_prompt(f"{tag}-b", words)
        server = _serve(base, "first.log", *extra)
        try:
            out = {"cold": _ttft(server, document, "Question 1: which entry has the most lamps?"),
                   "ram": _ttft(server, document, "Question 2: which entry has the most books?")}
            _ttft(server, other, "Question 1: which entry has the most lamps?")
            out["tier"] = _ttft(server, document, "Question 3: which entry has the most clocks?")
        finally:
            stop_server(server)
        server = _serve(base, "second.log", *extra)
        try:
            out["restart"] = _ttft(server, document, "Question 4: how many entries are there?")
        finally:
            stop_server(server)
        return out


def _default_case(words: int, tag: str, others: int) -> dict[str, tuple[float, int, int, int]]:
    """Plain `superfluid serve` (four lanes sharing one window): a conversation, ``others`` more of its size, then
    the first again, which must come back from the RAM tier."""
    with tempfile.TemporaryDirectory(prefix="kv-disk-bench-") as tmp:
        base = Path(tmp)
        server = start_server([], base / "plain.log")
        try:
            document = long_prompt(f"{tag}-a", words)
            out = {"cold": _ttft(server, document, "Question 1: which entry has the most lamps?")}
            for n in range(others):
                _ttft(server, long_prompt(f"{tag}-o{n}", words), "Question 1: which entry has the most lamps?")
            out["back"] = _ttft(server, document, "Question 2: which entry has the most books?")
            tier = httpx.get(server.base_url + "/slots", timeout=30).json()[0]["kv_disk"]
            out["ram_restores"] = (0.0, 0, int(tier["ram_restores"]), int(tier["saves"]))
        finally:
            stop_server(server)
        return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--record", action="store_true", help="write benchmarks/results/kv-disk.txt")
    args = parser.parse_args()
    lines = ["Prefix cache RAM and disk tiers: time to first token (median of 3 conversations; ratio to cold)",
             f"machine: {machine_line()}",
             "server: superfluid serve smollm2-135m-instruct --parallel 1 --ctx-size 8192 (all threads), and plain "
             "`superfluid serve` for the last column", ""]
    header = (f"{'prefix':>7} {'tokens':>6} {'cold ms':>8} {'lane ms':>13} {'RAM tier ms':>13} {'disk ms':>13} "
              f"{'restart ms':>13} {'plain serve':>13} {'lane, tiers off':>16}")
    lines.append(header)
    for size, words in SIZES.items():
        runs = [_case(words, f"{size}{n}", ()) for n in range(CONVERSATIONS)]
        disk = [_case(words, f"{size}{n}", ("--cache-ram", "0")) for n in range(CONVERSATIONS)]
        off = [_case(words, f"{size}{n}", ("--kv-disk-bytes", "0", "--cache-ram", "0")) for n in range(CONVERSATIONS)]
        plain = [_default_case(words, f"{size}{n}", OTHERS[size]) for n in range(CONVERSATIONS)]

        def median(kind: str, of: list[dict[str, tuple[float, int, int, int]]]) -> float:
            return statistics.median(run[kind][0] for run in of) * 1000

        cold = median("cold", runs)
        tokens = runs[0]["cold"][1]
        for run in runs + disk:
            assert run["tier"][3] > 0 and run["restart"][3] > 0, run  # loaded back, not prefilled by chance
        for run in plain:
            assert run["back"][2] >= 0.9 * run["back"][1], run  # warm: from a lane, the RAM tier or the disk
        cells = [f"{median(kind, of):7.0f} ({median(kind, of) / cold:4.0%})"
                 for kind, of in (("ram", runs), ("tier", runs), ("tier", disk), ("restart", runs), ("back", plain))]
        lines.append(f"{size:>7} {tokens:>6} {cold:8.0f} {cells[0]:>13} {cells[1]:>13} {cells[2]:>13} "
                     f"{cells[3]:>13} {cells[4]:>13} {median('ram', off):13.0f} ms")
        print(lines[-1], flush=True)
        lines.append(f"{'':>7} plain serve: {sum(run['ram_restores'][3] for run in plain)} lanes saved, "
                     f"{sum(run['ram_restores'][2] for run in plain)} restores from RAM, "
                     f"{sum(run['back'][3] > 0 for run in plain)} of {len(plain)} returns restored from a tier "
                     "(RAM or disk)")
    lines += ["", "cold: the whole prompt prefilled; lane: the conversation's prefix still in a lane; RAM tier: pushed "
              "out of its lane by another conversation, loaded back from the RAM tier (--cache-ram); disk: the same "
              "with --cache-ram 0, read from <sessions>/kv/; restart: from disk after the server restarted; plain "
              "serve: no flags (four lanes sharing one window), the conversation back after "
              f"{OTHERS['2k']} (2k) or {OTHERS['6k']} (6k) others of its size; lane, tiers off: the lane-warm case "
              "with --kv-disk-bytes 0 --cache-ram 0."]
    report = "\n".join(lines)
    print(report)
    if args.record:
        print(f"recorded in {record('kv-disk', report)}")


if __name__ == "__main__":
    main()
