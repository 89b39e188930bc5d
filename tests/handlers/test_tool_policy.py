"""A request's tools and tool choice as the engine's ToolPolicy: OpenAI's fields (chat completions and Responses)
read by handlers/openai/params.py, a bad choice a 400 naming the field."""

from __future__ import annotations

from typing import Any

import pytest

from superfluid.errors import InvalidRequest
from superfluid.handlers.openai.params import tool_policy

WEATHER = {"type": "function", "function": {"name": "get_weather", "description": "Weather",
                                            "parameters": {"type": "object",
                                                           "properties": {"city": {"type": "string"}}}}}
CLOCK = {"type": "function", "function": {"name": "get_time"}}


def test_policy_defaults() -> None:
    policy = tool_policy([WEATHER, CLOCK], None, None)
    assert policy.choice == "auto" and policy.parallel is False and policy.active
    assert [t.name for t in policy.tools] == ["get_weather", "get_time"]
    clock = policy.tools[1]
    assert clock.description == "" and clock.parameters == {"type": "object", "properties": {}}
    assert not tool_policy(None, None, None).active


@pytest.mark.parametrize("parallel, expected", [(True, True), (False, False), (None, False)])
def test_parallel_only_when_asked(parallel: bool | None, expected: bool) -> None:
    assert tool_policy([WEATHER], "required", parallel).parallel is expected


def test_named_choice_narrows_the_callable_tools() -> None:
    policy = tool_policy([WEATHER, CLOCK], {"type": "function", "function": {"name": "get_time"}}, None)
    assert policy.choice == "get_time"
    assert [t.name for t in policy.callable_tools()] == ["get_time"]


def test_none_is_inactive_but_keeps_the_tools() -> None:
    policy = tool_policy([WEATHER], "none", None)
    assert not policy.active
    assert len(policy.tools) == 1


@pytest.mark.parametrize("tools, choice, param, words", [
    ([WEATHER], {"type": "function", "function": {"name": "launch"}}, "tool_choice", "launch"),
    ([WEATHER], {"type": "function"}, "tool_choice", "name a function"),
    ([WEATHER], "sometimes", "tool_choice", "sometimes"),
    (None, "required", "tool_choice", "no tools"),
    ([], {"type": "function", "function": {"name": "get_weather"}}, "tool_choice", "not in tools"),
    ([WEATHER, {"type": "retrieval"}], None, "tools[1]", "function"),
    ([{"type": "function", "function": {"description": "nameless"}}], None, "tools[0]", "name"),
], ids=["unknown_function", "choice_without_name", "unknown_word", "required_without_tools",
        "named_without_tools", "not_a_function", "function_without_name"])
def test_bad_policies_are_400s_naming_the_field(tools: Any, choice: Any, param: str, words: str) -> None:
    with pytest.raises(InvalidRequest) as caught:
        tool_policy(tools, choice, None)
    assert caught.value.param == param
    assert words in str(caught.value)
