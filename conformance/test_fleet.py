"""`superfluid fleet` on a local Ray instance: two replicas (one thread each) behind the prefix-aware head.

The OpenAI and Anthropic SDK checks of test_openai_sdk.py and test_anthropic_sdk.py run here again, through the
head (the ``base_url`` fixture below points every fixture they use at it), and then what only a fleet has: a
conversation that follows its replica, the head's routing metrics, the Ollama routes it does not serve, and a
replica killed mid-stream. Skipped as a whole when the fleet extra (ray[serve]) is not installed.
"""

from __future__ import annotations

import json
import os
import signal
import time
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

pytest.importorskip("ray.serve", reason="the fleet extra is not installed: pip install -e '.[test,fleet]'")

from conformance.fleet_server import replica_pid, start_fleet, stop_fleet
from conformance.responses_checks import stream as responses_stream
from conformance.server import DEFAULT_MODEL, RunningServer
from conformance.test_anthropic_sdk import (  # noqa: F401
    sdk,
    test_a_repeated_prompt_is_read_from_the_prefix_cache,
    test_a_tool_use_round_trip,
    test_an_unknown_model_is_not_found,
    test_count_tokens_is_the_prompt_a_message_reports,
    test_create_answers_with_a_message,
    test_missing_max_tokens_is_a_400_naming_it,
    test_stream_framing_byte_for_byte,
    test_stream_helpers_assemble_the_same_message,
    test_superfluid_headers_apply,
    test_system_prompt_as_string_or_blocks_and_unknown_fields,
    test_the_document_describes_what_was_served,
)
from conformance.test_openai_sdk import (  # noqa: F401
    test_async_client,
    test_async_client_raises_sdk_errors,
    test_bad_value_is_bad_request_naming_it,
    test_chat_completion_non_streaming,
    test_chat_streaming_accumulates_deltas,
    test_completions_endpoint,
    test_completions_report_warm_prefix,
    test_completions_streaming,
    test_max_tokens_alone_caps_the_reply,
    test_missing_field_is_bad_request_naming_it,
    test_repeated_prompt_is_served_warm,
    test_stop_string_is_excluded_when_streaming,
    test_temperature_zero_with_seed_is_deterministic,
    test_unknown_model_is_not_found_error,
)

REPLICA = "x-superfluid-replica"
SYSTEM = " ".join(f"Rule {i}: answer in plain words and keep to the facts of topic {i}." for i in range(30))


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    log_path = tmp_path_factory.mktemp("fleet") / "fleet.log"
    running = start_fleet([DEFAULT_MODEL, "--replicas", "2", "--threads", "1", "--replica-cpus", "1",
                           "--parallel", "2", "--http-allow-batch-invariant"], log_path)
    yield running
    stop_fleet(running)


@pytest.fixture(scope="module")
def base_url(fleet: RunningServer) -> str:
    return fleet.base_url


def _metric(text: str, name: str) -> float:
    return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
               if line.startswith(name) and not line.startswith("#"))


def _chat(http: httpx.Client, messages: list[Any], **fields: Any) -> httpx.Response:
    body = {"model": DEFAULT_MODEL, "messages": messages, "max_tokens": 4, "temperature": 0, **fields}
    return http.post("/v1/chat/completions", json=body)


# ---- what only the fleet does -----------------------------------------------------------------------------


def test_a_conversation_follows_its_replica_and_is_served_warm(http: httpx.Client) -> None:
    before = http.get("/metrics").text
    messages: list[Any] = [{"role": "system", "content": f"{SYSTEM} ({uuid.uuid4().hex})"},
                           {"role": "user", "content": "Name a colour."}]
    replicas, cached = [], []
    for turn in range(3):
        reply = _chat(http, messages)
        assert reply.status_code == 200, reply.text
        replicas.append(reply.headers[REPLICA])
        cached.append(reply.json()["usage"]["prompt_tokens_details"]["cached_tokens"])
        messages += [reply.json()["choices"][0]["message"], {"role": "user", "content": f"And another ({turn})?"}]
    assert len(set(replicas)) == 1, replicas
    assert all(tokens > 0 for tokens in cached[1:]), cached
    after = http.get("/metrics").text
    name = 'superfluid_fleet_routing_decisions_total{decision="prefix"}'
    assert _metric(after, name) - _metric(before, name) >= 2
    assert _metric(after, "superfluid_fleet_matched_blocks_total") > _metric(before, "superfluid_fleet_matched_blocks")
    assert 0 < _metric(after, "superfluid_fleet_prefix_hit_ratio") <= 1


