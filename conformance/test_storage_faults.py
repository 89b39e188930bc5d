"""Faults of the storage under the sessions directory, on the real server (issue 34): a full file system is a
clean error in the dialect of the route with its documented code (507 storage_full), generation without storage
keeps working, nothing stored before is lost, and storing works again by itself once space is freed
(docs/limits.md, "Storage faults"). How the other faults are told (503 storage_unavailable) is in
tests/state/test_storage_errors.py.

The sessions directory sits on a small tmpfs the test mounts (root, as CI runs; elsewhere the module is skipped
unless CI is set)."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from conformance.server import DEFAULT_MODEL, RunningServer, start_server, stop_server

SIZE = "16m"


@pytest.fixture(scope="module")
def volume(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    point = tmp_path_factory.mktemp("volume")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={SIZE}", "tmpfs", point], capture_output=True,
                          check=False)
    if done.returncode != 0:
        why = f"cannot mount a tmpfs for the storage faults ({done.stderr.decode().strip()})"
        if os.environ.get("CI") == "true":
            pytest.fail(why)
        pytest.skip(why)
    yield point
    subprocess.run(["umount", "-l", point], check=False)


@pytest.fixture(scope="module")
def server(volume: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    log = tmp_path_factory.mktemp("faults") / "serve.log"
    running = start_server([DEFAULT_MODEL, "--parallel", "1", "--ctx-size", "2048",
                            "--sessions", str(volume / "sessions")], log)
    yield running
    stop_server(running)


@pytest.fixture
def http(server: RunningServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.base_url, timeout=120) as client:
        yield client


@contextlib.contextmanager
def _full(volume: Path) -> Iterator[None]:
    """The volume filled to the last byte, for as long as the block runs."""
    filler = volume / "filler"
    with filler.open("wb") as out:
        chunk = b"\0" * (1 << 16)
        with contextlib.suppress(OSError):
            while True:
                out.write(chunk)
                out.flush()
    try:
        yield
    finally:
        filler.unlink()


def _respond(http: httpx.Client, **fields: Any) -> httpx.Response:
    return http.post("/v1/responses", json={"model": DEFAULT_MODEL, "input": "Say hi.", "max_output_tokens": 4,
                                            "temperature": 0, **fields})


def _generation_still_works(http: httpx.Client) -> None:
    assert _respond(http, store=False).status_code == 200
    chat = http.post("/v1/chat/completions", json={"model": DEFAULT_MODEL, "max_tokens": 4,
                                                   "messages": [{"role": "user", "content": "Hi."}]})
    assert chat.status_code == 200, chat.text
    ollama = http.post("/api/chat", json={"model": DEFAULT_MODEL, "stream": False, "options": {"num_predict": 4},
                                          "messages": [{"role": "user", "content": "Hi."}]})
    assert ollama.status_code == 200, ollama.text


def _refused(reply: httpx.Response, status: int, code: str) -> None:
    assert reply.status_code == status, reply.text
    error = reply.json()["error"]
    assert (error["type"], error["code"]) == ("server_error", code), error
    assert "nothing was stored" in error["message"]


def test_a_full_file_system_is_507_and_storing_comes_back(http: httpx.Client, volume: Path) -> None:
    before = _respond(http)
    assert before.status_code == 200, before.text
    with _full(volume):
        _refused(_respond(http), 507, "storage_full")
        upload = http.post("/v1/files", data={"purpose": "batch"}, files={"file": ("a.jsonl", b"{}\n" * 4096)})
        _refused(upload, 507, "storage_full")
        _generation_still_works(http)
        # Streamed, the reply goes out and its end is the same error, as an error event.
        body = {"model": DEFAULT_MODEL, "input": "Say hi.", "max_output_tokens": 4, "stream": True}
        with http.stream("POST", "/v1/responses", json=body) as streamed:
            assert streamed.status_code == 200
            events = [json.loads(line[6:]) for line in streamed.iter_lines() if line.startswith("data: ")]
        errors = [e for e in events if e["type"] == "error"]
        assert errors and errors[0]["code"] == "storage_full", events[-3:]
        # What was stored before is still there.
        assert http.get(f"/v1/responses/{before.json()['id']}").status_code == 200
    after = _respond(http)
    assert after.status_code == 200, after.text
    assert http.get(f"/v1/responses/{after.json()['id']}").status_code == 200
