"""Long mixed load, and kill -9 under it (issue 34).

Soak: ``--clients`` closed-loop clients (default 64) send every dialect's traffic for ``--seconds`` (default 600)
to one server with default flags serving the bundled chat and embedding models: OpenAI chat and completions
streamed and whole, Anthropic messages, Responses stored and continued, Ollama chat, embeddings, uploads, a batch
always running, and clients leaving after the first token or before any (conformance/mixed_load.py). Recorded per
minute: requests, errors by status, p50/p95/p99 time to first token of each dialect's streamed replies, and the
server's resident memory and open descriptors (its worker processes included). After the end: lanes busy and
requests waiting, and every stored response, file and batch the server acknowledged, read back. Targets: no
unexpected error, no lane or request left, memory and descriptors flat (the last minute within 5% of the second).

Kills (``--kills N``): the same load from fewer clients (default 16) on a sessions directory that persists; after
10-30 s the server is killed with SIGKILL, the SQLite file's integrity is checked, the server restarts on the same
directory, and everything acknowledged so far is read back (batches must finish with each line answered once)
before the next round's load. N rounds in a row.

Run: ``python -m benchmarks.soak [--seconds 600] [--clients 64] [--record]`` or
``python -m benchmarks.soak --kills 20 [--record]``; never part of CI (conformance/test_kill_under_load.py is the
short version that is).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import platform
import random
import sqlite3
import tempfile
import threading
import time
from collections import Counter, defaultdict
from pathlib import Path

from conformance.mixed_load import LEFT, Ledger, MixedLoad, Outcome, lanes_in_use, load_then_kill, verify
from conformance.mixed_load import unexpected as unexpected_answers
from conformance.server import DEFAULT_MODEL, RunningServer, start_server, stop_server

from benchmarks.recording import machine_line, record

EMBED_MODEL = "all-minilm-l6-v2"
DIALECTS = ("openai", "anthropic", "responses", "ollama")


def _tree(pid: int) -> list[int]:
    """``pid`` and its descendants (the server's preparation and validation workers)."""
    found, pending = [], [pid]
    while pending:
        current = pending.pop()
        found.append(current)
        for task in Path(f"/proc/{current}/task").glob("*"):
            with contextlib.suppress(OSError):
                pending += [int(c) for c in (task / "children").read_text().split()]
    return found


def _rss_and_fds(pid: int) -> tuple[float, int]:
    rss_kb, fds = 0, 0
    for each in _tree(pid):
        try:
            status = Path(f"/proc/{each}/status").read_text()
            rss_kb += int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmRSS:")))
            fds += len(os.listdir(f"/proc/{each}/fd"))
        except (OSError, StopIteration):
            pass
    return rss_kb / 1024, fds


class _Sampler(threading.Thread):
    """The server's memory and descriptors every few seconds, with the time they were read."""

    def __init__(self, pid: int, every_s: float = 5.0) -> None:
        super().__init__(daemon=True)
        self.pid, self.every_s = pid, every_s
        self.samples: list[tuple[float, float, int]] = []
        self.halt = threading.Event()

    def run(self) -> None:
        while not self.halt.is_set():
            self.samples.append((time.monotonic(), *_rss_and_fds(self.pid)))
            self.halt.wait(self.every_s)


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _serve(sessions: Path, logs: Path, name: str, flags: tuple[str, ...] = ()) -> RunningServer:
    return start_server([DEFAULT_MODEL, EMBED_MODEL, "--sessions", str(sessions), *flags], logs / f"{name}.log")


# ---- the soak ---------------------------------------------------------------------------------------------------

async def _timed(load: MixedLoad, seconds: float, *, batches: bool = True) -> None:
    runner = asyncio.create_task(load.run(batches=batches))
    await asyncio.sleep(seconds)
    load.stop.set()
    await runner


def soak(seconds: float, clients: int, logs: Path, only: tuple[str, ...] = (), flags: tuple[str, ...] = ()) -> str:
    server = _serve(logs / "sessions", logs, "soak", flags)
    try:
        load = MixedLoad(server.base_url, model=DEFAULT_MODEL, embed_model=EMBED_MODEL, clients=clients, only=only)
        sampler = _Sampler(server.process.pid)
        sampler.start()
        started = time.monotonic()
        asyncio.run(_timed(load, seconds, batches=not only))
        sampler.halt.set()
        sampler.join()
        problems = verify(server.base_url, load.ledger)  # waits for the last batch to end, too
        busy, waiting = _settled(server.base_url)
    finally:
        stop_server(server)
    return _soak_report(load, sampler, started, seconds, clients, (busy, waiting), problems)


def _settled(base_url: str, within_s: float = 10.0) -> tuple[int, int]:
    """Lanes busy and requests waiting once the server has had ``within_s`` to finish what the clients left: a
    whole reply whose client was cancelled at the end is only noticed at the engine's next step, so a read at
    once can catch it still on its lane (a leaked lane stays busy however long one waits)."""
    deadline = time.monotonic() + within_s
    while True:
        busy, waiting = lanes_in_use(base_url)
        if not (busy or waiting) or time.monotonic() > deadline:
            return busy, waiting
        time.sleep(0.5)


def _soak_report(load: MixedLoad, sampler: _Sampler, started: float, seconds: float, clients: int,
                 after: tuple[int, int], problems: list[str]) -> str:
    minutes = max(1, round(seconds / 60))
    by_minute: dict[int, list[Outcome]] = defaultdict(list)
    for outcome in load.outcomes:
        by_minute[min(minutes - 1, int((outcome.started - started) // 60))].append(outcome)
    memory: dict[int, list[tuple[float, int]]] = defaultdict(list)
    for at, rss, fds in sampler.samples:
        if at >= started:
            memory[min(minutes - 1, int((at - started) // 60))].append((rss, fds))
    lines = ["minute  requests  left  unexpected  " + "  ".join(f"{d + ' TTFT p50/p95/p99 s':<34}" for d in DIALECTS)
             + "  RSS MB  fds"]
    for minute in range(minutes):
        outcomes = by_minute[minute]
        cells = []
        for dialect in DIALECTS:
            ttfts = [o.ttft for o in outcomes if o.dialect == dialect and o.ttft is not None and o.status == "200"]
            cells.append(f"{_pct(ttfts, .5):6.2f} {_pct(ttfts, .95):6.2f} {_pct(ttfts, .99):6.2f} (n={len(ttfts)})"
                         .ljust(34))
        rss = max((m[0] for m in memory[minute]), default=float("nan"))
        fds = max((m[1] for m in memory[minute]), default=0)
        lines.append(f"{minute + 1:>6} {len(outcomes):>9} {sum(o.status == LEFT for o in outcomes):>5} "
                     f"{sum(o.status not in ('200', LEFT) for o in outcomes):>11}  " + "  ".join(cells)
                     + f"  {rss:6.0f}  {fds:3d}")
    kinds = Counter(o.kind for o in load.outcomes)
    unexpected = Counter(unexpected_answers(load.outcomes))
    second, last = (max((m[0] for m in memory[i]), default=float("nan")) for i in (min(1, minutes - 1), minutes - 1))
    fds_second, fds_last = (max((m[1] for m in memory[i]), default=0) for i in (min(1, minutes - 1), minutes - 1))
    ledger = load.ledger
    lines += [
        f"requests by kind: {', '.join(f'{k} {n}' for k, n in sorted(kinds.items()))}",
        f"unexpected answers: {sum(unexpected.values())} {dict(unexpected) if unexpected else ''} (target 0)",
        f"after the end (up to 10 s): {after[0]} lanes busy, {after[1]} requests waiting (target 0, 0)",
        f"RSS MB last minute / second minute: {last:.0f} / {second:.0f} = {last / second:.3f} (target <= 1.05); "
        f"descriptors {fds_last} / {fds_second} = {fds_last / max(1, fds_second):.3f} (target <= 1.05)",
        f"acknowledged and read back: {len(ledger.responses)} stored responses, {len(ledger.files)} files, "
        f"{len(ledger.batches)} batches; problems: {len(problems)} {problems[:5] if problems else ''}",
    ]
    return f"{clients} clients for {seconds:g} s\n" + "\n".join(lines)


# ---- kill -9 in a loop --------------------------------------------------------------------------------------------

def kills(rounds: int, clients: int, logs: Path, seed: int) -> str:
    rng = random.Random(seed)
    sessions, ledger = logs / "sessions", Ledger()
    lines = ["round  load s  restart s  served  unexpected before the kill  integrity  owed: responses files "
             "batches  problems after the restart"]
    failures = 0
    for n in range(rounds + 1):
        begun = time.monotonic()
        server = _serve(sessions, logs, f"round-{n}")
        restart_s = time.monotonic() - begun
        try:
            problems = verify(server.base_url, ledger) if n else []
            if n == rounds:
                lines.append(f"final  {'':>6}  {restart_s:9.1f}  {'':>6}  {'':>26}  {'':>9}  "
                             f"{len(ledger.responses):>15} {len(ledger.files):>5} {len(ledger.batches):>7}  "
                             f"{len(problems)} {problems[:3] if problems else ''}")
                failures += len(problems)
                break
            seconds = rng.uniform(10, 30)
            load = MixedLoad(server.base_url, model=DEFAULT_MODEL, embed_model=EMBED_MODEL, clients=clients,
                             seed=n)
            load.ledger = ledger
            killed_at = asyncio.run(load_then_kill(load, server.process, seconds))
        finally:
            if server.process.poll() is None:
                server.process.kill()
        with sqlite3.connect(sessions / "state.sqlite3") as db:
            integrity = db.execute("PRAGMA integrity_check").fetchone()[0]
        unexpected = Counter(unexpected_answers(load.outcomes, killed_at))
        failures += len(problems) + sum(unexpected.values()) + (integrity != "ok")
        served = sum(o.status == "200" for o in load.outcomes)
        lines.append(f"{n + 1:>5}  {seconds:6.1f}  {restart_s:9.1f}  {served:>6}  {sum(unexpected.values()):>26}  "
                     f"{integrity:>9}  {len(ledger.responses):>15} "
                     f"{len(ledger.files):>5} {len(ledger.batches):>7}  {len(problems)} "
                     f"{problems[:3] if problems else ''}")
    lines.append(f"failures in all: {failures} (target 0)")
    return f"{rounds} kills, {clients} clients, load 10-30 s a round (seed {seed})\n" + "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=600, help="length of the soak")
    parser.add_argument("--clients", type=int, default=None, help="concurrent clients (64 soak, 16 kills)")
    parser.add_argument("--kills", type=int, default=0, help="kill -9 rounds instead of the soak")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--record", action="store_true")
    parser.add_argument("--only", nargs="*", default=[], help="just these kinds of request (names as in "
                        "conformance/mixed_load.py, e.g. 'chat stream'), no batch: what one kind costs")
    parser.add_argument("--server-flags", default="", help="more flags for serve (e.g. '--kv-disk-bytes 0')")
    parser.add_argument("--note", default="", help="a line for the record (e.g. what else ran on the machine)")
    args = parser.parse_args()
    logs = Path(tempfile.mkdtemp(prefix="superfluid-soak-"))
    load_before = os.getloadavg()[0]
    if args.kills:
        body = kills(args.kills, args.clients or 16, logs, args.seed)
    else:
        body = soak(args.seconds, args.clients or 64, logs, tuple(args.only), tuple(args.server_flags.split()))
    header = (f"{machine_line()}; {platform.machine()}, {len(os.sched_getaffinity(0))} cores; load average "
              f"{load_before:.1f} before; serve {DEFAULT_MODEL} {EMBED_MODEL}, "
              f"{args.server_flags or 'default flags'}; logs in {logs}"
              + (f"; only {', '.join(args.only)}" if args.only else "")
              + (f"\nnote: {args.note}" if args.note else ""))
    report = header + "\n" + body
    print(report)
    if args.record:
        print("recorded in", record("kill-under-load" if args.kills else "soak", report))


if __name__ == "__main__":
    main()
