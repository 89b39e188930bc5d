"""Reasoning: the <think> split into reasoning_content, and the switches that turn thinking on and off.

A second server runs the bundled model under conformance/templates/thinking.jinja, a ChatML template that
opens a <think> block for the reply (Qwen3-style) unless enable_thinking is false, in which case it writes an
empty block itself. Whatever the model writes inside the block is reasoning_content, streamed or not.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from conformance.responses_checks import create, stream
from conformance.server import DEFAULT_MODEL, RunningServer, start_server, stop_server

THINKING_TEMPLATE = Path(__file__).parent / "templates" / "thinking.jinja"
QUESTION = [{"role": "user", "content": "What is 2+2?"}]


@pytest.fixture(scope="module")
def thinker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    log = tmp_path_factory.mktemp("thinking") / "serve.log"
    # One llama.cpp thread keeps a second server's pace steady on a shared two-core machine.
    running = start_server([DEFAULT_MODEL, "--chat-template-file", str(THINKING_TEMPLATE), "--parallel", "2",
                            "--ctx-size", "2048", "--threads", "1"], log)
    yield running
    stop_server(running)


@pytest.fixture
def thinking(thinker: RunningServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=thinker.base_url, timeout=180) as client:
        yield client


def _chat(client: httpx.Client, **fields: Any) -> httpx.Response:
    body = {"model": DEFAULT_MODEL, "messages": QUESTION, "max_tokens": 24, "temperature": 0, **fields}
    return client.post("/v1/chat/completions", json=body)


def _message(client: httpx.Client, **fields: Any) -> dict[str, Any]:
    reply = _chat(client, **fields)
    assert reply.status_code == 200, reply.text
    return dict(reply.json()["choices"][0]["message"])


def _stream_deltas(client: httpx.Client, **fields: Any) -> list[dict[str, Any]]:
    body = {"model": DEFAULT_MODEL, "messages": QUESTION, "max_tokens": 8, "temperature": 0, "stream": True,
            **fields}
    deltas: list[dict[str, Any]] = []
    with client.stream("POST", "/v1/chat/completions", json=body) as reply:
        assert reply.status_code == 200
        for line in reply.iter_lines():
            if line.startswith("data: ") and line != "data: [DONE]":
                chunk = httpx.Response(200, content=line[6:]).json()
                deltas.extend(choice["delta"] for choice in chunk["choices"])
    return deltas


def test_the_template_advertises_thinking(thinking: httpx.Client) -> None:
    listed = thinking.get(f"/v1/models/{DEFAULT_MODEL}").json()
    assert listed["capabilities"]["dialect"]["enable_thinking"] is True


def test_thinking_by_default_goes_to_reasoning_content(thinking: httpx.Client) -> None:
    message = _message(thinking)
    assert message["reasoning_content"].strip()
    assert "<think>" not in message["reasoning_content"] and "</think>" not in message["reasoning_content"]
    assert "<think>" not in (message["content"] or "")


def test_enable_thinking_false_gives_plain_content(thinking: httpx.Client) -> None:
    message = _message(thinking, enable_thinking=False)
    assert "reasoning_content" not in message
    assert message["content"]
    assert "think>" not in message["content"]


def test_template_kwargs_switch_thinking_too(thinking: httpx.Client) -> None:
    assert "reasoning_content" not in _message(thinking, chat_template_kwargs={"enable_thinking": False})
    assert _message(thinking, chat_template_kwargs={"enable_thinking": True})["reasoning_content"]


def test_chat_template_kwargs_win_over_the_top_level_switch(thinking: httpx.Client) -> None:
    off = _message(thinking, enable_thinking=True, chat_template_kwargs={"enable_thinking": False})
    assert "reasoning_content" not in off
    assert off["content"]
    on = _message(thinking, enable_thinking=False, chat_template_kwargs={"enable_thinking": True})
    assert on["reasoning_content"]


def test_streamed_reasoning_arrives_as_reasoning_deltas(thinking: httpx.Client) -> None:
    deltas = _stream_deltas(thinking)
    assert deltas[0] == {"role": "assistant"}
    reasoning = "".join(d.get("reasoning_content", "") for d in deltas)
    assert reasoning.strip()
    assert sum(1 for d in deltas if d.get("reasoning_content")) > 1
    assert not "".join(d.get("content") or "" for d in deltas)
    assert "think>" not in reasoning


def test_streamed_reply_without_thinking_has_no_reasoning_deltas(thinking: httpx.Client) -> None:
    deltas = _stream_deltas(thinking, chat_template_kwargs={"enable_thinking": False})
    assert not any("reasoning_content" in d for d in deltas)
    assert "".join(d.get("content") or "" for d in deltas)


def test_a_variable_the_template_does_not_read_is_a_400(thinking: httpx.Client) -> None:
    for fields, param in (({"chat_template_kwargs": {"colour": "red"}}, "chat_template_kwargs.colour"),
                          ({"chat_template_kwargs": {"reasoning_effort": "high"}},
                           "chat_template_kwargs.reasoning_effort")):
        reply = _chat(thinking, **fields)
        assert reply.status_code == 400, reply.text
        assert reply.json()["error"]["param"] == param


def test_reasoning_effort_switches_a_template_that_only_has_enable_thinking(thinking: httpx.Client) -> None:
    """OpenAI's reasoning_effort on a template that reads enable_thinking but no level: any level but none
    turns thinking on, none turns it off (as reasoning.effort on the Responses API)."""
    on = _chat(thinking, reasoning_effort="high")
    assert on.status_code == 200, on.text
    assert on.json()["choices"][0]["message"].get("reasoning_content")
    off = _chat(thinking, reasoning_effort="none")
    assert off.status_code == 200, off.text
    assert not off.json()["choices"][0]["message"].get("reasoning_content")


def test_the_bundled_template_refuses_to_think(http: httpx.Client, model: str) -> None:
    """SmolLM2's own template has no thinking switch: asking for thinking is a 400, turning it off is harmless."""
    body = {"model": model, "messages": QUESTION, "max_tokens": 2, "temperature": 0}
    refused = http.post("/v1/chat/completions", json={**body, "enable_thinking": True})
    assert refused.status_code == 400
    assert refused.json()["error"]["param"] == "chat_template_kwargs.enable_thinking"
    harmless = http.post("/v1/chat/completions", json={**body, "chat_template_kwargs": {"enable_thinking": False}})
    assert harmless.status_code == 200
    assert "reasoning_content" not in harmless.json()["choices"][0]["message"]


