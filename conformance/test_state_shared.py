"""Two `superfluid serve` processes on one PostgreSQL state (--state postgresql://...), each with its own
--sessions directory: what a fleet's replicas share, over HTTP with the official openai SDK.

A file uploaded on A is listed and downloaded on B; a response stored on A is retrieved and continued on B; a
batch created on A (and run there: A's runner holds its lease) is visible on B. A is then killed with SIGKILL
mid-batch and its sessions directory removed: B still has every committed file and finished line, takes the
batch over once A's lease lapses (batches/runner.py), and finishes it without running a finished line again;
the output file is read from B.
The PostgreSQL server is the state tests' one (tests/state/postgres_server.py: Debian's package).
"""

from __future__ import annotations

import io
import json
import shutil
import signal
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from openai import OpenAI

from conformance.server import DEFAULT_MODEL, RunningServer, free_port, start_server, stop_server
from conformance.test_files_batches import chat_line, jsonl, read_jsonl, wait_until_ended

LINES = 12


@dataclass
class Pair:
    base: Path
    url: str
    a: RunningServer
    b: RunningServer


def _serve(base: Path, url: str, name: str) -> RunningServer:
    return start_server([DEFAULT_MODEL, "--parallel", "2", "--ctx-size", "2048", "--threads", "1",
                         "--state", url, "--sessions", str(base / name / "sessions")], base / f"{name}.log")


def _sdk(server: RunningServer) -> OpenAI:
    return OpenAI(base_url=server.base_url + "/v1", api_key="unused", max_retries=0, timeout=120)


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Pair]:
    pytest.importorskip("psycopg", reason="the PostgreSQL backend needs psycopg (the test extra)")
    from tests.state.postgres_server import fresh_database, running

    base = tmp_path_factory.mktemp("shared-state")
    server_dir = Path(tempfile.mkdtemp(prefix="superfluid-postgres-"))  # the postgres user must reach it
    try:
        with running(server_dir, free_port()) as server_url:
            url = fresh_database(server_url)
            a = _serve(base, url, "a")
            try:
                b = _serve(base, url, "b")
            except BaseException:
                stop_server(a)
                raise
            yield Pair(base, url, a, b)
            for server in (a, b):
                stop_server(server)
    finally:
        shutil.rmtree(server_dir, ignore_errors=True)


def test_a_file_uploaded_on_one_replica_is_listed_and_read_on_the_other(pair: Pair) -> None:
    data = b"shared across replicas\n" * 50_000  # about 1.1 MB: more than one stored chunk
    created = _sdk(pair.a).files.create(file=("shared.txt", io.BytesIO(data)), purpose="user_data")
    on_b = _sdk(pair.b)
    assert created.id in [f.id for f in on_b.files.list()]
    assert on_b.files.retrieve(created.id).bytes == len(data)
    assert on_b.files.content(created.id).content == data
    assert not (pair.base / "a" / "sessions" / "files" / created.id).exists()  # the bytes are in the database
    on_b.files.delete(created.id)
    assert created.id not in [f.id for f in _sdk(pair.a).files.list()]


def test_a_response_stored_on_one_replica_is_retrieved_and_continued_on_the_other(pair: Pair) -> None:
    first = _sdk(pair.a).responses.create(model=DEFAULT_MODEL, input="Say hello.", max_output_tokens=8,
                                          temperature=0, store=True)
    on_b = _sdk(pair.b)
    assert on_b.responses.retrieve(first.id).output_text == first.output_text
    follow = on_b.responses.create(model=DEFAULT_MODEL, input="And again.", previous_response_id=first.id,
                                   max_output_tokens=8, temperature=0, store=True)
    assert follow.previous_response_id == first.id
    items = [item.id for item in _sdk(pair.a).responses.input_items.list(follow.id)]
    assert len(items) >= 2  # the earlier turn came with the continuation, read from the database on B


def _committed(url: str, batch_id: str) -> dict[int, dict[str, object]]:
    """The finished lines of a batch as the database holds them, with the batch's count checked against them."""
    import psycopg

    with psycopg.connect(url) as conn:
        rows = conn.execute("SELECT line, result FROM batch_lines WHERE batch_id = %s", (batch_id,)).fetchall()
        counted = conn.execute("SELECT completed + failed FROM batches WHERE id = %s", (batch_id,)).fetchone()
    assert counted is not None and counted[0] == len(rows), "a line was counted without its result, or the reverse"
    return {int(line): json.loads(text) for line, text in rows}


def test_a_batch_survives_its_replica_killed_mid_run(pair: Pair) -> None:
    lines = [chat_line(f"line-{i}", f"Count to {i}.", max_tokens=16, ignore_eos=True) for i in range(LINES)]
    on_a, on_b = _sdk(pair.a), _sdk(pair.b)
    kept = on_a.files.create(file=("kept.txt", io.BytesIO(b"accepted before the kill")), purpose="user_data")
    input_file = on_a.files.create(file=("input.jsonl", io.BytesIO(jsonl(lines))), purpose="batch")
    batch = on_a.batches.create(input_file_id=input_file.id, endpoint="/v1/chat/completions",
                                completion_window="24h")
    assert on_b.batches.retrieve(batch.id).input_file_id == input_file.id
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        counts = on_b.batches.retrieve(batch.id).request_counts
        if counts is not None and counts.completed >= 2:
            break
        time.sleep(0.1)
    pair.a.process.send_signal(signal.SIGKILL)
    pair.a.process.wait(timeout=30)

    before = _committed(pair.url, batch.id)
    assert 2 <= len(before) < LINES, f"the kill should land mid-batch; {len(before)} lines were done"
    assert on_b.files.content(kept.id).content == b"accepted before the kill"
    assert on_b.files.content(input_file.id).content == jsonl(lines)
    counts = on_b.batches.retrieve(batch.id).request_counts
    assert counts is not None and counts.completed + counts.failed == len(before)

    shutil.rmtree(pair.base / "a")  # nothing A kept locally is needed
    done = wait_until_ended(on_b, batch.id, timeout_s=240)  # B resumes it within LEASE_S + RENEW_S
    assert done.status == "completed", done
    assert done.request_counts is not None and done.request_counts.completed == LINES
    outputs = read_jsonl(on_b, done.output_file_id)
    assert [o["custom_id"] for o in outputs] == [line["custom_id"] for line in lines]
    for index, entry in before.items():
        assert outputs[index] == entry, f"line {index} was run again after the kill"
    assert "another server took its lease" not in pair.b.log_path.read_text(errors="replace")
