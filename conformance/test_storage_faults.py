"""Faults of the storage under the sessions directory, on the real server (issue 34, docs/limits.md "Storage
faults"): each is a clean error in the dialect of the route with its documented code, generation without storage
keeps working, nothing stored before is lost (unless the fault removed it), and storing works again by itself
once the fault clears. How each fault is told is in tests/state/test_storage_errors.py.

- A full file system: 507 storage_full; storing again once space is freed.
- The sessions directory made read-only while serving: 503 storage_unavailable; storing again once it is
  writable. A file system cannot be remounted read-only while the server holds files on it open for writing
  (the kernel refuses: EBUSY), so the test does what a container runtime does for a read-only volume: a
  read-only bind mount of the directory over itself. The server's open descriptors still reach the writable
  mount beneath; the store checks the path before each write, so it refuses all the same.
- The sessions directory removed while serving: what was in it is gone (the operator removed it), and the next
  request that stores makes a new directory and database and stores there, on disk at the path (never into the
  removed file). While the directory cannot be made again (here its parent is read-only), storing is 503.

The sessions directory sits on a small tmpfs the test mounts (root, as CI runs; elsewhere the module is skipped
unless CI is set)."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sqlite3
import subprocess
import time
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


@contextlib.contextmanager
def _read_only(directory: Path) -> Iterator[None]:
    """``directory`` read-only (a read-only bind mount over itself) for as long as the block runs."""
    bound = subprocess.run(["mount", "--bind", directory, directory], capture_output=True, check=False)
    assert bound.returncode == 0, bound.stderr.decode()
    try:
        read_only = subprocess.run(["mount", "-o", "remount,bind,ro", directory], capture_output=True, check=False)
        assert read_only.returncode == 0, read_only.stderr.decode()
        yield
    finally:
        for _ in range(50):  # a download's file may close a moment after its reply was read
            if subprocess.run(["umount", str(directory)], capture_output=True, check=False).returncode == 0:
                break
            time.sleep(0.1)
        else:
            subprocess.run(["umount", "-l", str(directory)], check=True)


def _upload(http: httpx.Client, data: bytes) -> httpx.Response:
    return http.post("/v1/files", data={"purpose": "user_data"}, files={"file": ("kept.txt", data)})


def test_a_read_only_sessions_directory_is_503_and_storing_comes_back(http: httpx.Client, volume: Path) -> None:
    sessions = volume / "sessions"
    before, kept = _respond(http), _upload(http, b"stored before\n" * 100)
    assert before.status_code == kept.status_code == 200, (before.text, kept.text)
    with _read_only(sessions):
        _refused(_respond(http), 503, "storage_unavailable")
        _refused(_upload(http, b"refused\n"), 503, "storage_unavailable")
        _refused(http.delete(f"/v1/files/{kept.json()['id']}"), 503, "storage_unavailable")
        _generation_still_works(http)
        assert http.get(f"/v1/responses/{before.json()['id']}").json()["output"] == before.json()["output"]
        assert http.get(f"/v1/files/{kept.json()['id']}/content").content == b"stored before\n" * 100
    after = _respond(http)
    assert after.status_code == 200, after.text
    assert http.get(f"/v1/responses/{after.json()['id']}").status_code == 200
    assert _upload(http, b"stored after\n").status_code == 200


def _on_disk(sessions: Path, response_id: str) -> bool:
    """Whether the database file at the path (not one the server holds open) has the response."""
    with contextlib.closing(sqlite3.connect(f"file:{sessions / 'state.sqlite3'}?mode=ro", uri=True)) as db:
        return db.execute("SELECT 1 FROM responses WHERE id = ?", (response_id,)).fetchone() is not None


def test_a_removed_sessions_directory_is_made_again(http: httpx.Client, volume: Path) -> None:
    sessions = volume / "sessions"
    before = _respond(http)
    assert before.status_code == 200, before.text
    shutil.rmtree(sessions)
    with _read_only(volume):  # the directory cannot be made again: storing is refused, generation goes on
        _refused(_respond(http), 503, "storage_unavailable")
        _refused(_upload(http, b"refused\n"), 503, "storage_unavailable")
        _generation_still_works(http)
    after = _respond(http)
    assert after.status_code == 200, after.text
    assert _on_disk(sessions, after.json()["id"]), "acknowledged, but not in the database at the path"
    assert http.get(f"/v1/responses/{after.json()['id']}").json()["output"] == after.json()["output"]
    assert http.get(f"/v1/responses/{before.json()['id']}").status_code == 404  # it went with the directory
    uploaded = _upload(http, b"stored after\n")
    assert uploaded.status_code == 200, uploaded.text
    assert (sessions / "files" / uploaded.json()["id"]).read_bytes() == b"stored after\n"
    assert http.get(f"/v1/files/{uploaded.json()['id']}/content").content == b"stored after\n"
