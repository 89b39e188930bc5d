"""GIL hand-offs on the engine thread: how often it lets the GIL go per tick, and what that costs when another
Python thread is busy.

Every ctypes call into llama.cpp and every numpy operation on a whole logits row releases the GIL and takes it
back; a direct stream's socket write does too. Alone that is free. With another thread busy in Python (the
request-preparation worker validating a big body, or the event loop under traffic), each time the engine thread
wants the GIL back it waits until that thread lets go: up to the switch interval (5 ms by default), or the
whole of a C call that holds the GIL (``json.loads`` of a big body).

The engine runs in this process (the bundled model, 8 lanes, drafting on as served). A small shim preloaded
into the interpreter counts ``PyEval_SaveThread`` calls per thread (it is compiled with gcc on first use and the
script re-executes itself with ``LD_PRELOAD``); the engine thread's count is split by phase (batch filling, the
decode with the outbox flush before it, sampling and output after it). Each stream's TextDeltas go to a
``direct`` hook that renders a frame and writes it to /dev/null, as the server's direct streams write theirs
to the socket. For each configuration (streams, greedy or sampled, busy thread or not, switch interval) it reports
decode tok/s (all lanes), GIL releases per tick, the time the engine thread spent taking the GIL back per tick
(the shim times ``PyEval_RestoreThread`` too: the figure a loaded machine skews least), and its CPU per token.

The busy thread plays the preparation worker given a 20,000-message chat body (see Busy for its two kinds).

Run: ``python -m benchmarks.gil [--tokens 24] [--streams 1,8,16] [--intervals 5,0.5] [--busy off,py,json]
[--record NAME]``. Point
``PYTHONPATH`` at another checkout's ``src`` to measure that code (the A/B against main).
"""

from __future__ import annotations

import argparse
import asyncio
import ctypes
import json
import os
import platform
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.proc import cpu_seconds

SHIM = r"""
#define _GNU_SOURCE
#include <dlfcn.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <time.h>
typedef void *(*save_t)(void);
typedef void (*restore_t)(void *);
static save_t real_save;
static restore_t real_restore;
#define SLOTS 4096
static volatile long tids[SLOTS];
static volatile long counts[SLOTS];
static volatile long waits[SLOTS];
static __thread long my_slot = -1;
static long slot(void) {
    if (my_slot < 0) {
        long tid = syscall(SYS_gettid), i = tid % SLOTS;
        while (!__sync_bool_compare_and_swap(&tids[i], 0, tid)) { if (tids[i] == tid) break; i = (i + 1) % SLOTS; }
        my_slot = i;
    }
    return my_slot;
}
void *PyEval_SaveThread(void) {
    if (!real_save) real_save = (save_t)dlsym(RTLD_NEXT, "PyEval_SaveThread");
    __sync_fetch_and_add(&counts[slot()], 1);
    return real_save();
}
void PyEval_RestoreThread(void *state) {
    struct timespec a, b;
    if (!real_restore) real_restore = (restore_t)dlsym(RTLD_NEXT, "PyEval_RestoreThread");
    clock_gettime(CLOCK_MONOTONIC, &a);
    real_restore(state);
    clock_gettime(CLOCK_MONOTONIC, &b);
    __sync_fetch_and_add(&waits[slot()], (b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec));
}
static long find(long tid) {
    for (long i = tid % SLOTS, n = 0; n < SLOTS; i = (i + 1) % SLOTS, n++) {
        if (tids[i] == tid) return i;
        if (tids[i] == 0) return -1;
    }
    return -1;
}
long gil_releases(long tid) { long i = find(tid); return i < 0 ? 0 : counts[i]; }
long gil_wait_ns(long tid) { long i = find(tid); return i < 0 ? 0 : waits[i]; }
"""


