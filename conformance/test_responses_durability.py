"""Stored responses survive a SIGKILL: what the server acknowledged is there after a restart on the same sessions
directory, and the conversation continues from it with previous_response_id.

The server is killed while it streams a third turn, right after it acknowledged the second one; the third turn
was never acknowledged (no response.completed went out), so it is not there, and nothing else is lost.
"""

from __future__ import annotations

import json
import signal
import sqlite3
from pathlib import Path

import httpx
import openai
import pytest
from openai import OpenAI

from conformance.server import DEFAULT_MODEL, RunningServer, start_server, stop_server

GREEDY = {"temperature": 0}


def _serve(base: Path, log_name: str) -> RunningServer:
    # One llama.cpp thread keeps this module's servers from crowding the session server on a small machine.
    return start_server([DEFAULT_MODEL, "--parallel", "2", "--ctx-size", "2048", "--threads", "1",
                         "--sessions", str(base / "sessions")], base / log_name)


def _sdk(server: RunningServer) -> OpenAI:
    return OpenAI(base_url=server.base_url + "/v1", api_key="unused", max_retries=0, timeout=180)


def _kill_mid_stream(server: RunningServer, body: dict[str, object]) -> str:
    """Start streaming ``body``, SIGKILL the server once text is flowing; returns the response's id."""
    response_id = ""
    with httpx.Client(base_url=server.base_url, timeout=180) as http, \
            http.stream("POST", "/v1/responses", json={**body, "stream": True}) as reply:
        assert reply.status_code == 200
        try:
            for line in reply.iter_lines():
                if not line.startswith("data: "):
                    continue
                event = json.loads(line[len("data: "):])
                if event["type"] == "response.created":
                    response_id = event["response"]["id"]
                if event["type"] == "response.output_text.delta":
                    server.process.send_signal(signal.SIGKILL)
                    server.process.wait(timeout=30)
                    break
        except httpx.HTTPError:
            pass  # the connection died with the server
    assert server.process.returncode == -signal.SIGKILL, "the server was not killed mid-stream"
    return response_id


def test_a_sigkill_loses_nothing_that_was_acknowledged(tmp_path_factory: pytest.TempPathFactory) -> None:
    base = tmp_path_factory.mktemp("durable")
    server = _serve(base, "before.log")
    try:
        client = _sdk(server)
        first = client.responses.create(model=DEFAULT_MODEL, input="My name is Ada. Say hello to me.",
                                        max_output_tokens=16, **GREEDY)
        second = client.responses.create(model=DEFAULT_MODEL, input="What is my name?",
                                         previous_response_id=first.id, max_output_tokens=16, **GREEDY)
        # The second turn was acknowledged a moment ago; now kill the server while a third one streams.
        in_flight = _kill_mid_stream(server, {"model": DEFAULT_MODEL, "input": "Tell me a long story.",
                                              "previous_response_id": second.id, "max_output_tokens": 400,
                                              "ignore_eos": True, **GREEDY})
    finally:
        if server.process.poll() is None:
            server.process.kill()
    assert in_flight.startswith("resp_")

    with sqlite3.connect(base / "sessions" / "state.sqlite3") as db:  # the file is whole before anyone repairs it
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"

    restarted = _serve(base, "after.log")
    try:
        client = _sdk(restarted)
        assert client.responses.retrieve(second.id).model_dump() == second.model_dump()
        assert client.responses.retrieve(first.id).output_text == first.output_text
        with pytest.raises(openai.NotFoundError):
            client.responses.retrieve(in_flight)  # never acknowledged, never stored
        items = list(client.responses.input_items.list(second.id, order="asc"))
        assert [getattr(i, "role", None) for i in items] == ["user", "assistant", "user"]
        third = client.responses.create(model=DEFAULT_MODEL, input="Say my name again.",
                                        previous_response_id=second.id, max_output_tokens=16, **GREEDY)
        assert third.status in ("completed", "incomplete") and third.output_text
        assert third.usage and second.usage and third.usage.input_tokens > second.usage.input_tokens
        assert len(list(client.responses.input_items.list(third.id))) == 5
    finally:
        stop_server(restarted)
