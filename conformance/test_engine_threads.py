"""An idle model holds no engine thread on the real server (src/superfluid/engine/worker.py).

llama.cpp's OpenMP runtime keeps a pool of worker threads for every thread that ran a parallel region, while that
thread lives. With a long-lived engine thread per model, a second model's first request left two pools on the
machine, and with more OpenMP threads than cores libgomp spins only briefly before sleeping: on 2 cores the first
model's stream fell from ~165 to ~28 tok/s and stayed there. Now an engine thread ends when its model has nothing
to do, taking its pool with it. Watched here as the server process's OS threads: more while a stream decodes,
back to the idle count once the engine thread has lingered ``LINGER_S`` for more work.
"""

from __future__ import annotations

import os
import time

import httpx

from conformance.server import DEFAULT_MODEL, SECOND_MODEL, RunningServer
from superfluid.engine.worker import LINGER_S


def _threads(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/task"))


def _settled(pid: int, *, at_most: int | None = None, timeout: float = 15.0) -> int:
    """The thread count once it has held still for longer than an idle engine thread lingers (or has fallen to
    ``at_most``)."""
    deadline = time.monotonic() + timeout
    last, since = _threads(pid), time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(0.05)
        now = _threads(pid)
        if at_most is not None and now <= at_most:
            return now
        if now != last:
            last, since = now, time.monotonic()
        elif time.monotonic() - since >= 3 * LINGER_S and at_most is None:
            return now
    return last


def _ask(http: httpx.Client, model: str) -> None:
    reply = http.post("/v1/chat/completions", json={"model": model, "max_tokens": 4,
                                                     "messages": [{"role": "user", "content": "Hello"}]})
    assert reply.status_code == 200, reply.text


def test_a_model_holds_engine_threads_only_while_it_has_work(server: RunningServer, http: httpx.Client) -> None:
    pid = server.process.pid
    for model in (DEFAULT_MODEL, SECOND_MODEL, DEFAULT_MODEL):  # both models have decoded: lazy threads exist
        _ask(http, model)
    idle = _settled(pid)
    body = {"model": DEFAULT_MODEL, "stream": True, "max_tokens": 200, "ignore_eos": True,
            "messages": [{"role": "user", "content": "Write a long story about a lighthouse."}]}
    during = None
    with http.stream("POST", "/v1/chat/completions", json=body) as response:
        assert response.status_code == 200
        for line in response.iter_lines():
            if during is None and '"content"' in line:
                during = _threads(pid)  # mid-stream: the engine thread and llama.cpp's workers run
    assert during is not None
    after = _settled(pid, at_most=idle)
    assert during >= idle + 1, (idle, during)
    assert after <= idle, (idle, during, after)
