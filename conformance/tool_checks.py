"""What the tool-calling conformance modules share: the tools, the requests, and the checks on what comes back.

Every call the server hands back must be runnable: an id, a name from ``tools`` and arguments that parse and
validate against that function's parameters.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

import jsonschema
from openai import OpenAI
from openai.types.chat import ChatCompletion, ChatCompletionChunk, ChatCompletionMessageFunctionToolCall

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
PARALLEL_ASK = "What is the weather in Paris and the time in Tokyo?"
MARKUP = ("<tool_call>", "</tool_call>", "[TOOL_CALLS]", "```tool_code", '{"tool_calls"', '{"response"')
"""Call markup of every format; none of it may reach a reply's content."""


def user(text: str) -> list[Any]:
    return [{"role": "user", "content": text}]


def named(name: str) -> Any:
    return {"type": "function", "function": {"name": name}}


def fresh(text: str) -> str:
    return f"{text} (request {uuid.uuid4().hex[:8]})"


def runnable(call: Any, *, name: str | None = None, parameters: dict[str, Any] | None = None) -> dict[str, Any]:
    """Assert a call is complete and valid; returns its parsed arguments."""
    parameters = parameters or PARAMETERS
    assert isinstance(call, ChatCompletionMessageFunctionToolCall)
    assert call.type == "function"
    assert call.id, "a call needs an id the tool result can refer to"
    assert call.function.name in parameters
    if name is not None:
        assert call.function.name == name
    arguments = json.loads(call.function.arguments)
    jsonschema.validate(arguments, parameters[call.function.name])
    # Argument objects without additionalProperties are closed: only the declared keys appear.
    assert set(arguments) <= set(parameters[call.function.name]["properties"])
    return dict(arguments)


def only_calls(reply: ChatCompletion) -> list[Any]:
    choice = reply.choices[0]
    assert choice.finish_reason == "tool_calls", choice.message
    assert not choice.message.content, "no call text may leak into content"
    calls = choice.message.tool_calls
    assert calls
    assert len({c.id for c in calls}) == len(calls), "call ids must be distinct"
    return list(calls)


def complete_calls(calls: list[Any], finish_reason: str | None) -> list[Any]:
    """The calls a client may run: all of them after "tool_calls"; after "length", all but the cut last one."""
    assert finish_reason in ("tool_calls", "length")
    return calls if finish_reason == "tool_calls" else calls[:-1]


def check_call_deltas(chunks: list[ChatCompletionChunk]) -> dict[int, dict[str, str]]:
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


def calls_or_words(reply: ChatCompletion) -> None:
    """What tool_choice auto may give: runnable calls, words, or a reply the token cap cut (either kind)."""
    choice = reply.choices[0]
    if choice.finish_reason == "tool_calls":
        for call in only_calls(reply):
            runnable(call)
    elif choice.message.tool_calls:
        assert choice.finish_reason == "length"
        assert not choice.message.content
    else:
        assert choice.finish_reason in ("stop", "length")
        content = choice.message.content or ""
        # Call markup (and the generic format's envelope) is the server's business, never the client's.
        assert not any(mark in content for mark in MARKUP), content
        assert not content.lstrip().startswith('{"name"'), content


def tool_turns(call_id: str = "call_abc123") -> list[Any]:
    return [
        {"role": "user", "content": ASK},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": call_id, "type": "function",
             "function": {"name": "get_weather", "arguments": '{"city": "Paris", "unit": "celsius"}'}}]},
        {"role": "tool", "tool_call_id": call_id, "content": '{"temperature": 21, "sky": "sunny"}'},
    ]


def stream_helper_call(client: OpenAI, model: str, max_tokens: int) -> tuple[Any, Any]:
    """Ask for a required call through the SDK's ``chat.completions.stream`` helper and check what it assembles:
    argument deltas that join up to one ``done`` event, no content, and a final completion holding that one
    call, runnable. Returns the call and the ``done`` event."""
    with client.chat.completions.stream(model=model, messages=user(fresh(ASK)), tools=TOOLS,
                                        tool_choice="required", max_tokens=max_tokens, temperature=0) as stream:
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
    assert call.function.arguments == done[0].arguments
    runnable(call)
    return call, done[0]
