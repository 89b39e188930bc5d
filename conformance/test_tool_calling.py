"""Tool calling through the official openai SDK, on the bundled model and on a Hermes-style template.

The bundled SmolLM2 template has no tool support, so the server uses its generic JSON call format there; a
second server, started with conformance/templates/hermes_tools.jinja, exercises the ``<tool_call>`` format.
Every call the server hands back must be runnable: an id, a name from ``tools`` and arguments that parse and
validate against that function's parameters. A reply cut by the token cap is never ``tool_calls``.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import openai
import pytest
from openai import OpenAI
from openai.types.chat import ChatCompletion, ChatCompletionChunk, ChatCompletionMessageFunctionToolCall

from conformance.server import DEFAULT_MODEL, RunningServer, start_server, stop_server

HERMES_TEMPLATE = Path(__file__).parent / "templates" / "hermes_tools.jinja"

WEATHER: Any = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "The current weather in a city",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string", "maxLength": 20},
                           "unit": {"enum": ["celsius", "fahrenheit"]}},
            "required": ["city", "unit"],
        },
    },
}
CLOCK: Any = {
    "type": "function",
    "function": {
        "name": "get_time",
        "description": "The current time in a time zone",
        "parameters": {"type": "object", "properties": {"zone": {"type": "string", "maxLength": 20}},
                       "required": ["zone"]},
    },
}
TOOLS: list[Any] = [WEATHER, CLOCK]
PARAMETERS = {t["function"]["name"]: t["function"]["parameters"] for t in TOOLS}
ASK = "What is the weather in Paris?"
CALL_TOKENS = 60  # room for one whole call in either format
PARALLEL_ASK = "What is the weather in Paris and the time in Tokyo?"
PARALLEL_TOKENS = 80


@pytest.fixture(scope="module")
def client(base_url: str) -> Iterator[OpenAI]:
    with OpenAI(base_url=base_url + "/v1", api_key="unused", max_retries=0, timeout=180) as sdk:
        yield sdk


def _user(text: str) -> list[Any]:
    return [{"role": "user", "content": text}]


def _named(name: str) -> Any:
    return {"type": "function", "function": {"name": name}}


def _fresh(text: str) -> str:
    return f"{text} (request {uuid.uuid4().hex[:8]})"


def _runnable(call: Any, *, name: str | None = None) -> dict[str, Any]:
    """Assert a call is complete and valid; returns its parsed arguments."""
    assert isinstance(call, ChatCompletionMessageFunctionToolCall)
    assert call.type == "function"
    assert call.id, "a call needs an id the tool result can refer to"
    assert call.function.name in PARAMETERS
    if name is not None:
        assert call.function.name == name
    arguments = json.loads(call.function.arguments)
    jsonschema.validate(arguments, PARAMETERS[call.function.name])
    # Argument objects without additionalProperties are closed: only the declared keys appear.
    assert set(arguments) <= set(PARAMETERS[call.function.name]["properties"])
    return dict(arguments)


def _only_calls(reply: ChatCompletion) -> list[Any]:
    choice = reply.choices[0]
    assert choice.finish_reason == "tool_calls", choice.message
    assert not choice.message.content, "no call text may leak into content"
    calls = choice.message.tool_calls
    assert calls
    assert len({c.id for c in calls}) == len(calls), "call ids must be distinct"
    return list(calls)


# ---- tool_choice on the bundled model (generic format) ---------------------------------------------------


def test_required_gives_one_runnable_call(client: OpenAI, model: str) -> None:
    reply = client.chat.completions.create(model=model, messages=_user(ASK), tools=TOOLS, tool_choice="required",
                                           max_tokens=CALL_TOKENS, temperature=0)
    calls = _only_calls(reply)
    assert len(calls) == 1, "parallel calls are off unless parallel_tool_calls is true"
    _runnable(calls[0])


def test_named_function_is_the_one_called(client: OpenAI, model: str) -> None:
    reply = client.chat.completions.create(model=model, messages=_user(ASK), tools=TOOLS,
                                           tool_choice=_named("get_time"),
                                           max_tokens=CALL_TOKENS, temperature=0)
    calls = _only_calls(reply)
    assert len(calls) == 1
    _runnable(calls[0], name="get_time")


def test_none_answers_in_words(client: OpenAI, model: str) -> None:
    reply = client.chat.completions.create(model=model, messages=_user(ASK), tools=TOOLS, tool_choice="none",
                                           max_tokens=12, temperature=0)
    choice = reply.choices[0]
    assert choice.finish_reason in ("stop", "length")
    assert choice.message.tool_calls is None
    assert choice.message.content
    assert '"tool_calls"' not in choice.message.content


def test_auto_gives_calls_or_words(client: OpenAI, model: str) -> None:
    reply = client.chat.completions.create(model=model, messages=_user(ASK), tools=TOOLS, tool_choice="auto",
                                           max_tokens=CALL_TOKENS, temperature=0)
    _calls_or_words(reply)


def test_a_call_cut_by_the_token_cap_is_length(client: OpenAI, model: str) -> None:
    # 20 tokens reach the function name but not the end of the arguments.
    reply = client.chat.completions.create(model=model, messages=_user(ASK), tools=TOOLS, tool_choice="required",
                                           max_tokens=20, temperature=0)
    choice = reply.choices[0]
    assert choice.finish_reason == "length"
    assert choice.message.tool_calls, "the cut reply still shows the call it began"
    cut = choice.message.tool_calls[0]
    assert isinstance(cut, ChatCompletionMessageFunctionToolCall)
    with pytest.raises(json.JSONDecodeError):
        json.loads(cut.function.arguments)


def test_a_streamed_call_cut_by_the_token_cap_is_length(client: OpenAI, model: str) -> None:
    chunks = list(client.chat.completions.create(model=model, messages=_user(ASK), tools=TOOLS,
                                                 tool_choice="required", max_tokens=20, temperature=0, stream=True))
    assert any(c.choices and c.choices[0].delta.tool_calls for c in chunks)
    assert chunks[-1].choices[0].finish_reason == "length"


def _complete_calls(calls: list[Any], finish_reason: str | None) -> list[Any]:
    """The calls a client may run: all of them after "tool_calls"; after "length", all but the cut last one."""
    assert finish_reason in ("tool_calls", "length")
    return calls if finish_reason == "tool_calls" else calls[:-1]


def test_parallel_calls_are_each_runnable(client: OpenAI, model: str) -> None:
    # Greedy decoding on the 135M model tends to repeat calls until the cap; every finished call must still be
    # runnable, and only a reply that ended by itself is "tool_calls".
    reply = client.chat.completions.create(model=model, messages=_user(PARALLEL_ASK), tools=TOOLS,
                                           tool_choice="required", parallel_tool_calls=True,
                                           max_tokens=PARALLEL_TOKENS, temperature=0)
    choice = reply.choices[0]
    assert not choice.message.content
    calls = list(choice.message.tool_calls or [])
    assert len(calls) >= 2, "parallel_tool_calls: true allows several calls in one reply"
    assert len({c.id for c in calls}) == len(calls)
    for call in _complete_calls(calls, choice.finish_reason):
        _runnable(call)


# ---- streaming -------------------------------------------------------------------------------------------


def _check_call_deltas(chunks: list[ChatCompletionChunk]) -> dict[int, dict[str, str]]:
    """OpenAI's partial shape: one opening entry (id, name) per index, then argument fragments only."""
    assert chunks[0].choices[0].delta.role == "assistant"
    calls: dict[int, dict[str, str]] = {}
    for chunk in chunks:
        if not chunk.choices:
            continue
        delta = chunk.choices[0].delta
        assert not delta.content, f"call text leaked into content: {delta.content!r}"
        for entry in delta.tool_calls or []:
            assert entry.function is not None
            if entry.index not in calls:
                assert entry.id and entry.type == "function" and entry.function.name, "the opening entry"
                calls[entry.index] = {"id": entry.id, "name": entry.function.name,
                                      "arguments": entry.function.arguments or ""}
            else:
                assert entry.id is None and entry.function.name is None, "only the opening entry names the call"
                calls[entry.index]["arguments"] += entry.function.arguments or ""
    assert sorted(calls) == list(range(len(calls)))
    return calls


