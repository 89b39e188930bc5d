"""PostgreSQL restarted under load (issue 34, docs/limits.md "Storage faults"): two `superfluid serve` on one
--state postgresql://..., as a fleet's replicas share it, while threads store in a loop on both (Responses with
``store``, file uploads) and the PostgreSQL server is shut down (fast: every session is cut) and started again.

Every answer is 200, or 503 storage_unavailable / 507 storage_full in the OpenAI dialect: never a 500, never a
cut connection. While the database is down, storing and reading stored things are 503 and generation that
stores nothing answers 200. Once it is back, both servers store again within seconds without a restart (their
connections are opened again), and everything acknowledged before, during and after is read back, intact, from
both servers. The PostgreSQL server is the state tests' one (tests/state/postgres_server.py: Debian's package).
"""

from __future__ import annotations

import functools
import itertools
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from conformance.server import DEFAULT_MODEL, RunningServer, free_port, start_server, stop_server

REFUSED = {503: "storage_unavailable", 507: "storage_full"}
BACK_WITHIN_S = 10


@dataclass
class Fleet:
    server_dir: Path
    port: int
    a: RunningServer
    b: RunningServer


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fleet]:
    pytest.importorskip("psycopg", reason="the PostgreSQL backend needs psycopg (the test extra)")
    from tests.state.postgres_server import fresh_database, running

    base = tmp_path_factory.mktemp("postgres-restart")
    server_dir = Path(tempfile.mkdtemp(prefix="superfluid-postgres-"))  # the postgres user must reach it
    port = free_port()
    try:
        with running(server_dir, port) as server_url:
            url = fresh_database(server_url)
            started: list[RunningServer] = []
            try:
                for name in ("a", "b"):
                    started.append(start_server(
                        [DEFAULT_MODEL, "--parallel", "2", "--ctx-size", "2048", "--threads", "1", "--state", url,
                         "--sessions", str(base / name / "sessions")], base / f"{name}.log"))
                yield Fleet(server_dir, port, *started)
            finally:
                for server in started:
                    stop_server(server)
    finally:
        shutil.rmtree(server_dir, ignore_errors=True)


def _respond(http: httpx.Client, **fields: Any) -> httpx.Response:
    return http.post("/v1/responses", json={"model": DEFAULT_MODEL, "input": "Say hi.", "max_output_tokens": 4,
                                            "temperature": 0, **fields})


def _upload(http: httpx.Client, data: bytes) -> httpx.Response:
    return http.post("/v1/files", data={"purpose": "user_data"}, files={"file": ("load.txt", data)})


def _refusal(reply: httpx.Response) -> str | None:
    """Why ``reply`` is not a clean refusal of storing (None when it is one)."""
    if reply.status_code not in REFUSED:
        return f"{reply.request.url.path}: {reply.status_code} {reply.text[:300]}"
    error = reply.json().get("error") or {}
    if (error.get("type"), error.get("code")) != ("server_error", REFUSED[reply.status_code]):
        return f"{reply.request.url.path}: {reply.status_code} with {error}"
    return None


