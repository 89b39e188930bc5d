"""Tool calling in each native call format, through the official openai SDK.

One server per template family, each on the bundled SmolLM2 with conformance/templates/<family>_tools.jinja:
Hermes (``<tool_call>``), Llama 3.1 (a reply that is ``{"name", "parameters"}``), Mistral (``[TOOL_CALLS][...]``)
and Gemma 3 (a ``tool_code`` block). The servers run one after another, never two at once.

The 135M model knows none of these formats, so ``required`` and named calls lean on the grammar alone. For
``auto``, where the grammar waits for the model to write the format's trigger, a few-shot history of earlier
calls gets greedy decoding to write it on its own in the Hermes and Gemma formats; on Llama 3 and Mistral
templates it does not (it keeps writing user turns, or ends at once), so there ``auto`` is only checked to give
runnable calls or clean words.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from openai import OpenAI

from conformance.server import DEFAULT_MODEL, start_server, stop_server
from conformance.tool_checks import (
    ASK,
    MARKUP,
    PARALLEL_ASK,
    PARAMETERS,
    TOOLS,
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

TEMPLATES = Path(__file__).parent / "templates"
FAMILIES = ["hermes", "llama3", "mistral", "gemma"]
CALL_TOKENS = 60  # room for one whole call in every format
PARALLEL_TOKENS = 100
CUT_TOKENS = {"hermes": 20, "llama3": 12, "mistral": 20, "gemma": 12}
"""Enough to name the function but not to finish its arguments."""
FEW_SHOTS = {"hermes": 3, "gemma": 3}
"""Earlier call turns after which greedy decoding writes the family's trigger by itself."""


@pytest.fixture(scope="module", params=FAMILIES)
def family(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, OpenAI]]:
    name = str(request.param)
    log = tmp_path_factory.mktemp(name) / "serve.log"
    # One llama.cpp thread: on a shared two-core machine a second multi-threaded server spends its time in
    # thread barriers; one thread keeps its pace steady.
    running = start_server([DEFAULT_MODEL, "--chat-template-file", str(TEMPLATES / f"{name}_tools.jinja"),
                            "--parallel", "2", "--ctx-size", "2048", "--threads", "1"], log)
    try:
        with OpenAI(base_url=running.base_url + "/v1", api_key="unused", max_retries=0, timeout=180) as sdk:
            yield name, sdk
    finally:
        stop_server(running)


def _create(client: OpenAI, messages: list[Any], **kwargs: Any) -> Any:
    options: dict[str, Any] = {"tools": TOOLS, "max_tokens": CALL_TOKENS, "temperature": 0, **kwargs}
    return client.chat.completions.create(model=DEFAULT_MODEL, messages=messages, **options)


def _stream(client: OpenAI, messages: list[Any], **kwargs: Any) -> list[Any]:
    return list(_create(client, messages, stream=True, **kwargs))


def _check_id(fmt: str, call_id: str) -> None:
    if fmt == "mistral":  # its templates take nothing else back
        assert len(call_id) == 9 and call_id.isascii() and call_id.isalnum(), call_id
    else:
        assert call_id.startswith("call_"), call_id


def test_template_reports_tool_support(family: tuple[str, OpenAI]) -> None:
    _, client = family
    listed = client.models.retrieve(DEFAULT_MODEL)
    capabilities = listed.model_extra["capabilities"] if listed.model_extra else {}
    assert capabilities["tools"] is True


def test_required_gives_one_runnable_call(family: tuple[str, OpenAI]) -> None:
    fmt, client = family
    calls = only_calls(_create(client, user(ASK), tool_choice="required"))
    assert len(calls) == 1, "parallel calls are off unless parallel_tool_calls is true"
    runnable(calls[0])
    _check_id(fmt, calls[0].id)


def test_named_function_is_the_one_called(family: tuple[str, OpenAI]) -> None:
    _, client = family
    calls = only_calls(_create(client, user(ASK), tool_choice=named("get_time")))
    assert len(calls) == 1
    runnable(calls[0], name="get_time")


