"""kill -9 under mixed load (issue 34, the short version of benchmarks/soak.py --kills): eight clients send every
dialect's requests (stored responses continued turn after turn, uploads, a batch running, streams left midway)
to the real server; it is killed with SIGKILL in the middle of all that, twice, and restarted on the same sessions
directory each time. After each kill the SQLite file is whole before anyone opens it; at the end every response,
file and batch the server acknowledged is there and intact, every listed file reads back at its size, every batch
finishes with each line answered once, no request before a kill got an unexpected answer, and no lane is left busy.
"""

from __future__ import annotations

import asyncio
import signal
import sqlite3
import time
from pathlib import Path

import pytest

from conformance.mixed_load import Ledger, MixedLoad, lanes_in_use, load_then_kill, unexpected, verify
from conformance.server import DEFAULT_MODEL, RunningServer, start_server, stop_server

EMBED_MODEL = "all-minilm-l6-v2"
KILLS = 2
LOAD_S = 12.0


def _serve(base: Path, log_name: str) -> RunningServer:
    return start_server([DEFAULT_MODEL, EMBED_MODEL, "--parallel", "4", "--ctx-size", "4096", "--threads", "1",
                         "--sessions", str(base / "sessions")], base / log_name)


def test_kill_9_under_mixed_load_loses_nothing_acknowledged(tmp_path_factory: pytest.TempPathFactory) -> None:
    base = tmp_path_factory.mktemp("kill-under-load")
    ledger = Ledger()
    served: list[int] = []
    for kill in range(KILLS):
        server = _serve(base, f"run-{kill}.log")
        try:
            load = MixedLoad(server.base_url, model=DEFAULT_MODEL, embed_model=EMBED_MODEL, clients=8, seed=kill,
                             max_tokens=16)
            load.ledger = ledger  # what earlier runs acknowledged stays owed
            killed_at = asyncio.run(load_then_kill(load, server.process, LOAD_S))
        finally:
            if server.process.poll() is None:
                server.process.kill()
        assert server.process.returncode == -signal.SIGKILL
        assert not unexpected(load.outcomes, killed_at), unexpected(load.outcomes, killed_at)
        served.append(sum(1 for o in load.outcomes if o.status == "200"))
        with sqlite3.connect(base / "sessions" / "state.sqlite3") as db:  # whole before any restart repairs it
            assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"

    print(f"served {served}; acknowledged {len(ledger.responses)} responses, {len(ledger.files)} files, "
          f"{len(ledger.batches)} batches")
    assert all(count >= 10 for count in served), f"too little traffic before a kill: {served}"
    assert ledger.responses and ledger.files and ledger.batches, ledger
    restarted = _serve(base, "after.log")
    try:
        problems = verify(restarted.base_url, ledger, batch_timeout_s=240)
        assert not problems, problems
        deadline = time.monotonic() + 30
        while lanes_in_use(restarted.base_url) != (0, 0) and time.monotonic() < deadline:
            time.sleep(0.5)
        assert lanes_in_use(restarted.base_url) == (0, 0)
    finally:
        stop_server(restarted)
