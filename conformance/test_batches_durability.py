"""A batch survives a SIGKILL: after a restart on the same sessions directory every accepted file is still there,
the lines finished before the kill are neither lost nor run again (their recorded results, ids included, are the
ones in the output file), and the batch finishes. Then file expiry on the restarted server (--files-expiry)."""

from __future__ import annotations

import io
import json
import signal
import sqlite3
import time
from pathlib import Path

import openai
import pytest
from openai import OpenAI

from conformance.server import DEFAULT_MODEL, RunningServer, start_server, stop_server
from conformance.test_files_batches import chat_line, jsonl, read_jsonl, wait_until_ended

LINES = 16


def _serve(base: Path, log_name: str, *extra: str) -> RunningServer:
    return start_server([DEFAULT_MODEL, "--parallel", "2", "--ctx-size", "2048", "--threads", "1",
                         "--sessions", str(base / "sessions"), *extra], base / log_name)


def _sdk(server: RunningServer) -> OpenAI:
    return OpenAI(base_url=server.base_url + "/v1", api_key="unused", max_retries=0, timeout=120)


def _recorded(base: Path, batch_id: str) -> dict[int, dict[str, object]]:
    """The lines the killed server had committed, read from its database."""
    with sqlite3.connect(base / "sessions" / "state.sqlite3") as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        rows = db.execute("SELECT line, result FROM batch_lines WHERE batch_id = ?", (batch_id,)).fetchall()
        counted = db.execute("SELECT completed + failed FROM batches WHERE id = ?", (batch_id,)).fetchone()[0]
    assert counted == len(rows), "a line was counted without its result, or the reverse"
    return {int(line): json.loads(text) for line, text in rows}


def test_a_sigkill_mid_batch_loses_no_file_and_no_finished_line(tmp_path_factory: pytest.TempPathFactory) -> None:
    base = tmp_path_factory.mktemp("batch-durable")
    lines = [chat_line(f"line-{i}", f"Write a poem about the number {i}.", max_tokens=24, ignore_eos=True)
             for i in range(LINES)]
    server = _serve(base, "before.log")
    try:
        client = _sdk(server)
        keep = client.files.create(file=("keep.txt", io.BytesIO(b"accepted before the kill")), purpose="user_data")
        input_file = client.files.create(file=("input.jsonl", io.BytesIO(jsonl(lines))), purpose="batch")
        batch = client.batches.create(input_file_id=input_file.id, endpoint="/v1/chat/completions",
                                      completion_window="24h")
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            counts = client.batches.retrieve(batch.id).request_counts
            if counts is not None and counts.completed >= 3:
                break
            time.sleep(0.1)
        server.process.send_signal(signal.SIGKILL)
        server.process.wait(timeout=30)
    finally:
        if server.process.poll() is None:
            server.process.kill()
    before = _recorded(base, batch.id)
    assert 3 <= len(before) < LINES, f"the kill should land mid-batch; {len(before)} lines were done"

    restarted = _serve(base, "after.log", "--files-expiry", "3s")
    try:
        client = _sdk(restarted)
        assert client.files.content(keep.id).content == b"accepted before the kill"
        assert client.files.retrieve(input_file.id).bytes == input_file.bytes
        done = wait_until_ended(client, batch.id)
        assert done.status == "completed", done
        assert done.request_counts is not None
        assert (done.request_counts.total, done.request_counts.completed) == (LINES, LINES)
        outputs = read_jsonl(client, done.output_file_id)
        assert [o["custom_id"] for o in outputs] == [line["custom_id"] for line in lines]
        for index, entry in before.items():
            assert outputs[index] == entry, f"line {index} was run again after the restart"
        assert len({o["id"] for o in outputs}) == LINES

        # Expiry: this server keeps files 3 s unless an upload says otherwise.
        short = client.files.create(file=("short.txt", io.BytesIO(b"gone soon")), purpose="user_data")
        assert short.expires_at == short.created_at + 3
        time.sleep(4.5)
        with pytest.raises(openai.NotFoundError):
            client.files.retrieve(short.id)
        client.files.create(file=("later.txt", io.BytesIO(b"x")), purpose="user_data")  # a write prunes
        assert not (base / "sessions" / "files" / short.id).exists()
        assert client.files.content(keep.id).content == b"accepted before the kill"  # its expiry is its own
    finally:
        stop_server(restarted)