def test_streamed_call_opens_with_id_and_name_then_streams_its_arguments(family: tuple[str, OpenAI]) -> None:
    fmt, client = family
    ask = user(fresh(ASK))
    chunks = _stream(client, ask, tool_choice=named("get_weather"))
    calls = check_call_deltas(chunks)  # also: no content at all, so no call text leaked into it
    assert [c["name"] for c in calls.values()] == ["get_weather"]
    assert chunks[-1].choices[0].finish_reason == "tool_calls"
    _check_id(fmt, calls[0]["id"])
    fragments = sum(1 for c in chunks if c.choices and c.choices[0].delta.tool_calls)
    assert fragments > 2, "the arguments should arrive in fragments, not in one piece"
    jsonschema.validate(json.loads(calls[0]["arguments"]), PARAMETERS["get_weather"])
    whole = only_calls(_create(client, ask, tool_choice=named("get_weather")))[0]
    assert calls[0]["arguments"] == whole.function.arguments, "joined fragments are the non-streamed arguments"


def test_streamed_call_through_the_sdk_stream_helper(family: tuple[str, OpenAI]) -> None:
    _, client = family
    stream_helper_call(client, DEFAULT_MODEL, CALL_TOKENS)


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_a_call_cut_by_the_token_cap_is_length(family: tuple[str, OpenAI], stream: bool) -> None:
    fmt, client = family
    options = {"tool_choice": "required", "max_tokens": CUT_TOKENS[fmt]}
    if stream:
        chunks = _stream(client, user(ASK), **options)
        calls = check_call_deltas(chunks)
        assert chunks[-1].choices[0].finish_reason == "length"
        arguments = calls[0]["arguments"] if calls else None
    else:
        choice = _create(client, user(ASK), **options).choices[0]
        assert choice.finish_reason == "length"
        assert not choice.message.content
        arguments = choice.message.tool_calls[0].function.arguments if choice.message.tool_calls else None
    assert arguments is not None, "the cut reply still shows the call it began"
    with pytest.raises(json.JSONDecodeError):
        json.loads(arguments)


def test_parallel_calls_are_each_runnable(family: tuple[str, OpenAI]) -> None:
    fmt, client = family
    chunks = _stream(client, user(PARALLEL_ASK), tool_choice="required", parallel_tool_calls=True,
                     max_tokens=PARALLEL_TOKENS)
    calls = [c for _, c in sorted(check_call_deltas(chunks).items())]
    assert calls and len({c["id"] for c in calls}) == len(calls)
    if fmt == "llama3":
        assert len(calls) == 1, "Llama 3's format holds one call (as in llama.cpp)"
    for call in complete_calls(calls, chunks[-1].choices[0].finish_reason):
        jsonschema.validate(json.loads(call["arguments"]), PARAMETERS[call["name"]])


def test_none_makes_no_calls(family: tuple[str, OpenAI]) -> None:
    _, client = family
    choice = _create(client, user(ASK), tool_choice="none", max_tokens=16).choices[0]
    assert choice.finish_reason in ("stop", "length")
    assert choice.message.tool_calls is None


def test_auto_gives_calls_or_words(family: tuple[str, OpenAI]) -> None:
    _, client = family
    calls_or_words(_create(client, user(ASK), tool_choice="auto", max_tokens=24))


# ---- conversations with tool results -----------------------------------------------------------------------


def _prompt_tokens(client: OpenAI, messages: list[Any], choice: Any) -> int:
    probe = _create(client, messages, tool_choice=choice, max_tokens=1)
    assert probe.usage is not None
    return int(probe.usage.prompt_tokens)


