"""The Anthropic request converter: conversations, tools, thinking and output format into engine types."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest

from superfluid.engine.models.chat_template import ChatTemplate
from superfluid.engine.models.served_model import ServedModel
from superfluid.engine.types import ChatMessage
from superfluid.errors import InvalidRequest, UnsupportedInput
from superfluid.handlers.anthropic import params

M = "m"
PUBLISHED = Path(__file__).parents[1] / "engine" / "models" / "published_templates"
IMAGE = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}}


def _convert(messages: list[dict[str, Any]], **body: Any) -> tuple[ChatMessage, ...]:
    return params.convert_messages({"messages": messages, **body}, M)


def _model(thinks: bool, switch: str = "enable_thinking") -> ServedModel:
    profile = SimpleNamespace(dialect=lambda: {"enable_thinking": thinks})
    variables = frozenset({switch} if thinks else ())
    template = SimpleNamespace(thinks=thinks, variables=variables, thinking_switch=ChatTemplate.switch_among(variables))
    return cast(ServedModel, SimpleNamespace(id=M, profile=profile, template=template))


def test_strings_and_text_blocks_become_plain_messages() -> None:
    out = _convert([{"role": "user", "content": "hi"},
                    {"role": "assistant", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}])
    assert out == (ChatMessage("user", "hi"), ChatMessage("assistant", "a\nb"))


def test_system_as_a_string_or_text_blocks_leads() -> None:
    for system in ("be brief", [{"type": "text", "text": "be", "cache_control": {"type": "ephemeral"}},
                                {"type": "text", "text": "brief"}]):
        out = _convert([{"role": "user", "content": "hi"}], system=system)
        assert out[0].role == "system" and out[0].content in ("be brief", "be\nbrief")
    assert _convert([{"role": "user", "content": "hi"}], system="")[0].role == "user"


def test_tool_use_and_tool_result_become_a_call_and_a_tool_message() -> None:
    out = _convert([
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "call it", "signature": "x"},
            {"type": "text", "text": "Let me look."},
            {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "sunny"},
            {"type": "text", "text": "and tomorrow?"}]},
    ])
    assistant = out[1]
    assert assistant.content == "Let me look."
    assert assistant.reasoning_content == "call it"
    (call,) = assistant.tool_calls
    assert call.id == "toolu_1" and call.name == "get_weather"
    assert json.loads(call.arguments) == {"city": "Paris"}
    assert out[2] == ChatMessage("tool", "sunny", tool_call_id="toolu_1", name="get_weather")
    assert out[3] == ChatMessage("user", "and tomorrow?")


def test_tool_result_blocks_and_errors() -> None:
    out = _convert([{"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "a", "content": [{"type": "text", "text": "x"},
                                                                {"type": "text", "text": "y"}]},
        {"type": "tool_result", "tool_use_id": "b", "content": "boom", "is_error": True},
        {"type": "tool_result", "tool_use_id": "c"}]}])
    assert [m.content for m in out] == ["x\ny", "Error: boom", ""]
    assert all(m.role == "tool" and m.name is None for m in out)


def test_images_are_refused_naming_the_block() -> None:
    cases = [
        ([{"role": "user", "content": [{"type": "text", "text": "see"}, IMAGE]}], "messages[0].content[1]"),
        ([{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "a", "content": [IMAGE]}]}],
         "messages[0].content[0].content[0]"),
        ([{"role": "user", "content": [{"type": "document", "source": {}}]}], "messages[0].content[0]"),
    ]
    for messages, param in cases:
        with pytest.raises(UnsupportedInput) as caught:
            _convert(messages)
        assert caught.value.param == param and caught.value.status == 400
    with pytest.raises(UnsupportedInput) as caught:
        _convert([{"role": "user", "content": "hi"}], system=[IMAGE])
    assert caught.value.param == "system[0]"


def test_blocks_in_the_wrong_turn_are_refused() -> None:
    with pytest.raises(InvalidRequest) as caught:
        _convert([{"role": "assistant", "content": [{"type": "tool_result", "tool_use_id": "a"}]}])
    assert caught.value.param == "messages[0].content[0]"
    with pytest.raises(InvalidRequest):
        _convert([{"role": "user", "content": [{"type": "tool_use", "id": "a", "name": "f", "input": {}}]}])


def test_redacted_thinking_is_left_out() -> None:
    out = _convert([{"role": "assistant", "content": [{"type": "redacted_thinking", "data": "zz"},
                                                      {"type": "text", "text": "hi"}]}])
    assert out == (ChatMessage("assistant", "hi"),)


TOOLS = [{"name": "a", "input_schema": {"type": "object"}}, {"name": "b", "description": "B",
                                                            "input_schema": {"type": "object", "properties": {}}}]


def test_tool_choice_maps_onto_the_engine_policy() -> None:
    assert params.tool_policy(None, None) is None
    auto = params.tool_policy(TOOLS, None)
    assert auto is not None and auto.choice == "auto" and auto.parallel
    assert [t.name for t in auto.tools] == ["a", "b"] and auto.tools[1].description == "B"
    for choice, picked in (({"type": "any"}, "required"), ({"type": "none"}, "none"),
                           ({"type": "tool", "name": "b"}, "b")):
        policy = params.tool_policy(TOOLS, choice)
        assert policy is not None and policy.choice == picked
    single = params.tool_policy(TOOLS, {"type": "auto", "disable_parallel_tool_use": True})
    assert single is not None and not single.parallel


def test_a_choice_the_tools_cannot_meet_is_a_400() -> None:
    with pytest.raises(InvalidRequest) as caught:
        params.tool_policy(TOOLS, {"type": "tool", "name": "c"})
    assert caught.value.param == "tool_choice"
    with pytest.raises(InvalidRequest):
        params.tool_policy(None, {"type": "any"})


def test_thinking_switches_the_template() -> None:
    assert params.thinking_kwargs(None, _model(False)) == {}
    assert params.thinking_kwargs({"type": "disabled"}, _model(False)) == {"enable_thinking": False}
    for kind in ("enabled", "adaptive"):
        assert params.thinking_kwargs({"type": kind, "budget_tokens": 10}, _model(True)) == {"enable_thinking": True}
    # A template without the switch ignores thinking, as llama-server does (docs/api.md, "Reasoning settings").
    for kind in ("enabled", "adaptive"):
        assert params.thinking_kwargs({"type": kind, "budget_tokens": 1024}, _model(False)) == {}
    # A switch named `thinking` (Kimi K3, Granite 3.3) is switched the same way, where the template thinks.
    for kind in ("enabled", "adaptive"):
        assert params.thinking_kwargs({"type": kind}, _model(True, "thinking")) == {"enable_thinking": True}
    assert params.thinking_kwargs({"type": "disabled"}, _model(True, "thinking")) == {"enable_thinking": False}


@pytest.mark.parametrize("template", ["Kimi-K3.jinja", "ibm-granite-granite-3.3-2B-Instruct.jinja"])
def test_thinking_switches_a_template_whose_switch_is_named_thinking(template: str) -> None:
    """Kimi K3 (on by default) and Granite 3.3 (off by default) read `thinking`: enabled and adaptive turn it on,
    disabled off, each reaching the template under that name."""
    real = ChatTemplate((PUBLISHED / template).read_text(), name=template, bos_token="<s>", eos_token="</s>")
    model = cast(ServedModel, SimpleNamespace(id=M, template=real))
    on = params.thinking_kwargs({"type": "enabled", "budget_tokens": 1024}, model)
    off = params.thinking_kwargs({"type": "disabled"}, model)
    assert real.thinking_on(on) and not real.thinking_on(off)
    ask = [{"role": "user", "content": "Hi."}]
    assert real.render(ask, kwargs=on).text != real.render(ask, kwargs=off).text


def test_system_messages_inside_messages_join_the_system_prompt() -> None:
    body = {"system": "Be brief.", "messages": [
        {"role": "user", "content": "Hi."},
        {"role": "system", "content": [{"type": "text", "text": "Reply in French."}]},
        {"role": "assistant", "content": "Bonjour."},
        {"role": "system", "content": "No emoji."},
        {"role": "user", "content": "Ça va?"}]}
    messages = params.convert_messages(body, "m")
    assert [m.role for m in messages] == ["system", "user", "assistant", "user"]
    assert messages[0].content == "Be brief.\n\nReply in French.\n\nNo emoji."
    only = params.convert_messages({"messages": [{"role": "system", "content": "S."},
                                                 {"role": "user", "content": "Hi."}]}, "m")
    assert [(m.role, m.content) for m in only] == [("system", "S."), ("user", "Hi.")]


def test_server_tools_are_left_out_and_client_tools_need_a_schema() -> None:
    weather = {"name": "get_weather", "input_schema": {"type": "object"}}
    policy = params.tool_policy([{"type": "web_search_20250305", "name": "web_search", "max_uses": 3}, weather,
                                 {"type": "custom", "name": "note", "input_schema": {"type": "object"}}], None)
    assert policy is not None and [t.name for t in policy.tools] == ["get_weather", "note"]
    with pytest.raises(InvalidRequest) as caught:
        params.tool_policy([{"name": "bare"}], None)
    assert caught.value.param == "tools[0].input_schema"


def test_display_omitted_hides_thinking_text() -> None:
    assert params.shows_thinking({})
    assert params.shows_thinking({"thinking": {"type": "enabled", "display": "summarized"}})
    assert not params.shows_thinking({"thinking": {"type": "enabled", "display": "omitted"}})


def test_output_format_is_a_closed_schema_constraint() -> None:
    assert params.output_constraint(None) is None and params.output_constraint({"effort": "low"}) is None
    constraint = params.output_constraint({"format": {"type": "json_schema", "schema": {
        "type": "object", "properties": {"a": {"type": "integer"}}}}})
    assert constraint is not None and constraint.param == "output_config.format"
    assert json.loads(constraint.json_schema or "")["additionalProperties"] is False


def test_a_trailing_assistant_text_turn_is_the_prefill() -> None:
    messages = _convert([{"role": "user", "content": "Colors?"}, {"role": "assistant", "content": "The colors are"}])
    history, text = params.prefill(messages)
    assert history == (ChatMessage("user", "Colors?"),) and text == "The colors are"
    for last in ({"role": "user", "content": "hi"},
                 {"role": "assistant", "content": [{"type": "tool_use", "id": "a", "name": "f", "input": {}}]}):
        whole = _convert([{"role": "user", "content": "Colors?"}, last])
        assert params.prefill(whole) == (whole, "")