def _ensure_shim() -> tuple[Callable[[int], int], Callable[[int], int]]:
    """The per-thread release counter and GIL wait clock; re-executes this script under LD_PRELOAD the first
    time."""
    try:
        lib = ctypes.CDLL(None)
        entry = ctypes.cast(lib.gil_releases, ctypes.c_void_p).value
        waited = ctypes.cast(lib.gil_wait_ns, ctypes.c_void_p).value
    except AttributeError:
        build = Path(tempfile.gettempdir()) / "superfluid-gil-shim"
        build.mkdir(exist_ok=True)
        (build / "gilcount.c").write_text(SHIM)  # a new file each run: an old shim may lack the wait clock
        subprocess.run(["gcc", "-O2", "-shared", "-fPIC", "-o", str(build / "gilcount.so"),
                        str(build / "gilcount.c"), "-ldl"], check=True)
        env = {**os.environ, "LD_PRELOAD": str(build / "gilcount.so")}
        os.execve(sys.executable, [sys.executable, "-m", "benchmarks.gil", *sys.argv[1:]], env)
    assert entry is not None and waited is not None
    # Called with the GIL held (PYFUNCTYPE), so that reading the counter is not itself a release.
    proto = ctypes.PYFUNCTYPE(ctypes.c_long, ctypes.c_long)
    return proto(entry), proto(waited)


class Phases:
    """Wraps scheduler methods so that the engine thread's releases are counted by phase (exclusive)."""

    def __init__(self, counter: Callable[[int], int]) -> None:
        self.counter = counter
        self.tid = 0
        self.totals: dict[str, int] = {}
        self.calls: dict[str, int] = {}
        self._stack: list[list[int]] = []

    def wrap(self, owner: Any, attribute: str, phase: str) -> None:
        inner = getattr(owner, attribute)

        def counted(*args: Any, **kwargs: Any) -> Any:
            self.calls[phase] = self.calls.get(phase, 0) + 1
            frame = [self.counter(self.tid), 0]
            self._stack.append(frame)
            try:
                return inner(*args, **kwargs)
            finally:
                self._stack.pop()
                spent = self.counter(self.tid) - frame[0]
                self.totals[phase] = self.totals.get(phase, 0) + spent - frame[1]
                if self._stack:
                    self._stack[-1][1] += spent

        setattr(owner, attribute, counted)


class Busy:
    """A thread playing the preparation worker on a 20,000-message chat body, over and over.

    ``json``: ``json.loads`` of the body (one C call holding the GIL for tens of milliseconds), then a walk over
    its messages in Python. ``py``: the walk alone, on the parsed body (Python bytecode only, which lets the GIL
    go at every switch interval: what the event loop rendering many streams looks like to the engine).
    """

    def __init__(self, kind: str, messages: int = 20_000) -> None:
        self.kind = kind
        self.body = json.dumps({"model": "m", "messages": [
            {"role": "user" if i % 2 else "assistant", "content": f"message {i} " * 4} for i in range(messages)]})
        self.parsed = json.loads(self.body)
        self.rounds = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="busy", daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            parsed = json.loads(self.body) if self.kind == "json" else self.parsed
            for message in parsed["messages"]:
                if not isinstance(message, dict) or message.get("role") not in ("user", "assistant", "system"):
                    raise ValueError("bad message")
                if not isinstance(message.get("content"), str) or len(message) > 8:
                    raise ValueError("bad content")
            self.rounds += 1

    def __enter__(self) -> Busy:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def _frame(delta: Any) -> bytes:
    return b"data: " + json.dumps({"choices": [{"delta": {"content": delta.content}}]}).encode() + b"\n\n"


async def streams(served: Any, count: int, mode: str, tokens: int) -> int:
    from superfluid.engine.types import ChatMessage, ChatPrompt, Finished, GenerationRequest, SamplingParams
    from superfluid.http import direct as served_streams
    write = getattr(served_streams, "write_holding_gil", os.write)  # the server's own write, in either version
    sink = os.open(os.devnull, os.O_WRONLY)

    def direct(delta: Any) -> None:
        write(sink, _frame(delta))

    async def one(i: int) -> int:
        sampling = (SamplingParams(temperature=0.0, ignore_eos=True) if mode == "greedy" else
                    SamplingParams(temperature=0.7, top_p=0.95, seed=1000 + i, ignore_eos=True))
        request = GenerationRequest(model=served.id, sampling=sampling, max_tokens=tokens, prompt=ChatPrompt(
            messages=(ChatMessage(role="user", content=f"[{i}] Write a long story about a lighthouse."),)))
        done = 0
        async for event in served.generate(request, direct=direct).events():
            if isinstance(event, Finished):
                done = event.usage.completion_tokens
        return done

    try:
        return sum(await asyncio.gather(*(one(i) for i in range(count))))
    finally:
        os.close(sink)


