"""Tool calling: policies from OpenAI fields, call ids, and the call format each template speaks.

The grammars are tested in test_tool_grammars.py, the incremental readers in test_tool_readers.py.
"""

from __future__ import annotations

from typing import Any

import pytest

from superfluid.engine.decoding.tool_calls import (
    mistral_call_id,
    new_call_id,
    new_mistral_call_id,
    policy_from_openai,
    solar_call_id,
    tool_format,
)
from superfluid.errors import InvalidRequest

# ---- policy_from_openai -----------------------------------------------------------------------------------

WEATHER = {"type": "function", "function": {"name": "get_weather", "description": "Weather",
                                            "parameters": {"type": "object",
                                                           "properties": {"city": {"type": "string"}}}}}
CLOCK = {"type": "function", "function": {"name": "get_time"}}


def test_policy_defaults() -> None:
    policy = policy_from_openai([WEATHER, CLOCK], None, None)
    assert policy.choice == "auto" and policy.parallel is False and policy.active
    assert [t.name for t in policy.tools] == ["get_weather", "get_time"]
    clock = policy.tools[1]
    assert clock.description == "" and clock.parameters == {"type": "object", "properties": {}}
    assert not policy_from_openai(None, None, None).active


@pytest.mark.parametrize("parallel, expected", [(True, True), (False, False), (None, False)])
def test_parallel_only_when_asked(parallel: bool | None, expected: bool) -> None:
    assert policy_from_openai([WEATHER], "required", parallel).parallel is expected


def test_named_choice_narrows_the_callable_tools() -> None:
    policy = policy_from_openai([WEATHER, CLOCK], {"type": "function", "function": {"name": "get_time"}}, None)
    assert policy.choice == "get_time"
    assert [t.name for t in policy.callable_tools()] == ["get_time"]


def test_none_is_inactive_but_keeps_the_tools() -> None:
    policy = policy_from_openai([WEATHER], "none", None)
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
        policy_from_openai(tools, choice, None)
    assert caught.value.param == param
    assert words in str(caught.value)


# ---- call ids ---------------------------------------------------------------------------------------------


def test_call_ids() -> None:
    assert new_call_id().startswith("call_")
    ids = {new_mistral_call_id() for _ in range(50)}
    assert len(ids) == 50
    assert all(len(i) == 9 and i.isascii() and i.isalnum() for i in ids)


def test_mistral_history_ids_are_stable_nine_character_digests() -> None:
    assert mistral_call_id("abcDEF123") == "abcDEF123", "an id that already fits is kept"
    mapped = mistral_call_id("call_5f0c2e")
    assert len(mapped) == 9 and mapped.isascii() and mapped.isalnum()
    assert mistral_call_id("call_5f0c2e") == mapped, "a call and the result naming it map alike"
    assert mistral_call_id("call_5f0c2f") != mapped
    assert mistral_call_id("abc-EF123") != "abc-EF123"


def test_solar_history_ids_are_stable_ten_character_lowercase_digests() -> None:
    assert solar_call_id("a1b2c3d4e5") == "a1b2c3d4e5", "an id that already fits is kept"
    mapped = solar_call_id("call_5f0c2e")
    assert len(mapped) == 10 and all(ch.isdigit() or "a" <= ch <= "z" for ch in mapped)
    assert solar_call_id("call_5f0c2e") == mapped, "a call and the result naming it map alike"
    assert solar_call_id("call_5f0c2f") != mapped
    for unfit in ("A1B2C3D4E5", "a1b2c3d4e", "a1b2c3d4e5f", "a1b2c3-4e5", "é1b2c3d4e5"):
        fitted = solar_call_id(unfit)
        assert fitted != unfit and len(fitted) == 10 and fitted.isascii() and fitted == fitted.lower()
    assert mistral_call_id("call_5f0c2e") == "IUS1C9qxf", "Mistral's digest is unchanged"


# ---- which format a template speaks ---------------------------------------------------------------------------


@pytest.mark.parametrize("source, supports, expected", [
    ("{{ tools }} <tool_call>", True, "hermes"),
    ("{{ tools }} [TOOL_CALLS]", True, "mistral"),
    ("{{ tools }} <|python_tag|>", True, "llama3"),
    ("{{ tools }} <|start_header_id|>ipython<|end_header_id|> {\"name\": .., \"parameters\": ..}", True, "llama3"),
    ("{{ tools }} ipython without the JSON shape", True, "generic"),
    ("{{ tools }} ```tool_code", True, "gemma"),
    ("{{ tools }} <|open|>message<|sep|> <|close|>message<|sep|><|end_of_msg|>", True, "kimi_k3"),
    ("<|open|>message<|sep|> <|close|>message<|sep|><|end_of_msg|> without reading tools", False, "generic"),
    ("{{ tools }} <|start|>assistant to=f<|message|><atem:function_calls><|eom|>", True, "muse_glimmer"),
    ("<atem:function_calls><|eom|> without reading tools", False, "generic"),
    ("{{ tools }} some other way", True, "generic"),
    ("<tool_call> without reading tools", False, "generic"),
    ("[TOOL_CALLS] without reading tools", False, "generic"),
    ("tool_code without reading tools", False, "generic"),
    ("plain chatml", False, "generic"),
])
def test_tool_format_is_chosen_from_the_template(source: str, supports: bool, expected: str) -> None:
    assert tool_format(source, supports) == expected
