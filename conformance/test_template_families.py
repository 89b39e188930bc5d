"""Forced calls in each shape of native call syntax and gpt-oss's harmony, on the real server, in all four dialects.

One server per shape of call syntax (the families below; the others differ only in their pieces and are covered by
tests/engine/decoding/test_call_syntax.py), each the bundled SmolLM2 served with a published template of that family
(``tests/engine/models/published_templates``, llama.cpp's ``models/templates``) through
``--chat-template-file``, one after another. The 135M model knows none of these formats, so what a call looks
like rests on the family's grammar: ``required`` and a named function (OpenAI chat and Responses, Anthropic's
``any`` and ``tool``) must give a call, read back by the family's reader, whose arguments validate. Ollama has
no ``tool_choice``: its replies must be runnable calls or clean words, and a conversation holding a call and
its result must render in the family's own format and be answered.

``benchmarks/template_calls.py`` runs the same requests against every template of the folder.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anthropic
import httpx
import jsonschema
import ollama
import pytest
from openai import OpenAI

from conformance.server import DEFAULT_MODEL, start_server, stop_server
from conformance.tool_checks import ASK, PARAMETERS, TOOLS, check_call_deltas, named, only_calls, runnable, user

FOLDER = Path(__file__).parents[1] / "tests" / "engine" / "models" / "published_templates"

FAMILIES = {
    # One family per shape of the reader and grammar (benchmarks/template_calls.py runs every template):
    "qwen3_coder": "Qwen3.5-4B.jinja",  # key/value pairs, each value on its own line; opens <think>
    "glm_compact": "GLM-4.7-Flash.jinja",  # key/value pairs with no newlines; opens <think>
    "minimax_m2": "MiniMax-M2.jinja",  # key/value pairs inside a section; opens <think>
    "dsml": "deepseek-ai-DeepSeek-V3.2.jinja",  # key/value pairs whose opening says string or JSON
    "kimi_k2": "Kimi-K2-Thinking.jinja",  # JSON arguments after the call's position
    "deepseek_r1": "llama-cpp-deepseek-r1.jinja",  # JSON in a fence after a newline; opens <think>
    "deepseek_v3": "deepseek-ai-DeepSeek-V3.1.jinja",  # renders calls, never reads tools
    "mistral_call_id": "Mistral-Small-3.2-24B-Instruct-2506.jinja",  # an id between name and arguments
    "harmony": "openai-gpt-oss-120b.jinja",  # channels; the framing comes out of every reply
    "apertus": "Apertus-8B-Instruct.jinja",  # {"NAME": arguments} objects in a list
    "lfm2": "LFM2.5-8B-A1B.jinja",  # Python calls with Python-literal values, read by their own reader
    "gemma4": "google-gemma-4-31B-it.jinja",  # call:NAME{key:value} with its own string marks, schema-held values
    "kimi_k3": "Kimi-K3.jinja",  # XTML blocks, one per argument with its JSON type; the framing out of every reply
    "muse_glimmer": "muse-glimmer.jinja",  # messages to recipients, a call's body an ATEM block
}
"""Functionary v3.2 and Command R+ are left to the sweep (benchmarks/template_calls.py) to keep this module's
time down; their readers and grammars are covered by tests/engine/decoding. Command R7B (the position inside the
object) is left to the sweep: its 2,600-token preamble costs a minute
here, and its pieces are the reader's and grammar's placeholder case, covered by test_call_syntax.py."""
TOKENS = 200
"""Room for a whole call in the longest pieces (DSML's); a forced call's grammar ends the reply sooner."""
WORDS = 48
"""Ollama's replies may be words (it has no tool_choice): enough to show they are clean."""
ANTHROPIC_TOOLS: list[Any] = [{"name": t["function"]["name"], "description": t["function"]["description"],
                               "input_schema": t["function"]["parameters"]} for t in TOOLS]
RESPONSES_TOOLS: list[Any] = [{"type": "function", "name": t["function"]["name"],
                               "description": t["function"]["description"],
                               "parameters": t["function"]["parameters"]} for t in TOOLS]


@dataclass
class Family:
    fmt: str
    base_url: str
    openai: OpenAI
    anthropic: anthropic.Anthropic
    ollama: ollama.Client


@pytest.fixture(scope="module", params=sorted(FAMILIES))
def family(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Family]:
    fmt = str(request.param)
    log = tmp_path_factory.mktemp(fmt) / "serve.log"
    running = start_server([DEFAULT_MODEL, "--chat-template-file", str(FOLDER / FAMILIES[fmt]), "--parallel", "1",
                            "--ctx-size", "4096", "--threads", "1"], log)
    try:
        with OpenAI(base_url=running.base_url + "/v1", api_key="unused", max_retries=0, timeout=180) as sdk:
            yield Family(fmt, running.base_url, sdk,
                         anthropic.Anthropic(base_url=running.base_url, api_key="unused", max_retries=0, timeout=180),
                         ollama.Client(host=running.base_url, timeout=180))
    finally:
        stop_server(running)


def _valid(name: str, arguments: Any) -> None:
    assert name in PARAMETERS, name
    parsed = json.loads(arguments) if isinstance(arguments, str) else arguments
    jsonschema.validate(parsed, PARAMETERS[name])
    assert set(parsed) <= set(PARAMETERS[name]["properties"])


def test_the_template_s_family_is_the_one_served(family: Family) -> None:
    props = httpx.get(family.base_url + "/props", timeout=30).json()
    assert props["tool_format"] == family.fmt


@pytest.mark.parametrize("choice", ["required", "get_time"])
def test_openai_forced_and_named_calls(family: Family, choice: str) -> None:
    reply = family.openai.chat.completions.create(
        model=DEFAULT_MODEL, messages=user(ASK), tools=TOOLS, max_tokens=TOKENS, temperature=0,
        tool_choice="required" if choice == "required" else named(choice))
    calls = only_calls(reply)
    assert len(calls) == 1
    runnable(calls[0], name=None if choice == "required" else choice)


def test_openai_streamed_call(family: Family) -> None:
    chunks = list(family.openai.chat.completions.create(
        model=DEFAULT_MODEL, messages=user(ASK), tools=TOOLS, max_tokens=TOKENS, temperature=0,
        tool_choice=named("get_weather"), stream=True))
    calls = check_call_deltas(chunks)  # and no call text in content
    assert [c["name"] for c in calls.values()] == ["get_weather"]
    assert chunks[-1].choices[0].finish_reason == "tool_calls"
    _valid("get_weather", calls[0]["arguments"])


@pytest.mark.parametrize("choice", [{"type": "any"}, {"type": "tool", "name": "get_weather"}], ids=["any", "tool"])
def test_anthropic_forced_and_named_tool_use(family: Family, choice: Any) -> None:
    message = family.anthropic.messages.create(
        model=DEFAULT_MODEL, max_tokens=TOKENS, messages=[{"role": "user", "content": ASK}], tools=ANTHROPIC_TOOLS,
        tool_choice={**choice, "disable_parallel_tool_use": True}, extra_body={"temperature": 0})
    uses = [block for block in message.content if block.type == "tool_use"]
    assert message.stop_reason == "tool_use" and len(uses) == 1, message
    if choice["type"] == "tool":
        assert uses[0].name == "get_weather"
    _valid(uses[0].name, uses[0].input)
    assert not any(block.type == "text" and block.text.strip() for block in message.content), message


@pytest.mark.parametrize("choice", ["required", "get_time"])
def test_responses_forced_and_named_function_calls(family: Family, choice: str) -> None:
    response = family.openai.responses.create(
        model=DEFAULT_MODEL, input=ASK, tools=RESPONSES_TOOLS, max_output_tokens=TOKENS, temperature=0,
        parallel_tool_calls=False, store=False,
        tool_choice="required" if choice == "required" else {"type": "function", "name": choice})
    calls = [item for item in response.output if item.type == "function_call"]
    assert len(calls) == 1 and calls[0].status == "completed", response.output
    if choice != "required":
        assert calls[0].name == choice
    _valid(calls[0].name, calls[0].arguments)


def test_ollama_calls_or_words_and_a_call_history(family: Family) -> None:
    history: list[Any] = [
        {"role": "user", "content": ASK},
        {"role": "assistant", "content": "", "tool_calls": [
            {"function": {"name": "get_weather", "arguments": {"city": "Paris", "unit": "celsius"}}}]},
        {"role": "tool", "content": '{"temperature": 21, "sky": "sunny"}', "tool_name": "get_weather"},
    ]
    for messages in (user(ASK), history):
        reply = family.ollama.chat(model=DEFAULT_MODEL, messages=messages, tools=TOOLS,
                                   options={"temperature": 0, "num_predict": WORDS})
        for call in reply.message.tool_calls or []:
            if reply.done_reason == "stop":
                _valid(call.function.name, dict(call.function.arguments))
        if not reply.message.tool_calls:
            words = reply.message.content or ""
            assert "<tool_call>" not in words and "<function=" not in words and "tool▁call" not in words, words


def test_ollama_think_level_is_taken_or_refused(family: Family) -> None:
    """A think level reaches a template that reads one (gpt-oss's ``reasoning_effort``, Kimi K3's
    ``thinking_effort``) and is a 400 naming ``think`` on the others; never a 5xx."""
    takes = httpx.get(family.base_url + "/props", timeout=30).json()["capabilities"]["dialect"]["reasoning_effort"]
    ask = [{"role": "user", "content": "Hi."}]
    options = {"temperature": 0, "num_predict": 4}
    if not takes:
        with pytest.raises(ollama.ResponseError) as error:
            family.ollama.chat(model=DEFAULT_MODEL, messages=ask, think="low", options=options)
        assert error.value.status_code == 400 and "think" in str(error.value)
        return
    reply = family.ollama.chat(model=DEFAULT_MODEL, messages=ask, think="low", options=options)
    assert reply.done and reply.eval_count
    if family.fmt == "kimi_k3":  # the level turns thinking on: the prompt ends inside the reasoning block
        assert reply.message.thinking, reply.message
