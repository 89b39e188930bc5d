"""Start `superfluid fleet` (a local Ray instance, its Serve proxy and the replicas) and find a replica's process."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from conformance.server import RunningServer, free_port

READY_LINE = "is ready at"


def start_fleet(args: list[str], log_path: Path, timeout_s: float = 300) -> RunningServer:
    """`superfluid fleet ARGS` on a free port; returns once Ray Serve reports every replica ready."""
    port = free_port()
    if "--sessions" not in args:
        args = [*args, "--sessions", str(log_path.parent / "sessions")]
    cmd = [sys.executable, "-m", "superfluid.cli", "fleet", *args, "--port", str(port)]
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "RAY_USAGE_STATS_ENABLED": "0"}
    with log_path.open("wb") as log:
        process = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    server = RunningServer(f"http://127.0.0.1:{port}", process, log_path)
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"superfluid fleet exited with {process.returncode}:\n{server.log_tail()}")
        if READY_LINE in log_path.read_text(errors="replace"):
            return server
        time.sleep(0.5)
    stop_fleet(server)
    raise RuntimeError(f"superfluid fleet was not ready in {timeout_s}s:\n{server.log_tail()}")


def stop_fleet(server: RunningServer) -> None:
    """SIGINT as Ctrl-C would (Serve and the local Ray instance shut down), then whatever is left of the group."""
    server.process.send_signal(signal.SIGINT)
    try:
        server.process.wait(timeout=60)
    except subprocess.TimeoutExpired:
        server.process.kill()
    with contextlib.suppress(ProcessLookupError):
        os.killpg(server.process.pid, signal.SIGKILL)


def replica_pid(replica_id: str) -> int:
    """The process of the engine replica Ray Serve calls ``replica_id`` (it holds that replica's log open)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if b"ServeReplica:superfluid:engine" not in (entry / "cmdline").read_bytes():
                continue
            if any(f"engine_{replica_id}.log" in os.readlink(fd) for fd in (entry / "fd").iterdir()):
                return int(entry.name)
        except OSError:
            continue
    raise LookupError(f"no process serves replica {replica_id}")
