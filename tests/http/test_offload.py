"""The preparation pool: worker processes for validating big bodies, and what happens when one dies."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

from superfluid.http.offload import Offload


def _die_unless_in(pid: int) -> str:
    """Kills a worker process; in the server's own process (the thread fallback) it just answers."""
    if os.getpid() != pid:
        os._exit(1)
    return "thread"


def test_run_apart_runs_in_another_process_and_run_on_a_thread_here() -> None:
    offload = Offload(1)
    try:
        assert asyncio.run(offload.run_apart(os.getpid)) != os.getpid()
        assert asyncio.run(offload.run(os.getpid)) == os.getpid()
    finally:
        offload.close()


def test_a_dead_worker_process_falls_back_to_a_thread_and_is_replaced() -> None:
    offload = Offload(1)
    try:
        assert asyncio.run(offload.run_apart(_die_unless_in, os.getpid())) == "thread"
        assert asyncio.run(offload.run_apart(os.getpid)) != os.getpid()
    finally:
        offload.close()


def test_without_processes_everything_runs_here() -> None:
    offload = Offload(1, processes=False)
    try:
        assert asyncio.run(offload.run_apart(os.getpid)) == os.getpid()
    finally:
        offload.close()


def test_worker_processes_run_at_the_lowest_priority_and_threads_do_not() -> None:
    # A validating process yields the CPU to decoding; the preparation threads share the server's GIL, so they
    # keep its priority (a descheduled thread holding the GIL would stall the engine thread).
    offload = Offload(1)
    here = os.nice(0)
    try:
        assert asyncio.run(offload.run_apart(os.nice, 0)) == min(19, here + 19)
        assert asyncio.run(offload.run(os.nice, 0)) == here
    finally:
        offload.close()


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def test_a_big_body_sent_to_a_worker_process_is_not_kept_after_the_call() -> None:
    """multiprocessing keeps the last message it sent until the next one; a 99 MB body checked apart stayed in
    the server's memory that way. The call is followed by an empty one, so the copy goes."""
    offload = Offload(1)
    try:
        assert asyncio.run(offload.run_apart(len, b"warm")) == 4
        before = _rss_mb()
        body = bytes(200 << 20)
        assert asyncio.run(offload.run_apart(len, body)) == 200 << 20
        del body
        deadline = time.monotonic() + 10
        while _rss_mb() - before > 50 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _rss_mb() - before < 50
    finally:
        offload.close()
