"""Hostile-traffic benchmark: normal streaming traffic with and without an attack mix running beside it.

One server (default flags). Normal traffic is a few clients streaming short chat replies back to back; each
request's time to first token (TTFT) is recorded. Phases alternate, quiet then attacked, so that drift on a
shared machine hits both alike. The attack mix runs in a process of its own (its client work must not slow the
normal clients' measurements), each attack in its own thread, in a loop:

* big requests: a 10 MB prompt, 20,000 messages, 2,000 tools, a 5,000-branch anyOf schema;
* malformed ones: 1,000-deep nesting, a self-referential schema, a 2 MB stop list;
  (each of these seven sent again PAUSE_S after its answer)
* connections: 300 idle connections held open (more than the normal cap leaves room for is fine: the longest idle
  are closed for newcomers), 20 slowloris heads, 20 stalled bodies, 4 x 1 MiB header bombs;
* queued streams abandoned by their clients.

Reported: the CPU the server (with its worker processes) and the attacker used per second of each phase,
p50/p95 TTFT of normal traffic per phase kind and their ratio (target: attacked p95 within 20% of
quiet), normal requests completed and failed, the slowest /health, and resident memory at the start, at its
peak, and after the last attack (target: back near the start).

Run: ``python -m benchmarks.hostile [--seconds 60] [--rounds 2] [--clients 2] [--only WORD...] [--server-flags "..."]
[--name NAME] [--record]``; never part of CI. ``--only`` keeps the attacks whose names hold one of the words
(``_abandoned``, ``prompt``, ``anyOf``, ``_header``...), to see what each costs. ``--costs`` instead sends each big
or malformed body alone, once to warm up and then eight times in a row, and reports the eight's median answer time
and the CPU the server process itself spent on each (its worker processes left out): what an attack takes from the
process whose GIL the engine thread needs. The two recordings issue 34 asks for: ``--server-flags "--threads 1"
--name hostile-one-thread`` (the 20% target where a core is free), and ``--beside-llama-server --name
hostile-beside-llama-server``: superfluid and llama-server (8 lanes x 4,096) take turns under the attacks
llama-server's routes take too (``BOTH_TAKE``), and superfluid's attacked/quiet p95 ratio and completed share must
be no worse than llama-server's. Two more ways to read the one-thread figure: ``--bodies-elsewhere`` sends the
seven repeated bodies to a second superfluid at nice 19, so the server under test does none of their work (what
moving that work out of its process could reach); ``--floor`` runs no attack at all and puts normal traffic
beside a process that keeps one core busy (nice 19, then nice 0): the ratio any CPU-bound neighbour costs on
this machine.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import queue
import socket
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from conformance.server import start_server, stop_server

from benchmarks.peers import LLAMA_SERVER
from benchmarks.proc import cpu_seconds
from benchmarks.recording import machine_line, record
from superfluid.engine.models.model_sources import DEFAULT_MODEL

PAUSE_S = 3.0
"""Each big or malformed request is sent again this long after its answer (seven such loops at once)."""
PROMPTS = ["Name a river.", "Say one word about autumn.", "What is two plus two?", "Name a colour.",
           "Describe a cat briefly.", "Name a city in Peru."]


# ---- normal traffic ---------------------------------------------------------------------------------------------

async def _one_stream(client: httpx.AsyncClient, prompt: str) -> float | None:
    """TTFT of one streamed chat reply (first content chunk), None when it failed."""
    body = {"model": DEFAULT_MODEL, "messages": [{"role": "user", "content": prompt}], "max_tokens": 24,
            "temperature": 0, "stream": True}
    started = time.perf_counter()
    first: float | None = None
    for attempt in (1, 2):
        answered = False
        try:
            async with client.stream("POST", "/v1/chat/completions", json=body) as response:
                answered = True
                if response.status_code != 200:
                    return None
                async for line in response.aiter_lines():
                    if first is None and line.startswith("data: {") and '"content"' in line:
                        first = time.perf_counter() - started
            return first
        except httpx.RemoteProtocolError:
            # A connection closed before any answer is tried once more, as the SDKs do (llama-server now and
            # then closes a kept-alive one); the time counts from the first try.
            if answered or attempt == 2:
                return None
        except httpx.HTTPError:
            return None
    return None


async def _normal(base_url: str, seconds: float, clients: int) -> tuple[list[float], int]:
    ttfts: list[float] = []
    failed = 0
    deadline = time.monotonic() + seconds

    async def worker(n: int) -> None:
        nonlocal failed
        async with httpx.AsyncClient(base_url=base_url, timeout=120) as client:
            i = n
            while time.monotonic() < deadline:
                ttft = await _one_stream(client, PROMPTS[i % len(PROMPTS)])
                i += 1
                if ttft is None:
                    failed += 1
                else:
                    ttfts.append(ttft)

    await asyncio.gather(*(worker(n) for n in range(clients)))
    return ttfts, failed


# ---- the attack mix (in its own process) -----------------------------------------------------------------------

EXPECTED = {"5,000-branch anyOf": 200}
"""The answer each repeated attack should get (the others: 400). A 200 must be a chat completion cut by its 2-token
cap: this benchmark once counted a 200 whose grammar had given up after '{"' with "stop" as served."""


def _post(base_url: str, path: str, payload: bytes) -> str:
    """What the server answered, as a short word for the tally: the status, or how the request failed."""
    try:
        reply = httpx.post(base_url + path, content=payload, timeout=120,
                           headers={"content-type": "application/json"})
    except httpx.HTTPError as exc:
        return type(exc).__name__
    if reply.status_code != 200:
        return str(reply.status_code)
    try:
        finish = reply.json()["choices"][0]["finish_reason"]
    except (ValueError, KeyError, IndexError, TypeError):
        return "200 not a completion"
    return "200" if finish == "length" else f"200 ending {finish}"


def _chat(**extra: Any) -> dict[str, Any]:
    return {"model": DEFAULT_MODEL, "messages": [{"role": "user", "content": "hi"}], "max_tokens": 2, **extra}


def _payloads() -> dict[str, bytes]:
    tools = [{"type": "function", "function": {"name": f"t{i}", "parameters": {
        "type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]}}} for i in range(2000)]
    wide = {"anyOf": [{"type": "object", "properties": {f"k{i}": {"type": "string"}}, "required": [f"k{i}"]}
                      for i in range(5000)]}
    return {
        "10 MB prompt": json.dumps(_chat(messages=[{"role": "user", "content": "hello world " * 850_000}])).encode(),
        "20,000 messages": json.dumps(_chat(messages=[{"role": "user", "content": f"m {i}"}
                                                      for i in range(20_000)])).encode(),
        "2,000 tools": json.dumps(_chat(tools=tools)).encode(),
        "5,000-branch anyOf": json.dumps(_chat(response_format={
            "type": "json_schema", "json_schema": {"name": "w", "schema": wide}})).encode(),
        "deep nesting": b'{"model": "x", "messages": ' + b"[" * 1000 + b"]" * 1000 + b"}",
        "looping schema": json.dumps(_chat(response_format={
            "type": "json_schema", "json_schema": {"name": "l", "schema": {"$ref": "#"}}})).encode(),
        "2 MB stop list": json.dumps(_chat(stop=["x" * 100] * 20_000)).encode(),
    }


def _address(base_url: str) -> tuple[str, int]:
    host, port = base_url.removeprefix("http://").split(":")
    return host, int(port)


def _drip(base_url: str, stop: threading.Event) -> None:
    """Slowloris: a head one byte per second."""
    while not stop.is_set():
        try:
            with socket.create_connection(_address(base_url)) as sock:
                for byte in b"GET /health HTTP/1.1\r\nhost: x\r\nx-slow: " + b"s" * 100:
                    if stop.is_set():
                        return
                    sock.sendall(bytes([byte]))
                    time.sleep(1.0)
        except OSError:
            time.sleep(0.5)


def _stall(base_url: str, stop: threading.Event) -> None:
    """A body that stops after 10 bytes."""
    while not stop.is_set():
        try:
            with socket.create_connection(_address(base_url)) as sock:
                sock.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-length: 1000\r\n\r\n"
                             b'{"model":1')
                sock.settimeout(60)
                sock.recv(1024)
        except OSError:
            time.sleep(0.5)


def _idle_flood(base_url: str, stop: threading.Event) -> None:
    socks: list[socket.socket] = []
    while not stop.is_set():
        socks = [s for s in socks if s.fileno() >= 0]
        while len(socks) < 300:
            try:
                socks.append(socket.create_connection(_address(base_url)))
            except OSError:
                break
        stop.wait(1.0)
        for sock in socks[:50]:  # turn some over, as a flood would
            sock.close()
        socks = socks[50:]
    for sock in socks:
        sock.close()


def _header_bomb(base_url: str, stop: threading.Event) -> None:
    head = b"GET /v1/models HTTP/1.1\r\nhost: x\r\n" + b"".join(
        b"x-b%d: %s\r\n" % (i, b"a" * 1024 * 1024) for i in range(4)) + b"\r\n"
    while not stop.is_set():
        try:
            with socket.create_connection(_address(base_url)) as sock:
                sock.settimeout(10)
                sock.sendall(head)
                sock.recv(1024)
        except OSError:
            pass
        stop.wait(0.5)


def _abandoned_streams(base_url: str, stop: threading.Event) -> None:
    body = json.dumps({**_chat(max_tokens=64), "stream": True}).encode()
    request = (b"POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
               b"content-length: %d\r\n\r\n%s" % (len(body), body))
    while not stop.is_set():
        try:
            with socket.create_connection(_address(base_url)) as sock:
                sock.sendall(request)
                time.sleep(0.3)  # queued or just started; then the client leaves
        except OSError:
            pass
        stop.wait(0.5)


def _attack(base_url: str, stop: Any, answers: Any, only: tuple[str, ...] = (),
            paths: dict[str, str] | None = None, bodies_url: str | None = None, keep: tuple[str, ...] = ()) -> None:
    """``only``: run just the attacks whose names contain one of these words (all when empty). When the phase ends,
    how often each repeated attack got each answer goes into ``answers`` (a queue). ``bodies_url``: where the
    seven repeated bodies go (``--bodies-elsewhere``), except those whose names hold one of the words in ``keep``
    (``--keep-here``); the server under test by default."""
    def chosen(name: str) -> bool:
        return not only or any(word in name for word in only)

    payloads = {name: payload for name, payload in _payloads().items() if chosen(name)}
    halt = threading.Event()
    paths = paths or {}

    tally: dict[str, Counter[str]] = {name: Counter() for name in payloads}

    def looped(name: str, payload: bytes) -> Callable[[], None]:
        def run() -> None:
            while not halt.is_set():
                url = bodies_url if bodies_url and not any(word in name for word in keep) else base_url
                answer = _post(url, paths.get(name, "/v1/chat/completions"), payload)
                if not halt.is_set():  # an answer cut by the phase's end is not the server's
                    tally[name][answer] += 1
                halt.wait(PAUSE_S)
        return run

    threads = [threading.Thread(target=looped(name, payload), daemon=True) for name, payload in payloads.items()]
    threads += [threading.Thread(target=fn, args=(base_url, halt), daemon=True)
                for fn in (_idle_flood, _header_bomb, _abandoned_streams) if chosen(fn.__name__)]
    threads += [threading.Thread(target=_drip, args=(base_url, halt), daemon=True)
                for _ in range(20 if chosen("_drip") else 0)]
    threads += [threading.Thread(target=_stall, args=(base_url, halt), daemon=True)
                for _ in range(20 if chosen("_stall") else 0)]
    for thread in threads:
        thread.start()
    stop.wait()
    halt.set()  # the threads are daemons: whatever is still in flight ends with this process
    answers.put({name: dict(seen) for name, seen in tally.items()})


# ---- measuring --------------------------------------------------------------------------------------------------

def _cpu_s(pid: int) -> float:
    """CPU seconds of a process and its live descendants (the server's validation workers are its children)."""
    total, pending = 0.0, [pid]
    while pending:
        current = pending.pop()
        try:
            total += cpu_seconds(current)
            for task in Path(f"/proc/{current}/task").iterdir():
                pending += [int(child) for child in (task / "children").read_text().split()]
        except OSError:
            continue
    return total


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


class _Sampler(threading.Thread):
    """The server's RSS and a /health latency, twice a second."""

    def __init__(self, base_url: str, pid: int) -> None:
        super().__init__(daemon=True)
        self.base_url, self.pid = base_url, pid
        self.rss: list[float] = []
        self.health: list[float] = []
        self.halt = threading.Event()

    def run(self) -> None:
        while not self.halt.is_set():
            self.rss.append(_rss_mb(self.pid))
            started = time.perf_counter()
            try:
                httpx.get(self.base_url + "/health", timeout=60)
                self.health.append(time.perf_counter() - started)
            except httpx.HTTPError:
                self.health.append(float("inf"))
            self.halt.wait(0.5)


def _p(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


BOTH_TAKE = ("prompt", "messages", "tools", "anyOf", "nesting", "looping", "stop list", "_idle", "_drip", "_stall")
"""The attacks llama-server's routes take too (``--beside-llama-server``): every big and malformed body, idle,
slowloris and stalled connections; not the header bombs (its HTTP library refuses them before any route) and not
the abandoned streams, which measure superfluid's own queue."""


@dataclass
class _Target:
    """One server under test and what was measured on it."""
    name: str
    base_url: str
    pid: int
    sampler: _Sampler
    results: dict[str, dict[str, Any]] = field(default_factory=lambda: {
        kind: {"ttft": [], "failed": 0, "health": [], "server_cpu": 0.0, "attacker_cpu": 0.0, "seconds": 0.0}
        for kind in ("quiet", "attacked")})
    tally: dict[str, Counter[str]] = field(default_factory=lambda: {name: Counter() for name in _payloads()})
    start_mb: float = 0.0
    peak_mb: float = 0.0
    end_mb: float = 0.0


def _phases(target: _Target, seconds: float, clients: int, only: tuple[str, ...], paths: dict[str, str],
            bodies_url: str | None = None, keep: tuple[str, ...] = ()) -> None:
    """One quiet phase and one attacked phase of normal traffic on ``target``."""
    answers: Any = multiprocessing.Queue()
    for kind in ("quiet", "attacked"):
        stop = multiprocessing.Event()
        attacker = multiprocessing.Process(target=_attack,
                                           args=(target.base_url, stop, answers, only, paths, bodies_url, keep))
        if kind == "attacked":
            attacker.start()
            time.sleep(2)  # let the floods build
        mark = len(target.sampler.health)
        cpu_before, started = _cpu_s(target.pid), time.monotonic()
        ttfts, failed = asyncio.run(_normal(target.base_url, seconds, clients))
        result = target.results[kind]
        result["server_cpu"] += _cpu_s(target.pid) - cpu_before
        result["seconds"] += time.monotonic() - started
        result["ttft"] += ttfts
        result["failed"] += failed
        result["health"] += target.sampler.health[mark:]
        if kind == "attacked":
            result["attacker_cpu"] += _cpu_s(attacker.pid or 0)
            stop.set()
            with contextlib.suppress(queue.Empty):
                for name, seen in answers.get(timeout=10).items():
                    target.tally[name].update(seen)
            attacker.join(timeout=5)
            if attacker.is_alive():
                attacker.kill()


def _start(target: _Target, clients: int) -> None:
    asyncio.run(_normal(target.base_url, 5, clients))  # warm
    target.start_mb = _rss_mb(target.pid)
    target.sampler.start()


def _finish(target: _Target) -> None:
    target.end_mb = _rss_mb(target.pid)
    target.sampler.halt.set()
    target.sampler.join()
    target.peak_mb = max(target.sampler.rss)


def _report(target: _Target, expected: bool) -> list[str]:
    quiet, attacked = target.results["quiet"], target.results["attacked"]
    ratio = _p(attacked["ttft"], 0.95) / _p(quiet["ttft"], 0.95)
    lines = [f"{target.name}:",
             "phase      requests  failed  p50 TTFT ms  p95 TTFT ms  slowest /health ms  server cores  attacker cores"]
    for kind in ("quiet", "attacked"):
        r = target.results[kind]
        lines.append(f"{kind:<9} {len(r['ttft']):>9} {r['failed']:>7} {_p(r['ttft'], 0.5) * 1000:>12.0f} "
                     f"{_p(r['ttft'], 0.95) * 1000:>12.0f} {max(r['health'], default=float('nan')) * 1000:>19.0f} "
                     f"{r['server_cpu'] / r['seconds']:>13.2f} {r['attacker_cpu'] / r['seconds']:>15.2f}")
    lines.append(f"attacked / quiet p95 TTFT: {ratio:.2f}; normal requests completed attacked / "
                 f"quiet: {len(attacked['ttft']) / max(1, len(quiet['ttft'])):.2f}")
    lines.append(f"RSS MB: start {target.start_mb:.0f}, peak {target.peak_mb:.0f}, 10 s after the last attack "
                 f"{target.end_mb:.0f} (+{target.end_mb - target.start_mb:.0f})")
    answered = "; ".join(f"{name} " + ", ".join(f"{answer} x{count}" for answer, count in sorted(seen.items()))
                         for name, seen in target.tally.items() if seen)
    unexpected = sum(count for name, seen in target.tally.items() for answer, count in seen.items()
                     if answer != str(EXPECTED.get(name, 400)))
    lines.append(f"attack answers: {answered}" + (f"; not as expected: {unexpected}" if expected else ""))
    return lines


def _figures(target: _Target) -> tuple[float, float]:
    quiet, attacked = target.results["quiet"], target.results["attacked"]
    return (_p(attacked["ttft"], 0.95) / _p(quiet["ttft"], 0.95),
            len(attacked["ttft"]) / max(1, len(quiet["ttft"])))


def _costs(flags: str) -> str:
    """``--costs``: each big or malformed body alone, answer time and the server process's own CPU."""
    logs = Path(tempfile.mkdtemp(prefix="superfluid-hostile-costs-"))
    running = start_server([DEFAULT_MODEL, *flags.split()], logs / "serve.log")
    lines = [f"{machine_line()}; {os.cpu_count()} cores", f"model {DEFAULT_MODEL}; flags {flags or '(default)'}; "
             "each body 1 + 8 times in a row, alone; median answer time; CPU of the server process itself (its "
             "threads, not its worker processes) per request", f"{'body':<20} {'answer':>6} {'median ms':>10} "
             f"{'server-process CPU ms':>22}"]
    try:
        for name, payload in _payloads().items():
            path = "/api/chat" if name == "deep nesting" else "/v1/chat/completions"
            _post(running.base_url, path, payload)  # warm: worker processes, caches
            times, before = [], cpu_seconds(running.process.pid)
            for _ in range(8):
                started = time.perf_counter()
                answer = _post(running.base_url, path, payload)
                times.append(time.perf_counter() - started)
            spent = (cpu_seconds(running.process.pid) - before) / 8
            lines.append(f"{name:<20} {answer:>6} {_p(times, 0.5) * 1000:>10.0f} {spent * 1000:>22.0f}")
            print(lines[-1], flush=True)
    finally:
        stop_server(running)
    return "\n".join(lines)


def _renice(pid: int, niceness: int) -> None:
    """Every thread of a process (``setpriority`` on a pid sets one thread's), and what they start later."""
    for task in Path(f"/proc/{pid}/task").iterdir():
        os.setpriority(os.PRIO_PROCESS, int(task.name), niceness)


BURNERS = {"nothing": None, "a nice 19 burner": 19, "a nice 0 burner": 0}
"""``--floor``'s phases: normal traffic alone, and beside a process that keeps one core busy at each priority."""


def _burn() -> None:
    while True:
        pass


def _floor(flags: str, seconds: float, rounds: int, clients: int) -> str:
    """``--floor``: what any busy process on the machine costs normal traffic, with no attack at all. The
    phases take turns (nothing, then a burner of one core at nice 19, then at nice 0), ``rounds`` times; p95
    TTFT beside each burner over p95 alone is the floor the attacked/quiet ratio cannot go under while an
    attack keeps a core busy with work the server must do (parsing, validating, refusing)."""
    logs = Path(tempfile.mkdtemp(prefix="superfluid-hostile-floor-"))
    running = start_server([DEFAULT_MODEL, *flags.split()], logs / "serve.log")
    ttfts: dict[str, list[float]] = {name: [] for name in BURNERS}
    try:
        asyncio.run(_normal(running.base_url, 5, clients))  # warm
        for _ in range(rounds):
            for name, niceness in BURNERS.items():
                burner = None
                if niceness is not None:
                    burner = multiprocessing.Process(target=_burn, daemon=True)
                    burner.start()
                    _renice(burner.pid or 0, niceness)
                    time.sleep(0.5)
                try:
                    ttfts[name] += asyncio.run(_normal(running.base_url, seconds, clients))[0]
                finally:
                    if burner is not None:
                        burner.kill()
                        burner.join()
    finally:
        stop_server(running)
    alone = _p(ttfts["nothing"], 0.95)
    lines = [f"{machine_line()}; {os.cpu_count()} cores",
             f"model {DEFAULT_MODEL}; flags {flags or '(default)'}; {clients} normal streams x 24 tokens; no "
             f"attack; {rounds} x ({seconds:g} s each of: {', '.join(BURNERS)}), in turns",
             f"{'beside':<18} {'requests':>8} {'p50 TTFT ms':>12} {'p95 TTFT ms':>12} {'p95 / alone':>12}"]
    for name, seen in ttfts.items():
        lines.append(f"{name:<18} {len(seen):>8} {_p(seen, 0.5) * 1000:>12.0f} {_p(seen, 0.95) * 1000:>12.0f} "
                     f"{_p(seen, 0.95) / alone:>12.2f}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60, help="length of each phase")
    parser.add_argument("--rounds", type=int, default=2, help="quiet + attacked pairs")
    parser.add_argument("--clients", type=int, default=2, help="concurrent normal streams")
    parser.add_argument("--record", action="store_true")
    parser.add_argument("--only", nargs="*", default=[],
                        help="run only the attacks whose names hold one of these words (e.g. tools _drip)")
    parser.add_argument("--server-flags", default="", help="extra serve flags, e.g. '--threads 1'")
    parser.add_argument("--beside-llama-server", action="store_true",
                        help="superfluid and llama-server side by side (8 lanes x 4,096; superfluid's default "
                             "threads, llama-server on every core), in turns, under the attacks both take")
    parser.add_argument("--name", default="hostile", help="the record's name under benchmarks/results")
    parser.add_argument("--note", default="", help="a line for the record (e.g. what else ran on the machine)")
    parser.add_argument("--costs", action="store_true",
                        help="each big or malformed body alone: answer time and the server process's own CPU")
    parser.add_argument("--bodies-elsewhere", action="store_true",
                        help="send the seven repeated bodies to a second superfluid at nice 19 (same flags), the "
                             "rest of the attack to the server under test: what the bodies cost it without its "
                             "own process doing any of their work")
    parser.add_argument("--keep-here", nargs="*", default=[],
                        help="with --bodies-elsewhere: the bodies whose names hold one of these words stay on the "
                             "server under test (e.g. anyOf), to see what each costs it")
    parser.add_argument("--floor", action="store_true",
                        help="no attack: normal traffic alone and beside a one-core CPU burner (nice 19, nice 0)")
    args = parser.parse_args()
    if args.floor:
        report = _floor(args.server_flags, args.seconds, args.rounds, args.clients) + (
            f"\nnote: {args.note}" if args.note else "")
        print(report)
        if args.record:
            print("recorded in", record(args.name if args.name != "hostile" else "hostile-floor", report))
        return
    if args.costs:
        report = _costs(args.server_flags) + (f"\nnote: {args.note}" if args.note else "")
        print(report)
        if args.record:
            print("recorded in", record(args.name if args.name != "hostile" else "hostile-costs", report))
        return
    load_before = os.getloadavg()[0]
    logs = Path(tempfile.mkdtemp(prefix="superfluid-hostile-"))
    only = tuple(args.only) or (BOTH_TAKE if args.beside_llama_server else ())
    paths = {} if args.beside_llama_server else {"deep nesting": "/api/chat"}
    servers: list[tuple[str, Any]] = []
    elsewhere, bodies_url = None, None
    try:
        if args.beside_llama_server:
            from benchmarks.traffic import LANES, WINDOW, start_peer

            cores = len(os.sched_getaffinity(0))
            servers.append(("superfluid", start_peer("superfluid", 0, logs)))  # its default: every core, adapting
            servers.append(("llama-server", start_peer("llama-server", cores, logs, llama_server=LLAMA_SERVER)))
            setting = (f"superfluid (--threads 0, its default) beside llama-server (-t {cores}), {LANES} lanes x "
                       f"{WINDOW}, in turns (who goes first alternates by round)")
        else:
            running = start_server([DEFAULT_MODEL, *args.server_flags.split()], logs / "serve.log")
            servers = [("superfluid", running)]
            setting = f"flags {args.server_flags}" if args.server_flags else "default flags"
            if args.bodies_elsewhere:
                (logs / "elsewhere").mkdir()  # its own sessions directory beside its log
                elsewhere = start_server([DEFAULT_MODEL, *args.server_flags.split()], logs / "elsewhere" / "serve.log")
                _renice(elsewhere.process.pid, 19)
                bodies_url = elsewhere.base_url
                setting += "; the seven repeated bodies sent to a second superfluid at nice 19"
                if args.keep_here:
                    setting += f" except those named by {' '.join(args.keep_here)}"
        targets = [_Target(name, peer.base_url, peer.process.pid, _Sampler(peer.base_url, peer.process.pid))
                   for name, peer in servers]
        for target in targets:
            _start(target, args.clients)
        for round_ in range(args.rounds):
            for target in targets[::-1] if round_ % 2 else targets:
                _phases(target, args.seconds, args.clients, only, paths, bodies_url, tuple(args.keep_here))
        time.sleep(10)  # past the timeouts: what the attacks left behind is gone
        for target in targets:
            _finish(target)
    finally:
        for _, peer in servers:
            peer.stop() if hasattr(peer, "stop") else stop_server(peer)
        if elsewhere is not None:
            stop_server(elsewhere)
    if args.only:
        setting += f"; only the attacks {' '.join(args.only)}"
    lines = [f"{machine_line()}; {os.cpu_count()} cores, load average {load_before:.1f} before the run",
             f"model {DEFAULT_MODEL}; {setting}; {args.clients} normal streams x 24 tokens; "
             f"{args.rounds} x ({args.seconds:g} s quiet + {args.seconds:g} s attacked)",
             *([f"note: {args.note}"] if args.note else [])]
    for target in targets:
        lines += _report(target, expected=target.name == "superfluid")
    if args.beside_llama_server:
        (ours, our_share), (theirs, their_share) = (_figures(t) for t in targets)
        lines.append(f"target: superfluid's p95 ratio {ours:.2f} <= llama-server's {theirs:.2f} "
                     f"({'met' if ours <= theirs else 'missed'}); completed share {our_share:.2f} >= "
                     f"{their_share:.2f} ({'met' if our_share >= their_share else 'missed'})")
    else:
        ratio, _ = _figures(targets[0])
        lines.append(f"target: attacked / quiet p95 TTFT <= 1.20: {ratio:.2f} ({'met' if ratio <= 1.2 else 'missed'})")
    report = "\n".join(lines)
    print(report)
    if args.record:
        print("recorded in", record(args.name, report))


if __name__ == "__main__":
    main()