def test_streamed_call_by_hand(client: OpenAI, model: str) -> None:
    chunks = list(client.chat.completions.create(model=model, messages=_user(_fresh(ASK)), tools=TOOLS,
                                                 tool_choice="required", max_tokens=CALL_TOKENS, temperature=0,
                                                 stream=True))
    calls = _check_call_deltas(chunks)
    assert len(calls) == 1
    fragments = sum(1 for c in chunks if c.choices and c.choices[0].delta.tool_calls)
    assert fragments > 2, "the arguments should arrive in fragments, not in one piece"
    assert chunks[-1].choices[0].finish_reason == "tool_calls"
    call = calls[0]
    jsonschema.validate(json.loads(call["arguments"]), PARAMETERS[call["name"]])


def test_streamed_call_through_the_sdk_stream_helper(client: OpenAI, model: str) -> None:
    with client.chat.completions.stream(model=model, messages=_user(_fresh(ASK)), tools=TOOLS,
                                        tool_choice="required", max_tokens=CALL_TOKENS, temperature=0) as stream:
        events = list(stream)
        final = stream.get_final_completion()
    deltas = [e for e in events if e.type == "tool_calls.function.arguments.delta"]
    done = [e for e in events if e.type == "tool_calls.function.arguments.done"]
    assert deltas and len(done) == 1
    assert "".join(e.arguments_delta for e in deltas) == done[0].arguments
    assert not any(e.type == "content.delta" and e.delta for e in events)
    choice = final.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.tool_calls and len(choice.message.tool_calls) == 1
    call = choice.message.tool_calls[0]
    assert call.function.name == done[0].name
    assert call.function.arguments == done[0].arguments
    _runnable(call)