# ---- the Responses API on the thinking template ---------------------------------------------------------------
def _responses_body(**fields: Any) -> dict[str, Any]:
    return {"model": DEFAULT_MODEL, "input": "What is 2+2?", "max_output_tokens": 24, "temperature": 0, **fields}


def test_responses_reasoning_is_a_reasoning_item_and_its_summary_streams(thinking: httpx.Client) -> None:
    reply = create(thinking, _responses_body(reasoning={"effort": "high"}))
    reasoning = reply["output"][0]
    assert reasoning["type"] == "reasoning"
    summary = reasoning["summary"][0]["text"]
    assert summary.strip() and "think>" not in summary
    assert reply["usage"]["output_tokens_details"]["reasoning_tokens"] > 0
    assert reply["reasoning"]["effort"] == "high"
    _, events = stream(thinking, _responses_body(reasoning={"effort": "high"}))
    deltas = [e["delta"] for e in events if e["type"] == "response.reasoning_summary_text.delta"]
    assert len(deltas) > 1 and "".join(deltas) == summary
    assert events[-1]["response"]["output"][0]["summary"][0]["text"] == summary


def test_responses_reasoning_effort_none_turns_thinking_off(thinking: httpx.Client) -> None:
    reply = create(thinking, _responses_body(reasoning={"effort": "none"}))
    assert [item["type"] for item in reply["output"]] == ["message"]
    assert reply["usage"]["output_tokens_details"]["reasoning_tokens"] == 0
