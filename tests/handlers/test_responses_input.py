"""Responses requests -> engine types: items, chat messages, tools, text.format, reasoning, log probabilities."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from superfluid.engine.models.chat_template import ChatTemplate
from superfluid.errors import InvalidRequest, UnsupportedInput, UnsupportedParameter
from superfluid.handlers.conversation import reasoning_kwargs
from superfluid.handlers.openai.responses import input as rin

PUBLISHED = Path(__file__).parents[1] / "engine" / "models" / "published_templates"


def _template(variables: set[str], thinks: bool = False) -> Any:
    return SimpleNamespace(variables=frozenset(variables), thinks=thinks, name="t",
                           thinking_switch=ChatTemplate.switch_among(variables))


# ---- input -> items ------------------------------------------------------------------------------------------
def test_a_string_input_is_one_user_message() -> None:
    [item] = rin.input_items("Hi")
    assert item["type"] == "message" and item["role"] == "user" and item["status"] == "completed"
    assert item["content"] == [{"type": "input_text", "text": "Hi"}]
    assert item["id"].startswith("msg_") and len(item["id"]) == 4 + 48


def test_items_get_ids_and_their_stored_shapes() -> None:
    items = rin.input_items([
        {"role": "developer", "content": "Be brief."},
        {"type": "message", "role": "assistant", "content": "Earlier reply", "id": "msg_given"},
        {"type": "function_call", "call_id": "call_1", "name": "f", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "call_1", "output": "42"},
        {"type": "reasoning", "summary": [{"type": "summary_text", "text": "thought"}]},
    ])
    assert [i["id"][:3] for i in items] == ["msg", "msg", "fc_", "fco", "rs_"]
    assert items[1]["id"] == "msg_given"
    assert items[1]["content"] == [{"type": "output_text", "text": "Earlier reply", "annotations": [],
                                    "logprobs": []}]
    assert items[2] == {"type": "function_call", "id": items[2]["id"], "call_id": "call_1", "name": "f",
                        "arguments": "{}", "status": "completed"}
    assert items[3]["output"] == "42"


@pytest.mark.parametrize(("item", "param"), [
    ({"type": "web_search_call", "id": "ws_1"}, "input[0].type"),
    ({"type": "item_reference", "id": "msg_1"}, "input[0].type"),
    ({"type": "message", "role": "robot", "content": "x"}, "input[0].role"),
    ({"type": "function_call", "name": "f", "arguments": "{}"}, "input[0].call_id"),
    ({"type": "function_call_output", "call_id": "c"}, "input[0].output"),
])
def test_bad_items_are_400s_naming_them(item: dict[str, Any], param: str) -> None:
    with pytest.raises(InvalidRequest) as caught:
        rin.input_items([item])
    assert caught.value.param == param


def test_duplicate_item_ids_are_refused() -> None:
    history = rin.input_items([{"role": "user", "content": "a", "id": "msg_a"}])
    rin.check_unique_ids(history, rin.input_items([{"role": "user", "content": "b", "id": "msg_b"}]))
    with pytest.raises(InvalidRequest) as caught:
        rin.check_unique_ids(history, rin.input_items([{"role": "user", "content": "c"},
                                                       {"role": "user", "content": "b", "id": "msg_a"}]))
    assert caught.value.param == "input[1].id"


# ---- items -> chat messages ----------------------------------------------------------------------------------
def _messages(items: list[dict[str, Any]], **kw: Any) -> list[tuple[str, str, dict[str, Any]]]:
    out = rin.chat_messages(rin.input_items(items), model_id="m", **kw)
    # What a template reads besides role and content: the message's name, calls, result id and reasoning.
    return [(m.role, m.content, {k: v for k, v in m.as_template_dict().items() if k not in ("role", "content")})
            for m in out]


def test_instructions_come_first_and_developer_reads_as_system() -> None:
    assert _messages([{"role": "developer", "content": "d"}, {"role": "user", "content": "u"}],
                     instructions="sys") == [("system", "sys", {}), ("system", "d", {}), ("user", "u", {})]


def test_calls_join_the_assistant_turn_and_outputs_are_tool_messages() -> None:
    messages = _messages([
        {"role": "user", "content": "weather?"},
        {"type": "reasoning", "summary": [{"type": "summary_text", "text": "need a tool"}]},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Checking."}]},
        {"type": "function_call", "call_id": "c1", "name": "w", "arguments": '{"city": "Oslo"}'},
        {"type": "function_call", "call_id": "c2", "name": "w", "arguments": '{"city": "Rome"}'},
        {"type": "function_call_output", "call_id": "c1", "output": "cold"},
        {"type": "function_call_output", "call_id": "c2", "output": [{"type": "input_text", "text": "warm"}]},
    ], instructions=None)
    assert messages[0] == ("user", "weather?", {})
    role, content, extra = messages[1]
    assert (role, content, extra["reasoning_content"]) == ("assistant", "Checking.", "need a tool")
    assert [c["id"] for c in extra["tool_calls"]] == ["c1", "c2"]
    assert extra["tool_calls"][0] == {"id": "c1", "type": "function",
                                      "function": {"name": "w", "arguments": '{"city": "Oslo"}'}}
    assert messages[2:] == [("tool", "cold", {"tool_call_id": "c1"}), ("tool", "warm", {"tool_call_id": "c2"})]


def test_an_output_that_answers_no_call_is_a_named_tool_result() -> None:
    """Codex sends its agent events as function_call_output items with a name and namespace, no call_id."""
    item = {"type": "function_call_output", "name": "goal_objective", "namespace": "agent", "output": "complete"}
    stored = rin.input_items([item])[0]
    assert {k: stored[k] for k in ("name", "namespace", "output")} == {
        "name": "goal_objective", "namespace": "agent", "output": "complete"}
    assert "call_id" not in stored
    messages = _messages([{"role": "user", "content": "go"}, item], instructions=None)
    assert messages[1] == ("tool", "complete", {"name": "agent.goal_objective"})
    with pytest.raises(InvalidRequest) as caught:
        rin.input_items([{"type": "function_call_output", "output": "x"}])
    assert caught.value.param == "input[0].call_id"


def test_a_call_after_a_user_message_opens_its_own_assistant_turn() -> None:
    messages = _messages([{"role": "user", "content": "go"},
                          {"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"}],
                         instructions=None)
    assert messages[1][0] == "assistant" and messages[1][1] == "" and len(messages[1][2]["tool_calls"]) == 1


def test_an_image_on_a_text_model_names_the_part() -> None:
    items = [{"role": "user", "content": [{"type": "input_text", "text": "see"},
                                          {"type": "input_image", "image_url": "data:,", "detail": "auto"}]}]
    with pytest.raises(UnsupportedInput) as caught:
        rin.chat_messages(rin.input_items(items), instructions=None, model_id="m")
    assert caught.value.param == "input[0].content[1]"
    with pytest.raises(UnsupportedInput) as history:
        rin.chat_messages(rin.input_items(items), instructions=None, model_id="m", history=1)
    assert history.value.param == "previous_response_id.content[1]"


# ---- tools, format, reasoning, logprobs ----------------------------------------------------------------------
TOOL = {"type": "function", "name": "w", "description": "weather", "parameters": {"type": "object"}}


def test_function_tools_become_chat_tools() -> None:
    policy = rin.tool_policy({"tools": [TOOL], "tool_choice": {"type": "function", "name": "w"}})
    assert [t.name for t in policy.tools] == ["w"] and policy.choice == "w" and policy.parallel is True
    assert rin.tool_policy({"tools": [TOOL], "parallel_tool_calls": False}).parallel is False


@pytest.mark.parametrize(("body", "param"), [
    ({"tools": [{"type": "function"}]}, "tools[0].name"),
    ({"tools": [TOOL], "tool_choice": {"type": "file_search"}}, "tool_choice.type"),
    ({"tools": [TOOL], "tool_choice": {"type": "function", "name": "nope"}}, "tool_choice"),
])
def test_tools_that_cannot_be_served_are_400s(body: dict[str, Any], param: str) -> None:
    with pytest.raises(InvalidRequest) as caught:
        rin.tool_policy(body)
    assert caught.value.param == param
    if param.endswith(".type"):
        assert isinstance(caught.value, UnsupportedParameter)
        assert str(body.get("tool_choice", body["tools"][-1])["type"]) in caught.value.message


def test_text_format_becomes_a_grammar() -> None:
    assert rin.text_constraint({}) is None
    assert rin.text_constraint({"text": {"format": {"type": "text"}}}) is None
    assert rin.text_constraint({"text": {"format": {"type": "json_object"}}}) is not None
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}}
    constraint = rin.text_constraint({"text": {"format": {"type": "json_schema", "name": "x", "schema": schema}}})
    assert constraint is not None and constraint.param == "text.format"


@pytest.mark.parametrize(("effort", "variables", "thinks", "expected"), [
    (None, set(), False, {}),
    ("high", {"reasoning_effort"}, True, {"reasoning_effort": "high"}),
    ("low", {"enable_thinking"}, True, {"enable_thinking": True}),
    ("none", {"enable_thinking", "reasoning_effort"}, True, {"enable_thinking": False}),
    ("none", set(), False, {}),
    ("medium", set(), True, {}),
    # A template that cannot think takes no reasoning setting: accepted and left out (docs/api.md).
    ("high", set(), False, {}),
    ("low", {"enable_thinking"}, False, {"enable_thinking": True}),
    # A template whose switch reads `thinking` (Kimi K3, Granite 3.3): the switch goes out as enable_thinking,
    # which the template gets under its own name (ChatTemplate.render), and Kimi K3's effort as it takes it.
    ("none", {"thinking", "thinking_effort"}, True, {"enable_thinking": False}),
    ("high", {"thinking"}, True, {"enable_thinking": True}),
    ("minimal", {"thinking", "thinking_effort"}, True, {"enable_thinking": True, "thinking_effort": "low"}),
    ("low", {"thinking", "thinking_effort"}, True, {"enable_thinking": True, "thinking_effort": "low"}),
    ("medium", {"thinking", "thinking_effort"}, True, {"enable_thinking": True, "thinking_effort": "high"}),
    ("high", {"thinking", "thinking_effort"}, True, {"enable_thinking": True, "thinking_effort": "high"}),
    ("xhigh", {"thinking", "thinking_effort"}, True, {"enable_thinking": True, "thinking_effort": "max"}),
    ("max", {"thinking", "thinking_effort"}, True, {"enable_thinking": True, "thinking_effort": "max"}),
    # `thinking` read by a template that cannot think is no switch.
    ("high", {"thinking"}, False, {}),
    ("none", {"thinking"}, False, {}),
])
def test_reasoning_effort_as_the_template_takes_it(effort: str | None, variables: set[str], thinks: bool,
                                                   expected: dict[str, Any]) -> None:
    assert reasoning_kwargs(effort, _template(variables, thinks)) == expected
    assert rin.template_kwargs({"reasoning": {"effort": effort}}, _template(variables, thinks)) == expected


def _published(name: str) -> ChatTemplate:
    source = (PUBLISHED / name).read_text()
    return ChatTemplate(source, name=name, bos_token="<s>", eos_token="</s>")


def test_a_level_switches_granite_s_thinking_on_and_none_off() -> None:
    """Granite 3.3 reads `thinking`, off unless asked: a level turns it on (its <response> tags are taken out of the
    reply, engine/decoding/text_output.py), "none" leaves it off."""
    granite = _published("ibm-granite-granite-3.3-2B-Instruct.jinja")
    ask = [{"role": "user", "content": "Hi."}]
    on, off = reasoning_kwargs("high", granite), reasoning_kwargs("none", granite)
    assert on == {"enable_thinking": True} and off == {"enable_thinking": False}
    assert "<response></response>" in granite.render(ask, kwargs=on).text and granite.thinking_on(on)
    assert granite.render(ask, kwargs=off).text == granite.render(ask).text and not granite.thinking_on(off)


@pytest.mark.parametrize(("effort", "level"), [("minimal", "low"), ("low", "low"), ("medium", "high"),
                                               ("high", "high"), ("xhigh", "max"), ("max", "max")])
def test_kimi_k3_gets_every_level_as_a_thinking_effort_it_takes(effort: str, level: str) -> None:
    kimi = _published("Kimi-K3.jinja")
    text = kimi.render([{"role": "user", "content": "Hi."}], kwargs=reasoning_kwargs(effort, kimi)).text
    assert f"`thinking_effort={level}`" in text and text.endswith("<|open|>think<|sep|>")
    off = kimi.render([{"role": "user", "content": "Hi."}], kwargs=reasoning_kwargs("none", kimi)).text
    assert "thinking_effort" not in off and off.endswith("<|open|>response<|sep|>")


def test_superfluid_template_extensions_win_over_reasoning() -> None:
    body = {"reasoning": {"effort": "low"}, "chat_template_kwargs": {"enable_thinking": False}}
    assert rin.template_kwargs(body, _template({"enable_thinking"}, True)) == {"enable_thinking": False}


def test_namespace_tools_are_flattened_and_hosted_tools_left_out() -> None:
    weather = {"type": "function", "name": "get_weather", "parameters": {"type": "object"}}
    body = {"tools": [{"type": "web_search"}, weather, {"type": "local_shell"},
                      {"type": "namespace", "name": "agents", "description": "d",
                       "tools": [{"type": "function", "name": "spawn", "parameters": {"type": "object"}},
                                 {"type": "custom", "name": "apply_patch"}]},
                      {"type": "mcp", "server_label": "x"}, {"type": "custom", "name": "free"}]}
    policy = rin.tool_policy(body)
    assert [t.name for t in policy.tools] == ["get_weather", "spawn"]
    assert rin.tool_namespaces(body) == {"spawn": "agents"}
    assert rin.tool_policy({"tools": [{"type": "web_search_preview"}]}).tools == ()


@pytest.mark.parametrize(("inner", "param"), [
    ({"type": "function", "name": 5}, "tools[0].tools[0].name"),
    ({"type": "function", "name": "f", "parameters": "{}"}, "tools[0].tools[0].parameters"),
])
def test_a_namespace_function_is_checked_as_a_flat_one(inner: dict[str, Any], param: str) -> None:
    with pytest.raises(InvalidRequest) as caught:
        rin.tool_policy({"tools": [{"type": "namespace", "name": "ns", "tools": [inner]}]})
    assert caught.value.param == param


def test_two_functions_of_one_name_are_a_400() -> None:
    fn = {"type": "function", "name": "run", "parameters": {"type": "object"}}
    with pytest.raises(InvalidRequest) as caught:
        rin.tool_policy({"tools": [fn, {"type": "namespace", "name": "ns", "tools": [fn]}]})
    assert caught.value.param == "tools[1].tools[0].name"


def test_log_probabilities_follow_include_or_top_logprobs() -> None:
    assert rin.logprobs_request({}) is None
    assert rin.logprobs_request({"include": ["message.output_text.logprobs"]}) == 0
    assert rin.logprobs_request({"include": ["reasoning.encrypted_content"]}) is None
    assert rin.logprobs_request({"top_logprobs": 3}) == 3