def measure(served: Any, phases: Phases, waited: Callable[[int], int], engine_tid: int, count: int, mode: str,
            tokens: int) -> dict[str, float]:
    phases.totals.clear()
    before = (phases.counter(engine_tid), phases.calls.get("decode+flush", 0), cpu_seconds(os.getpid(), engine_tid),
              waited(engine_tid))
    start = time.perf_counter()
    made = asyncio.run(streams(served, count, mode, tokens))
    wall = time.perf_counter() - start
    releases = phases.counter(engine_tid) - before[0]
    ticks = max(phases.calls.get("decode+flush", 0) - before[1], 1)
    cpu = cpu_seconds(os.getpid(), engine_tid) - before[2]
    wait_ms = (waited(engine_tid) - before[3]) / 1e6
    out = {"tok_s": made / wall, "ticks": ticks, "releases_per_tick": releases / ticks,
           "gil_wait_ms_per_tick": wait_ms / ticks,
           "engine_cpu_ms_per_token": cpu / max(made, 1) * 1000}
    out.update({f"{k}/tick": v / ticks for k, v in sorted(phases.totals.items())})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=48)
    parser.add_argument("--streams", default="1,8")
    parser.add_argument("--intervals", default="5", help="switch intervals in ms to try (sys.setswitchinterval)")
    parser.add_argument("--busy", default="off,py,json", help="busy thread kinds: off, py, json (see Busy)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--label", default="")
    parser.add_argument("--record", default="", help="a name under benchmarks/results/ to record the output in")
    args = parser.parse_args()
    counter, waited = _ensure_shim()
    from benchmarks.recording import record
    from superfluid.engine.models.model_sources import DEFAULT_MODEL, resolve
    from superfluid.engine.models.served_model import ServedModel
    from superfluid.settings import Settings
    settings = Settings(models=(DEFAULT_MODEL,), threads=args.threads, parallel=8, ctx_size=4096, kv_size=32768)
    served = ServedModel.load(DEFAULT_MODEL, resolve(DEFAULT_MODEL), settings)
    scheduler = served._scheduler
    engine_tid = scheduler._thread.native_id
    assert engine_tid is not None
    phases = Phases(counter)
    phases.tid = engine_tid
    phases.wrap(scheduler, "_decode", "decode+flush")
    phases.wrap(scheduler, "_fill_batch", "fill")
    phases.wrap(scheduler, "_after_decode", "sample+emit")
    phases.wrap(scheduler, "_admit", "admit")
    lines = [f"machine: {platform.machine()}, {len(os.sched_getaffinity(0))} cores; threads={args.threads}; "
             f"python {platform.python_version()}; code: {Path(sys.modules['superfluid'].__file__ or '').parent}"
             f"{'; ' + args.label if args.label else ''}; {args.tokens} tokens/stream; load average "
             f"{os.getloadavg()[0]:.1f} at start"]
    try:
        asyncio.run(streams(served, 2, "greedy", 8))  # warm up
        for interval in [float(x) for x in args.intervals.split(",")]:
            sys.setswitchinterval(interval / 1000)
            for mode in ("greedy", "sampled"):
                for count in [int(x) for x in args.streams.split(",")]:
                    for busy in args.busy.split(","):
                        if busy != "off":
                            with Busy(busy):
                                got = measure(served, phases, waited, engine_tid, count, mode, args.tokens)
                        else:
                            got = measure(served, phases, waited, engine_tid, count, mode, args.tokens)
                        line = (f"interval {interval:>4} ms  {mode:<8} {count:>2} streams  busy {busy:<3}  "
                                + "  ".join(f"{k} {v:.1f}" if k not in ("ticks",) else f"{k} {int(v)}"
                                            for k, v in got.items()))
                        print(line, flush=True)
                        lines.append(line)
    finally:
        served.close()
    lines.append(f"load average {os.getloadavg()[0]:.1f} at the end")
    if args.record:
        print(record(args.record, "\n".join(lines)))


if __name__ == "__main__":
    main()