@pytest.mark.parametrize("choice", ["required", "none"])
def test_tool_result_conversation_renders_and_is_answered(family: tuple[str, OpenAI], choice: str) -> None:
    _, client = family
    turns = [*tool_turns(), {"role": "user", "content": "And what time is it in Tokyo?"}]
    reply = _create(client, turns, tool_choice=choice, max_tokens=CALL_TOKENS if choice == "required" else 16)
    without_call = [turns[0], {"role": "assistant", "content": ""}, *turns[2:]]
    assert reply.usage is not None
    assert reply.usage.prompt_tokens > _prompt_tokens(client, without_call, choice), "the call was left out"
    without_result = [*turns[:2], turns[3]]
    assert reply.usage.prompt_tokens > _prompt_tokens(client, without_result, choice), "the result was left out"
    choice_out = reply.choices[0]
    if choice == "required":
        for call in only_calls(reply):
            runnable(call)
    else:
        assert choice_out.message.tool_calls is None
        assert choice_out.finish_reason in ("stop", "length")


# ---- auto: the grammar engages where the model writes the trigger -------------------------------------------

CITIES = [("Paris", 21), ("Oslo", 5), ("Rome", 25), ("Lima", 18)]
KELVIN = {"type": "object", "required": ["city", "unit"],
          "properties": {"city": {"type": "string", "maxLength": 20}, "unit": {"enum": ["kelvin"]}}}
"""Earlier turns called with "celsius"; a reply that copies them unconstrained would too."""


def _few_shot(shots: int) -> list[Any]:
    messages: list[Any] = []
    for i, (city, degrees) in enumerate(CITIES[:shots]):
        call_id = f"call{i}abcd"  # nine alphanumeric characters: Mistral's templates take them as they are
        messages += [
            {"role": "user", "content": f"What is the weather in {city}?"},
            {"role": "assistant", "content": None, "tool_calls": [{"id": call_id, "type": "function", "function": {
                "name": "get_weather", "arguments": json.dumps({"city": city, "unit": "celsius"})}}]},
            {"role": "tool", "tool_call_id": call_id, "content": json.dumps({"temperature": degrees})},
            {"role": "assistant", "content": f"It is {degrees} degrees in {city}."},
        ]
    return [*messages, {"role": "user", "content": "What is the weather in Madrid?"}]


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_auto_call_after_a_few_shot_history(family: tuple[str, OpenAI], stream: bool) -> None:
    fmt, client = family
    tools = [{"type": "function", "function": {"name": "get_weather", "description": "The current weather",
                                               "parameters": KELVIN}}]
    if fmt not in FEW_SHOTS:
        # The model does not write this family's trigger (module docstring): auto must still give runnable calls
        # or clean words after a history full of calls, never call markup in the content.
        messages = _few_shot(3)
        if stream:
            chunks = _stream(client, messages, tools=tools, tool_choice="auto")
            finish = chunks[-1].choices[0].finish_reason
            if any(c.choices and c.choices[0].delta.tool_calls for c in chunks):
                check_call_deltas(chunks)
                assert finish in ("tool_calls", "length")
            else:
                content = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
                assert finish in ("stop", "length")
                assert not any(mark in content for mark in MARKUP), content
        else:
            calls_or_words(_create(client, messages, tools=tools, tool_choice="auto"))
        return
    messages = _few_shot(FEW_SHOTS[fmt])
    if stream:
        chunks = _stream(client, messages, tools=tools, tool_choice="auto")
        calls = check_call_deltas(chunks)
        assert chunks[-1].choices[0].finish_reason == "tool_calls"
        assert len(calls) == 1
        arguments = json.loads(calls[0]["arguments"])
    else:
        reply = _create(client, messages, tools=tools, tool_choice="auto")
        calls_made = only_calls(reply)
        assert len(calls_made) == 1
        arguments = runnable(calls_made[0], parameters={"get_weather": KELVIN})
        assert not any(mark in (reply.choices[0].message.content or "") for mark in MARKUP)
    jsonschema.validate(arguments, KELVIN)  # "kelvin": the grammar, not the copied history, wrote the arguments