def test_streams_of_every_dialect_pass_through_unchanged(http: httpx.Client) -> None:
    """The Responses stream keeps its numbering and framing; tokenize, health and models answer as serve does."""
    response, events = responses_stream(http, {"model": DEFAULT_MODEL, "input": "Say hi.", "max_output_tokens": 8})
    assert response.headers[REPLICA] and events[-1]["type"] in ("response.completed", "response.incomplete")
    tokens = http.post("/v1/tokenize", json={"content": "hello world", "model": DEFAULT_MODEL})
    assert tokens.status_code == 200 and tokens.json()["tokens"]
    assert http.get("/health").status_code == 200
    assert [m["id"] for m in http.get("/v1/models").json()["data"]] == [DEFAULT_MODEL]


def test_the_head_does_not_serve_the_ollama_routes(http: httpx.Client) -> None:
    for method, path in (("GET", "/api/tags"), ("POST", "/api/chat"), ("GET", "/")):
        reply = http.request(method, path)
        assert reply.status_code == 501, (path, reply.text)
        assert set(reply.json()) == {"error"} and "Ollama" in reply.json()["error"]


def _idle_replicas(http: httpx.Client, deadline_s: float) -> set[str]:
    """Replicas seen with no lane busy, polling /slots (each poll reaches one replica) until both were seen."""
    idle: set[str] = set()
    deadline = time.monotonic() + deadline_s
    while len(idle) < 2 and time.monotonic() < deadline:
        reply = http.get("/slots")
        if not reply.json()[0]["is_processing"]:
            idle.add(reply.headers[REPLICA])
        time.sleep(0.2)
    return idle


def test_a_client_that_disconnects_cancels_the_generation_on_its_replica(http: httpx.Client) -> None:
    """A 3000-token story on one thread takes well over a minute here; closing the stream frees its lane."""
    body = {"model": DEFAULT_MODEL, "messages": [{"role": "user", "content": "Tell a very long story."}],
            "max_tokens": 3000, "stream": True, "temperature": 1.0, "seed": 11}
    with http.stream("POST", "/v1/chat/completions", json=body) as response:
        assert response.status_code == 200
        lines = response.iter_lines()
        next(line for line in lines if line.startswith("data: "))
        busy = response.headers[REPLICA]
    assert busy in _idle_replicas(http, deadline_s=30)


def test_a_replica_killed_mid_stream_ends_the_stream_with_an_error_frame(http: httpx.Client) -> None:
    body = {"model": DEFAULT_MODEL, "messages": [{"role": "user", "content": "Tell a very long story."}],
            "max_tokens": 3000, "stream": True, "temperature": 1.0, "seed": 7}
    started = time.monotonic()
    with http.stream("POST", "/v1/chat/completions", json=body, timeout=60) as response:
        assert response.status_code == 200
        lines = response.iter_lines()
        first = next(line for line in lines if line.startswith("data: "))
        assert json.loads(first[len("data: "):])["object"] == "chat.completion.chunk"
        os.kill(replica_pid(response.headers[REPLICA]), signal.SIGKILL)
        rest = [line for line in lines if line.startswith("data: ")]
    assert time.monotonic() - started < 60  # the head never waits on a dead replica
    assert rest[-1] == "data: [DONE]"
    error = json.loads(rest[-2][len("data: "):])["error"]
    assert error["type"] == "server_error" and error["code"] == "replica_failed" and error["message"]
    for _ in range(4):  # the survivor serves what follows (the router drops the dead replica)
        reply = _chat(http, [{"role": "user", "content": f"Say hi ({uuid.uuid4().hex[:8]})."}])
        assert reply.status_code == 200, reply.text
