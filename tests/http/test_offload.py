"""The preparation pool: worker processes for validating big bodies, and what happens when one dies."""

from __future__ import annotations

import asyncio
import os

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