@dataclass
class Load:
    """Threads that store in a loop on every server and note each answer."""

    servers: tuple[RunningServer, ...]
    responses: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    """Acknowledged responses: id -> output as answered."""
    files: dict[str, bytes] = field(default_factory=dict)
    """Acknowledged uploads: id -> bytes sent."""
    refused: int = 0
    wrong: list[str] = field(default_factory=list)
    """Every answer that was neither a 200 nor a clean refusal."""
    _stop: threading.Event = field(default_factory=threading.Event)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _threads: list[threading.Thread] = field(default_factory=list)

    def __enter__(self) -> Load:
        for server in self.servers:
            for loop in (self._store_responses, self._upload_files):
                thread = threading.Thread(target=self._run, args=(server, loop), daemon=True)
                thread.start()
                self._threads.append(thread)
        return self

    def __exit__(self, *_exc: object) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=120)

    def acknowledged(self) -> tuple[int, int]:
        """How many responses and how many uploads have been acknowledged so far."""
        with self._lock:
            return len(self.responses), len(self.files)

    def stored_each(self, at_least: int, beyond: tuple[int, int] = (0, 0)) -> bool:
        """Whether ``at_least`` more responses and ``at_least`` more uploads than ``beyond`` were acknowledged.

        The kinds are counted apart: an upload takes milliseconds and a response a generation, so on a slow or
        cold machine the uploads alone can pass any total before the first response is stored."""
        return all(now >= then + at_least for now, then in zip(self.acknowledged(), beyond, strict=True))

    def a_stored_response(self) -> str:
        """The id of an acknowledged response (read under the lock: the load threads are adding to them)."""
        with self._lock:
            return next(iter(self.responses))

    def _run(self, server: RunningServer, loop: Callable[[httpx.Client, int], None]) -> None:
        with httpx.Client(base_url=server.base_url, timeout=60) as http:
            for turn in itertools.count():
                if self._stop.is_set():
                    return
                try:
                    loop(http, turn)
                except httpx.TransportError as exc:  # a cut connection or a timeout: never expected
                    with self._lock:
                        self.wrong.append(f"{server.base_url}: {exc!r}")
                time.sleep(0.02)

    def _note(self, reply: httpx.Response, record: Callable[[dict[str, Any]], None]) -> None:
        with self._lock:
            if reply.status_code == 200:
                record(reply.json())
            elif (why := _refusal(reply)) is None:
                self.refused += 1
            else:
                self.wrong.append(why)

    def _store_responses(self, http: httpx.Client, turn: int) -> None:
        self._note(_respond(http, store=True),
                   lambda body: self.responses.__setitem__(body["id"], body["output"]))

    def _upload_files(self, http: httpx.Client, turn: int) -> None:
        data = f"{http.base_url} upload {turn} at {time.time_ns()}\n".encode() * 200
        self._note(_upload(http, data), lambda body: self.files.__setitem__(body["id"], data))


def _until(condition: Callable[[], bool], within_s: float, what: str) -> None:
    deadline = time.monotonic() + within_s
    while not condition():
        assert time.monotonic() < deadline, f"{what} within {within_s}s"
        time.sleep(0.1)


def _down(server: RunningServer, stored_id: str) -> None:
    """What one server answers while the database is down."""
    with httpx.Client(base_url=server.base_url, timeout=60) as http:
        for reply in (_respond(http, store=True), _upload(http, b"while down\n"),
                      http.get(f"/v1/responses/{stored_id}")):
            assert reply.status_code == 503 and _refusal(reply) is None, reply.text
            assert "nothing was stored" in reply.json()["error"]["message"]
        assert _respond(http, store=False).status_code == 200
        chat = http.post("/v1/chat/completions", json={"model": DEFAULT_MODEL, "max_tokens": 4,
                                                       "messages": [{"role": "user", "content": "Hi."}]})
        assert chat.status_code == 200, chat.text


def _stores_again(server: RunningServer) -> bool:
    with httpx.Client(base_url=server.base_url, timeout=60) as http:
        return _respond(http, store=True).status_code == 200


def test_storing_survives_a_postgres_restart_under_load(fleet: Fleet) -> None:
    from tests.state.postgres_server import stopped

    with Load((fleet.a, fleet.b)) as load:
        _until(lambda: load.stored_each(4), 120, "the load stores responses and uploads")
        with stopped(fleet.server_dir, fleet.port):
            stored_id = load.a_stored_response()
            for server in (fleet.a, fleet.b):
                _down(server, stored_id)
            refused = load.refused
            _until(lambda: load.refused >= refused + 4, 30, "the load meets the outage")
        back = load.acknowledged()
        for server in (fleet.a, fleet.b):  # no restart of serve: the next transaction connects again
            _until(functools.partial(_stores_again, server), BACK_WITHIN_S, f"{server.base_url} stores again")
        _until(lambda: load.stored_each(4, beyond=back), 60, "the load stores responses and uploads again")
    assert not load.wrong, load.wrong[:5]
    assert load.refused >= 4
    for server in (fleet.a, fleet.b):
        with httpx.Client(base_url=server.base_url, timeout=60) as http:
            for response_id, output in load.responses.items():
                got = http.get(f"/v1/responses/{response_id}")
                assert got.status_code == 200 and got.json()["output"] == output, (server.base_url, got.text)
            for file_id, data in load.files.items():
                got = http.get(f"/v1/files/{file_id}/content")
                assert got.status_code == 200 and got.content == data, (server.base_url, file_id)