def test_streamed_parallel_calls_use_their_own_indexes(client: OpenAI, model: str) -> None:
    chunks = list(client.chat.completions.create(
        model=model, messages=_user(PARALLEL_ASK), tools=TOOLS, tool_choice="required", parallel_tool_calls=True,
        max_tokens=PARALLEL_TOKENS, temperature=0, stream=True))
    calls = _check_call_deltas(chunks)
    assert len(calls) >= 2
    assert len({c["id"] for c in calls.values()}) == len(calls)
    for call in _complete_calls([calls[i] for i in sorted(calls)], chunks[-1].choices[0].finish_reason):
        jsonschema.validate(json.loads(call["arguments"]), PARAMETERS[call["name"]])


# ---- conversations with tool results -----------------------------------------------------------------------


def _tool_turns(call_id: str = "call_abc123") -> list[Any]:
    return [
        {"role": "user", "content": ASK},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": call_id, "type": "function",
             "function": {"name": "get_weather", "arguments": '{"city": "Paris", "unit": "celsius"}'}}]},
        {"role": "tool", "tool_call_id": call_id, "content": '{"temperature": 21, "sky": "sunny"}'},
    ]


def _multi_turn(client: OpenAI, model: str, choice: Any) -> ChatCompletion:
    """Answer a conversation holding a call and its result, checking that both reached the prompt."""
    turns = _tool_turns()
    reply = client.chat.completions.create(model=model, messages=turns, tools=TOOLS, tool_choice=choice,
                                           max_tokens=24, temperature=0)

    def prompt_tokens(messages: list[Any]) -> int:
        probe = client.chat.completions.create(model=model, messages=messages, tools=TOOLS, tool_choice=choice,
                                               max_tokens=1, temperature=0)
        assert probe.usage is not None
        return probe.usage.prompt_tokens

    assert reply.usage is not None
    without_call = [turns[0], {"role": "assistant", "content": ""}, turns[2]]
    assert reply.usage.prompt_tokens > prompt_tokens(without_call), "the assistant's call was left out of the prompt"
    assert reply.usage.prompt_tokens > prompt_tokens(turns[:2]), "the tool result was left out of the prompt"
    return reply


def test_tool_result_conversation_is_answered(client: OpenAI, model: str) -> None:
    reply = _multi_turn(client, model, "none")
    choice = reply.choices[0]
    assert choice.message.content
    assert choice.message.tool_calls is None


def _calls_or_words(reply: ChatCompletion) -> None:
    """What tool_choice auto may give: runnable calls, words, or a reply the token cap cut (either kind)."""
    choice = reply.choices[0]
    if choice.finish_reason == "tool_calls":
        for call in _only_calls(reply):
            _runnable(call)
    elif choice.message.tool_calls:
        assert choice.finish_reason == "length"
        assert not choice.message.content
    else:
        assert choice.finish_reason in ("stop", "length")
        assert choice.message.content
        assert "<tool_call>" not in choice.message.content
        # The generic format's envelope is the server's business, never the client's.
        assert not choice.message.content.lstrip().startswith(('{"response"', '{"tool_calls"'))


def test_tool_result_conversation_with_auto(client: OpenAI, model: str) -> None:
    _calls_or_words(_multi_turn(client, model, "auto"))


# ---- refused requests ------------------------------------------------------------------------------------


def _refused(client: OpenAI, model: str, **kwargs: Any) -> dict[str, Any]:
    with pytest.raises(openai.BadRequestError) as caught:
        client.chat.completions.create(model=model, messages=_user(ASK), max_tokens=4, **kwargs)
    assert caught.value.status_code == 400
    body = caught.value.body
    assert isinstance(body, dict)
    return body


