"""Tool calling through the official openai SDK, on the bundled model's own template (the generic format).

The bundled SmolLM2 template has no tool support, so the server uses its generic JSON call format. The native
formats (Hermes, Llama 3, Mistral, Gemma), each on a template of its family, are in test_tool_formats.py. A
reply cut by the token cap is never ``tool_calls``.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import jsonschema
import openai
import pytest
from openai import OpenAI
from openai.types.chat import ChatCompletion, ChatCompletionMessageFunctionToolCall

from conformance.server import metric
from conformance.tool_checks import (
    ASK,
    PARALLEL_ASK,
    PARAMETERS,
    TOOLS,
    WEATHER,
    calls_or_words,
    check_call_deltas,
    complete_calls,
    fresh,
    named,
    only_calls,
    runnable,
    stream_helper_call,
    tool_turns,
    user,
)

CALL_TOKENS = 60  # room for one whole call
PARALLEL_TOKENS = 80
REPEAT_CAP = 400  # far more than a few calls take
REPEATS = "superfluid_tool_call_repeats_total"  # replies the server ended at a repeated call


# ---- tool_choice on the bundled model (generic format) ---------------------------------------------------


def test_required_gives_one_runnable_call(client: OpenAI, model: str) -> None:
    reply = client.chat.completions.create(model=model, messages=user(ASK), tools=TOOLS, tool_choice="required",
                                           max_tokens=CALL_TOKENS, temperature=0)
    calls = only_calls(reply)
    assert len(calls) == 1, "parallel calls are off unless parallel_tool_calls is true"
    runnable(calls[0])


def test_named_function_is_the_one_called(client: OpenAI, model: str) -> None:
    reply = client.chat.completions.create(model=model, messages=user(ASK), tools=TOOLS,
                                           tool_choice=named("get_time"),
                                           max_tokens=CALL_TOKENS, temperature=0)
    calls = only_calls(reply)
    assert len(calls) == 1
    runnable(calls[0], name="get_time")


def test_none_answers_in_words(client: OpenAI, model: str) -> None:
    reply = client.chat.completions.create(model=model, messages=user(ASK), tools=TOOLS, tool_choice="none",
                                           max_tokens=12, temperature=0)
    choice = reply.choices[0]
    assert choice.finish_reason in ("stop", "length")
    assert choice.message.tool_calls is None
    assert choice.message.content
    assert '"tool_calls"' not in choice.message.content


def test_auto_gives_calls_or_words(client: OpenAI, model: str) -> None:
    reply = client.chat.completions.create(model=model, messages=user(ASK), tools=TOOLS, tool_choice="auto",
                                           max_tokens=CALL_TOKENS, temperature=0)
    calls_or_words(reply)


def test_a_call_cut_by_the_token_cap_is_length(client: OpenAI, model: str) -> None:
    # 20 tokens reach the function name but not the end of the arguments.
    reply = client.chat.completions.create(model=model, messages=user(ASK), tools=TOOLS, tool_choice="required",
                                           max_tokens=20, temperature=0)
    choice = reply.choices[0]
    assert choice.finish_reason == "length"
    assert choice.message.tool_calls, "the cut reply still shows the call it began"
    cut = choice.message.tool_calls[0]
    assert isinstance(cut, ChatCompletionMessageFunctionToolCall)
    with pytest.raises(json.JSONDecodeError):
        json.loads(cut.function.arguments)


def test_a_streamed_call_cut_by_the_token_cap_is_length(client: OpenAI, model: str) -> None:
    chunks = list(client.chat.completions.create(model=model, messages=user(ASK), tools=TOOLS,
                                                 tool_choice="required", max_tokens=20, temperature=0, stream=True))
    assert any(c.choices and c.choices[0].delta.tool_calls for c in chunks)
    assert chunks[-1].choices[0].finish_reason == "length"


def test_parallel_calls_are_each_runnable(client: OpenAI, model: str) -> None:
    # Greedy decoding on the 135M model tends to repeat calls until the cap; every finished call must still be
    # runnable, and only a reply that ended by itself is "tool_calls".
    reply = client.chat.completions.create(model=model, messages=user(PARALLEL_ASK), tools=TOOLS,
                                           tool_choice="required", parallel_tool_calls=True,
                                           max_tokens=PARALLEL_TOKENS, temperature=0)
    choice = reply.choices[0]
    assert not choice.message.content
    calls = list(choice.message.tool_calls or [])
    assert len(calls) >= 2, "parallel_tool_calls: true allows several calls in one reply"
    assert len({c.id for c in calls}) == len(calls)
    for call in complete_calls(calls, choice.finish_reason):
        runnable(call)


def test_a_repeated_call_ends_the_reply(client: OpenAI, model: str, http: httpx.Client) -> None:
    # Greedy, with parallel calls allowed, the 135M model goes on calling after the calls a question needs, and
    # soon writes one it already made. The server drops the repeat and ends the reply there (tool-calling.md), far
    # before the cap, with each call once; its metrics count the replies it ended so. Each ask is a reply that
    # must hold no repeat; at least one of them must have been ended by the guard (not by the model).
    ended_by_guard = 0
    for ask in (PARALLEL_ASK, "What is the weather in Paris, London and Rome?"):
        before = metric(http, REPEATS, model=model)
        reply = client.chat.completions.create(model=model, messages=user(ask), tools=TOOLS, tool_choice="required",
                                               parallel_tool_calls=True, max_tokens=REPEAT_CAP, temperature=0)
        choice = reply.choices[0]
        made = list(choice.message.tool_calls or [])
        assert all(isinstance(c, ChatCompletionMessageFunctionToolCall) for c in made)
        calls = [(c.function.name, json.dumps(json.loads(c.function.arguments), sort_keys=True))
                 for c in made if isinstance(c, ChatCompletionMessageFunctionToolCall)]
        assert calls and len(set(calls)) == len(calls), calls
        assert choice.finish_reason == "tool_calls"
        assert reply.usage is not None and reply.usage.completion_tokens < REPEAT_CAP
        ended_by_guard += int(metric(http, REPEATS, model=model) - before)
    assert ended_by_guard >= 1, "a repeated call ended one of the replies"


# ---- streaming -------------------------------------------------------------------------------------------


def test_streamed_call_by_hand(client: OpenAI, model: str) -> None:
    chunks = list(client.chat.completions.create(model=model, messages=user(fresh(ASK)), tools=TOOLS,
                                                 tool_choice="required", max_tokens=CALL_TOKENS, temperature=0,
                                                 stream=True))
    calls = check_call_deltas(chunks)
    assert len(calls) == 1
    fragments = sum(1 for c in chunks if c.choices and c.choices[0].delta.tool_calls)
    assert fragments > 2, "the arguments should arrive in fragments, not in one piece"
    assert chunks[-1].choices[0].finish_reason == "tool_calls"
    call = calls[0]
    jsonschema.validate(json.loads(call["arguments"]), PARAMETERS[call["name"]])


def test_streamed_call_through_the_sdk_stream_helper(client: OpenAI, model: str) -> None:
    call, done = stream_helper_call(client, model, CALL_TOKENS)
    assert call.function.name == done.name


def test_streamed_parallel_calls_use_their_own_indexes(client: OpenAI, model: str) -> None:
    chunks = list(client.chat.completions.create(
        model=model, messages=user(PARALLEL_ASK), tools=TOOLS, tool_choice="required", parallel_tool_calls=True,
        max_tokens=PARALLEL_TOKENS, temperature=0, stream=True))
    calls = check_call_deltas(chunks)
    assert len(calls) >= 2
    assert len({c["id"] for c in calls.values()}) == len(calls)
    for call in complete_calls([calls[i] for i in sorted(calls)], chunks[-1].choices[0].finish_reason):
        jsonschema.validate(json.loads(call["arguments"]), PARAMETERS[call["name"]])


# ---- conversations with tool results -----------------------------------------------------------------------


def _multi_turn(client: OpenAI, model: str, choice: Any) -> ChatCompletion:
    """Answer a conversation holding a call and its result, checking that both reached the prompt."""
    turns = tool_turns()
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


def test_tool_result_conversation_with_auto(client: OpenAI, model: str) -> None:
    calls_or_words(_multi_turn(client, model, "auto"))


# ---- refused requests ------------------------------------------------------------------------------------


def _refused(client: OpenAI, model: str, **kwargs: Any) -> dict[str, Any]:
    with pytest.raises(openai.BadRequestError) as caught:
        client.chat.completions.create(model=model, messages=user(ASK), max_tokens=4, **kwargs)
    assert caught.value.status_code == 400
    body = caught.value.body
    assert isinstance(body, dict)
    return body


def test_tool_choice_naming_an_unknown_function_is_a_400(client: OpenAI, model: str) -> None:
    error = _refused(client, model, tools=TOOLS, tool_choice=named("launch"))
    assert error["param"] == "tool_choice"
    assert "launch" in error["message"]


def test_required_without_tools_is_a_400(client: OpenAI, model: str) -> None:
    assert _refused(client, model, tool_choice="required")["param"] == "tool_choice"


def test_unknown_tool_choice_word_is_a_400(client: OpenAI, model: str) -> None:
    assert _refused(client, model, tools=TOOLS, tool_choice="sometimes")["param"] == "tool_choice"


def test_a_tool_that_is_not_a_function_is_a_400(client: OpenAI, model: str) -> None:
    error = _refused(client, model, tools=[WEATHER, {"type": "function", "function": {"description": "no name"}}])
    assert error["param"] == "tools[1]"


ANSWER_SCHEMA: Any = {"type": "object", "properties": {"city": {"type": "string", "maxLength": 20},
                                                     "summary": {"type": "string", "maxLength": 60}},
                      "required": ["city", "summary"]}


@pytest.mark.parametrize("seed", range(6))
def test_a_schema_beside_tools_gives_a_call_or_valid_json(client: OpenAI, model: str, seed: int) -> None:
    """The OpenAI API allows response_format with tools (codex exec --output-schema sends both): the reply is a
    runnable call, or text that validates against the schema."""
    reply = client.chat.completions.create(
        model=model, messages=user(ASK), tools=TOOLS, max_tokens=120, seed=seed, temperature=1.0,
        response_format={"type": "json_schema", "json_schema": {"name": "answer", "schema": ANSWER_SCHEMA}})
    message = reply.choices[0].message
    if message.tool_calls:
        assert reply.choices[0].finish_reason == "tool_calls"
        for call in message.tool_calls:
            assert isinstance(call, ChatCompletionMessageFunctionToolCall)
            runnable(call)
    else:
        assert reply.choices[0].finish_reason == "stop", message.content
        jsonschema.validate(json.loads(message.content or ""), ANSWER_SCHEMA)


def test_a_responses_text_format_beside_tools_gives_a_call_or_valid_json(client: OpenAI, model: str) -> None:
    tools: Any = [{"type": "function", "name": t["function"]["name"], "description": t["function"]["description"],
                   "parameters": t["function"]["parameters"]} for t in TOOLS]
    completed = 0
    for seed in range(3):
        reply = client.responses.create(
            model=model, input=ASK, tools=tools, max_output_tokens=240, temperature=1.0, store=False,
            text={"format": {"type": "json_schema", "name": "answer", "schema": ANSWER_SCHEMA}},
            extra_body={"seed": seed})
        if reply.status == "incomplete":  # a sampled answer can run past its cap: cut, neither call nor JSON yet
            assert reply.incomplete_details is not None
            assert reply.incomplete_details.reason == "max_output_tokens"
            continue
        assert reply.status == "completed"
        completed += 1
        calls = [item for item in reply.output if item.type == "function_call"]
        if calls:
            assert all(call.name in {t["name"] for t in tools} for call in calls)
            assert all(isinstance(json.loads(call.arguments), dict) for call in calls)
        else:
            jsonschema.validate(json.loads(reply.output_text), ANSWER_SCHEMA)
    assert completed, "at least one of three sampled replies ends by itself"


def test_tool_parameters_the_grammar_cannot_express_are_a_400(client: OpenAI, model: str) -> None:
    broken: Any = {"type": "function", "function": {"name": "f", "parameters": {
        "type": "object", "properties": {"a": {"type": "string", "format": "colour-name"}}}}}
    error = _refused(client, model, tools=[broken], tool_choice="required")
    assert error["message"].startswith("constraint unsatisfiable: ")
    assert error["param"] == "tool_choice"
