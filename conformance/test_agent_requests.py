"""Requests shaped as coding agents send them (issue 33), against the real server: each is understood, or left out
as the hosted API's features this server cannot run, and never fails the request.

- Claude Code puts ``system`` messages inside ``messages`` and sends ``thinking`` by default (``adaptive``);
  Anthropic's server tools may stand beside its client tools.
- Codex declares tools inside a ``namespace`` tool and hosted tools (``web_search``, ``local_shell`` ...) beside
  them, and sends ``reasoning.effort``.
- OpenAI-compatible agents send ``reasoning_effort`` whatever the model.

The bundled SmolLM2's template has no thinking switch: reasoning settings are accepted and change nothing."""

from __future__ import annotations

import json
from typing import Any

import anthropic
import httpx

QUESTION = "Name three primary colors."
WEATHER = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}


def _message(http: httpx.Client, model: str, **fields: Any) -> dict[str, Any]:
    body = {"model": model, "max_tokens": 12, "temperature": 0,
            "messages": [{"role": "user", "content": QUESTION}], **fields}
    reply = http.post("/v1/messages", json=body)
    assert reply.status_code == 200, reply.text
    return dict(reply.json())


def test_system_messages_inside_messages_are_the_system_prompt(http: httpx.Client, model: str,
                                                              base_url: str) -> None:
    inside = [{"role": "system", "content": "Answer in one word."}, {"role": "user", "content": QUESTION},
              {"role": "assistant", "content": "Red."}, {"role": "system", "content": [{"type": "text",
                                                                                        "text": "Be kind."}]},
              {"role": "user", "content": "And a fourth?"}]
    hoisted = [m for m in inside if m["role"] != "system"]
    system = "Answer in one word.\n\nBe kind."

    def counted(**fields: Any) -> int:
        reply = http.post("/v1/messages/count_tokens", json={"model": model, **fields})
        assert reply.status_code == 200, reply.text
        return int(reply.json()["input_tokens"])

    assert counted(messages=inside) == counted(messages=hoisted, system=system)
    sdk = anthropic.Anthropic(base_url=base_url, api_key="unused", max_retries=0)
    greedy = {"temperature": 0}  # the SDK's create() no longer types temperature
    a = sdk.messages.create(model=model, max_tokens=8, messages=inside, extra_body=greedy)  # type: ignore[arg-type]
    b = sdk.messages.create(model=model, max_tokens=8, system=system, messages=hoisted,  # type: ignore[arg-type]
                            extra_body=greedy)
    assert [block.model_dump() for block in a.content] == [block.model_dump() for block in b.content]


def test_thinking_on_a_model_that_cannot_think_changes_nothing(http: httpx.Client, model: str) -> None:
    plain = _message(http, model)
    for thinking in ({"type": "adaptive"}, {"type": "enabled", "budget_tokens": 2048}):
        reply = _message(http, model, thinking=thinking)
        assert reply["content"] == plain["content"]
        assert all(block["type"] == "text" for block in reply["content"])


def test_server_tools_are_left_out_beside_client_tools(http: httpx.Client, model: str) -> None:
    tools = [{"type": "web_search_20250305", "name": "web_search", "max_uses": 2},
             {"name": "get_weather", "description": "Weather in a city.", "input_schema": WEATHER}]
    reply = _message(http, model, max_tokens=40, tools=tools, tool_choice={"type": "any"},
                     messages=[{"role": "user", "content": "Weather in Oslo?"}])
    calls = [block for block in reply["content"] if block["type"] == "tool_use"]
    assert calls and {call["name"] for call in calls} == {"get_weather"}
    assert isinstance(calls[0]["input"]["city"], str)


def test_codex_tools_namespace_flattened_hosted_left_out(http: httpx.Client, model: str) -> None:
    tools = [{"type": "web_search"}, {"type": "local_shell"},
             {"type": "namespace", "name": "weather", "description": "Weather tools.",
              "tools": [{"type": "function", "name": "get_weather", "description": "Weather in a city.",
                         "parameters": WEATHER}]},
             {"type": "custom", "name": "apply_patch", "description": "Edit files."}]
    body = {"model": model, "input": "Weather in Oslo?", "tools": tools, "tool_choice": "required",
            "max_output_tokens": 40, "temperature": 0, "reasoning": {"effort": "high"}}
    reply = http.post("/v1/responses", json=body)
    assert reply.status_code == 200, reply.text
    calls = [item for item in reply.json()["output"] if item["type"] == "function_call"]
    assert calls and calls[0]["name"] == "get_weather" and calls[0]["namespace"] == "weather"
    # The response lists the tools as they were sent, the ones left out of the prompt included.
    assert [tool["type"] for tool in reply.json()["tools"]] == ["web_search", "local_shell", "namespace", "custom"]
    assert isinstance(json.loads(calls[0]["arguments"])["city"], str)
    # Streamed, the call item carries its namespace from the start.
    with http.stream("POST", "/v1/responses", json={**body, "stream": True}) as streamed:
        assert streamed.status_code == 200
        events = [json.loads(line[6:]) for line in streamed.iter_lines() if line.startswith("data: ")]
    added = [e["item"] for e in events if e["type"] == "response.output_item.added"
             and e["item"]["type"] == "function_call"]
    assert added and added[0]["namespace"] == "weather"


def test_reasoning_settings_on_a_model_that_cannot_think_change_nothing(http: httpx.Client, model: str) -> None:
    base = {"model": model, "messages": [{"role": "user", "content": QUESTION}], "max_tokens": 8, "temperature": 0}
    plain = http.post("/v1/chat/completions", json=base).json()["choices"][0]["message"]["content"]
    for effort in ("minimal", "high", "none"):
        reply = http.post("/v1/chat/completions", json={**base, "reasoning_effort": effort})
        assert reply.status_code == 200, reply.text
        assert reply.json()["choices"][0]["message"]["content"] == plain
    responses = {"model": model, "input": QUESTION, "max_output_tokens": 8, "temperature": 0}
    without = http.post("/v1/responses", json=responses).json()["output"]
    with_effort = http.post("/v1/responses", json={**responses, "reasoning": {"effort": "high"}})
    assert with_effort.status_code == 200, with_effort.text
    assert [i["content"] for i in with_effort.json()["output"]] == [i["content"] for i in without]
    # The explicit forms keep their 400: the client named a variable the template does not read.
    refused = http.post("/v1/chat/completions", json={**base, "chat_template_kwargs": {"reasoning_effort": "high"}})
    assert refused.status_code == 400
    assert refused.json()["error"]["param"] == "chat_template_kwargs.reasoning_effort"