def test_tool_choice_naming_an_unknown_function_is_a_400(client: OpenAI, model: str) -> None:
    error = _refused(client, model, tools=TOOLS, tool_choice=_named("launch"))
    assert error["param"] == "tool_choice"
    assert "launch" in error["message"]


def test_required_without_tools_is_a_400(client: OpenAI, model: str) -> None:
    assert _refused(client, model, tool_choice="required")["param"] == "tool_choice"


def test_unknown_tool_choice_word_is_a_400(client: OpenAI, model: str) -> None:
    assert _refused(client, model, tools=TOOLS, tool_choice="sometimes")["param"] == "tool_choice"


def test_a_tool_that_is_not_a_function_is_a_400(client: OpenAI, model: str) -> None:
    error = _refused(client, model, tools=[WEATHER, {"type": "function", "function": {"description": "no name"}}])
    assert error["param"] == "tools[1]"


def test_response_format_with_tools_is_a_400(client: OpenAI, model: str) -> None:
    error = _refused(client, model, tools=TOOLS, response_format={"type": "json_object"})
    assert error["param"] == "response_format"


def test_tool_parameters_the_grammar_cannot_express_are_a_400(client: OpenAI, model: str) -> None:
    broken: Any = {"type": "function", "function": {"name": "f", "parameters": {
        "type": "object", "properties": {"a": {"type": "string", "format": "colour-name"}}}}}
    error = _refused(client, model, tools=[broken], tool_choice="required")
    assert error["message"].startswith("constraint unsatisfiable: ")
    assert error["param"] == "tool_choice"


# ---- the Hermes format, on a template that reads tools ------------------------------------------------------


@pytest.fixture(scope="module")
def hermes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    log = tmp_path_factory.mktemp("hermes") / "serve.log"
    # One llama.cpp thread: on a shared two-core machine a second multi-threaded server spends its time in
    # thread barriers; one thread keeps its pace steady.
    running = start_server([DEFAULT_MODEL, "--chat-template-file", str(HERMES_TEMPLATE), "--parallel", "2",
                            "--ctx-size", "2048", "--threads", "1"], log)
    yield running
    stop_server(running)


@pytest.fixture(scope="module")
def hermes_client(hermes: RunningServer) -> Iterator[OpenAI]:
    with OpenAI(base_url=hermes.base_url + "/v1", api_key="unused", max_retries=0, timeout=180) as sdk:
        yield sdk


def test_hermes_template_reports_tool_support(hermes_client: OpenAI) -> None:
    listed = hermes_client.models.retrieve(DEFAULT_MODEL)
    capabilities = listed.model_extra["capabilities"] if listed.model_extra else {}
    assert capabilities["tools"] is True


def test_hermes_required_gives_a_runnable_call(hermes_client: OpenAI) -> None:
    reply = hermes_client.chat.completions.create(model=DEFAULT_MODEL, messages=_user(ASK), tools=TOOLS,
                                                  tool_choice="required", max_tokens=CALL_TOKENS, temperature=0)
    calls = _only_calls(reply)
    assert len(calls) == 1
    _runnable(calls[0])


def test_hermes_named_function_streams_as_partial_deltas(hermes_client: OpenAI) -> None:
    chunks = list(hermes_client.chat.completions.create(
        model=DEFAULT_MODEL, messages=_user(_fresh(ASK)), tools=TOOLS,
        tool_choice=_named("get_weather"),
        max_tokens=CALL_TOKENS, temperature=0, stream=True))
    calls = _check_call_deltas(chunks)
    assert [c["name"] for c in calls.values()] == ["get_weather"]
    assert chunks[-1].choices[0].finish_reason == "tool_calls"
    jsonschema.validate(json.loads(calls[0]["arguments"]), PARAMETERS["get_weather"])
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert "<tool_call>" not in text and "</tool_call>" not in text


def test_hermes_auto_gives_calls_or_words(hermes_client: OpenAI) -> None:
    reply = hermes_client.chat.completions.create(model=DEFAULT_MODEL, messages=_user(ASK), tools=TOOLS,
                                                  tool_choice="auto", max_tokens=16, temperature=0)
    _calls_or_words(reply)


def test_hermes_tool_result_conversation_is_answered(hermes_client: OpenAI) -> None:
    _calls_or_words(_multi_turn(hermes_client, DEFAULT_MODEL, "auto"))
