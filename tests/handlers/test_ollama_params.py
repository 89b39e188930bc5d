"""Reading Ollama request fields into engine types: field and option refusals, prompts, messages, tools."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from superfluid.engine.decoding.grammar import ANY_JSON_OBJECT
from superfluid.engine.models.chat_template import ChatTemplate
from superfluid.engine.types import ChatPrompt, FimPrompt, SamplingParams, TextPrompt
from superfluid.errors import InvalidRequest, NotFound, UnsupportedInput, UnsupportedParameter
from superfluid.handlers.ollama import params

PUBLISHED = Path(__file__).parents[1] / "engine" / "models" / "published_templates"

# ---- fields -----------------------------------------------------------------------------------------


def test_known_and_null_fields_pass() -> None:
    params.refuse_unknown({"model": "m", "messages": [], "foo": None, "keep_alive": None}, params.CHAT_FIELDS)


@pytest.mark.parametrize("name", ["foo", "context", "tool_choice"])
def test_unknown_non_null_field_is_named(name: str) -> None:
    with pytest.raises(UnsupportedParameter) as error:
        params.refuse_unknown({"model": "m", name: 0}, params.CHAT_FIELDS)
    assert error.value.message == f"unsupported parameter: {name}"
    assert error.value.param == name


@pytest.mark.parametrize("value", ["5m", 0, -1, False])
def test_keep_alive_is_refused(value: Any) -> None:
    with pytest.raises(UnsupportedParameter) as error:
        params.refuse_unknown({"model": "m", "keep_alive": value}, params.GENERATE_FIELDS)
    assert error.value.param == "keep_alive"
    assert error.value.message.startswith("unsupported parameter: keep_alive")


def test_generate_refuses_chat_only_fields() -> None:
    for name in ("messages", "tools", "logprobs", "top_logprobs"):
        with pytest.raises(UnsupportedParameter):
            params.refuse_unknown({name: [1]}, params.GENERATE_FIELDS)


def test_model_ids_and_latest() -> None:
    known = ("a", "owner/repo:Q4_K_M")
    assert params.model_id("a", known) == "a"
    assert params.model_id("a:latest", known) == "a"
    assert params.model_id("owner/repo:Q4_K_M", known) == "owner/repo:Q4_K_M"
    for name in ("b", "b:latest", "a:v2", "/models/a.gguf", "hf.co/owner/repo"):
        with pytest.raises(NotFound) as error:
            params.model_id(name, known)
        assert error.value.status == 404 and name in error.value.message


def test_stream_defaults_to_true() -> None:
    assert params.streams({}) and params.streams({"stream": None}) and params.streams({"stream": True})
    assert not params.streams({"stream": False})


# ---- options ----------------------------------------------------------------------------------------


def test_options_map_onto_sampling() -> None:
    options = params.read_options({"temperature": 0, "top_p": 0.9, "top_k": 5, "min_p": 0.1, "seed": 42,
                                   "repeat_penalty": 1.1, "presence_penalty": -1, "frequency_penalty": 0.5,
                                   "num_predict": 16, "stop": ["a", "b"], "num_ctx": 8192})
    assert options.sampling == SamplingParams(temperature=0.0, top_p=0.9, top_k=5, min_p=0.1, seed=42,
                                              presence_penalty=-1.0, frequency_penalty=0.5, repeat_penalty=1.1)
    assert options.max_tokens(8192) == 16
    assert options.stop == ("a", "b")
    assert options.num_ctx == 8192


def test_no_options_and_null_options_are_defaults() -> None:
    for raw in (None, {}, {"temperature": None, "mirostat": None, "stop": None}):
        options = params.read_options(raw)
        assert options.sampling == SamplingParams()
        assert options.max_tokens(4096) is None and options.stop == ()


def test_seed_minus_one_is_random() -> None:
    assert params.read_options({"seed": -1}).sampling.seed is None


@pytest.mark.parametrize("value", [-1, -2])
def test_num_predict_fills_the_window(value: int) -> None:
    assert params.read_options({"num_predict": value}).max_tokens(4096) == 4096


@pytest.mark.parametrize("value", [0, -3, -100])
def test_num_predict_must_be_positive_or_fill(value: int) -> None:
    with pytest.raises(InvalidRequest) as error:
        params.read_options({"num_predict": value})
    assert error.value.param == "options.num_predict"


@pytest.mark.parametrize("name", ["num_gpu", "num_thread", "mirostat", "typical_p", "repeat_last_n"])
def test_unsupported_option_is_named(name: str) -> None:
    with pytest.raises(UnsupportedParameter) as error:
        params.read_options({name: 1})
    assert error.value.message == f"unsupported option: {name}"
    assert error.value.param == f"options.{name}"


@pytest.mark.parametrize("stop", [["a"] * 5, [""], "", ["ok", ""]])
def test_stop_strings_are_up_to_four_and_non_empty(stop: Any) -> None:
    with pytest.raises(InvalidRequest) as error:
        params.read_options({"stop": stop})
    assert error.value.param == "options.stop"


def test_a_single_stop_string() -> None:
    assert params.read_options({"stop": "\n"}).stop == ("\n",)


def test_num_ctx_must_be_the_window() -> None:
    params.read_options({"num_ctx": 4096}).check_window("m", 4096)
    params.read_options({}).check_window("m", 4096)
    with pytest.raises(InvalidRequest) as error:
        params.read_options({"num_ctx": 2048}).check_window("m", 4096)
    assert error.value.param == "options.num_ctx" and "4096" in error.value.message


# ---- output shaping ---------------------------------------------------------------------------------


def _template(name: str) -> ChatTemplate:
    return ChatTemplate((PUBLISHED / name).read_text(), name=name, bos_token="<s>", eos_token="</s>")


def test_think_maps_to_template_variables() -> None:
    gpt_oss = _template("openai-gpt-oss-120b.jinja")
    assert params.think_kwargs(None, gpt_oss) == {}
    assert params.think_kwargs(True, gpt_oss) == {"enable_thinking": True}
    assert params.think_kwargs(False, gpt_oss) == {"enable_thinking": False}
    assert params.think_kwargs("high", gpt_oss) == {"reasoning_effort": "high"}


@pytest.mark.parametrize(("think", "level"), [("low", "low"), ("medium", "high"), ("high", "high")])
def test_a_think_level_reaches_kimi_k3_as_its_thinking_effort(think: str, level: str) -> None:
    kimi = _template("Kimi-K3.jinja")
    assert kimi.reasoning_levels
    params.refuse_unsupported_think(think, "kimi", {"enable_thinking": kimi.thinks,
                                                    "reasoning_effort": kimi.reasoning_levels})
    kwargs = params.think_kwargs(think, kimi)
    assert kwargs == {"enable_thinking": True, "thinking_effort": level}
    assert f"`thinking_effort={level}`" in kimi.render([{"role": "user", "content": "Hi."}], kwargs=kwargs).text


def test_think_needs_a_template_that_thinks() -> None:
    plain = {"enable_thinking": False, "reasoning_effort": False}
    params.refuse_unsupported_think(None, "m", plain)
    params.refuse_unsupported_think(False, "m", plain)
    for think in (True, "low"):
        with pytest.raises(UnsupportedParameter) as error:
            params.refuse_unsupported_think(think, "m", plain)
        assert error.value.param == "think"
    params.refuse_unsupported_think(True, "m", {"enable_thinking": True, "reasoning_effort": False})
    params.refuse_unsupported_think("low", "m", {"enable_thinking": True, "reasoning_effort": True})


def test_format() -> None:
    assert params.format_constraint(None) is None and params.format_constraint("") is None
    as_json = params.format_constraint("json")
    assert as_json is not None and as_json.param == "format"
    assert json.loads(as_json.json_schema or "") == ANY_JSON_OBJECT
    schema = {"type": "object", "properties": {"b": {"type": "string"}, "a": {"type": "integer"}}}
    constrained = params.format_constraint(schema)
    # Key order kept; an object that says nothing of extra keys is closed, an unbounded integer held to 16
    # digits (docs/structured-outputs.md).
    bound = 10 ** 16 - 1
    assert constrained is not None and json.loads(constrained.json_schema or "") == {
        "type": "object", "additionalProperties": False,
        "properties": {"b": {"type": "string"}, "a": {"type": "integer", "minimum": -bound, "maximum": bound}}}
    assert list(json.loads(constrained.json_schema or "")["properties"]) == ["b", "a"]
    with pytest.raises(InvalidRequest) as error:
        params.format_constraint("yaml")
    assert error.value.param == "format"


def test_tools_allow_several_calls_and_words() -> None:
    policy = params.tool_policy([{"type": "function", "function": {"name": "f", "description": "d",
                                                                   "parameters": {"type": "object"}}},
                                 {"function": {"name": "g"}}])
    assert policy is not None
    assert policy.choice == "auto" and policy.parallel
    assert [t.name for t in policy.tools] == ["f", "g"]
    assert policy.tools[1].parameters == {"type": "object", "properties": {}}
    assert params.tool_policy(None) is None and params.tool_policy([]) is None


@pytest.mark.parametrize("tool", [{"type": "code", "function": {"name": "f"}}, {"function": {}}, {"type": "function"}])
def test_malformed_tool(tool: dict[str, Any]) -> None:
    with pytest.raises(InvalidRequest) as error:
        params.tool_policy([tool])
    assert error.value.param == "tools[0]"


def test_tool_parameters_describe_an_object() -> None:
    with pytest.raises(InvalidRequest) as error:
        params.tool_policy([{"function": {"name": "f", "parameters": {"type": "string"}}}])
    assert error.value.param == "tools[0].function.parameters"


def test_logprobs_request() -> None:
    assert params.logprobs_request({}) is None
    assert params.logprobs_request({"logprobs": False, "top_logprobs": 0}) is None
    assert params.logprobs_request({"logprobs": True}) == 0
    assert params.logprobs_request({"logprobs": True, "top_logprobs": 5}) == 5
    with pytest.raises(InvalidRequest):
        params.logprobs_request({"top_logprobs": 5})


# ---- messages and prompts ---------------------------------------------------------------------------


def test_messages_keep_thinking_tool_calls_and_results() -> None:
    messages = params.convert_messages([
        {"role": "system", "content": "s"},
        {"role": "user", "content": "u", "images": []},
        {"role": "assistant", "content": None, "thinking": "hmm",
         "tool_calls": [{"id": "c1", "function": {"name": "f", "arguments": {"x": 1}}}]},
        {"role": "tool", "content": "42", "tool_name": "f", "tool_call_id": "c1"},
    ], "m")
    assert [(m.role, m.content) for m in messages] == [("system", "s"), ("user", "u"), ("assistant", ""),
                                                       ("tool", "42")]
    assert messages[2].as_template_dict() == {"role": "assistant", "content": "", "reasoning_content": "hmm",
                                              "tool_calls": [{"id": "c1", "type": "function",
                                                              "function": {"name": "f", "arguments": {"x": 1}}}]}
    assert messages[3].as_template_dict() == {"role": "tool", "content": "42", "name": "f", "tool_call_id": "c1"}


def test_message_images_need_a_model_that_reads_them() -> None:
    with pytest.raises(UnsupportedInput) as error:
        params.convert_messages([{"role": "user", "content": "x", "images": ["aGk="]}], "m")
    assert error.value.param == "messages[0].images"


def test_unknown_message_field() -> None:
    with pytest.raises(UnsupportedParameter) as error:
        params.convert_messages([{"role": "user", "content": "x", "name": "bob"}], "m")
    assert error.value.message == "unsupported parameter: messages[0].name"


def test_generate_prompts() -> None:
    templated = params.generate_prompt({"prompt": "p", "system": "s", "think": False}, "m")
    assert isinstance(templated, ChatPrompt)
    assert [(m.role, m.content) for m in templated.messages] == [("system", "s"), ("user", "p")]
    assert templated.template_kwargs == {}  # think is read once the model's template is known (generate())
    assert params.generate_prompt({"prompt": "p", "raw": True}, "m") == TextPrompt("p")
    assert params.generate_prompt({"prompt": "p", "suffix": "s"}, "m") == FimPrompt(prefix="p", suffix="s")
    assert isinstance(params.generate_prompt({"prompt": "p", "suffix": ""}, "m"), ChatPrompt)
    with pytest.raises(UnsupportedInput):
        params.generate_prompt({"prompt": "p", "images": ["aGk="]}, "m")


def test_preload_is_an_empty_prompt_with_nothing_else() -> None:
    assert params.is_generate_preload({})
    assert params.is_generate_preload({"prompt": "", "suffix": "", "images": [], "system": None, "raw": True})
    for extra in ({"prompt": "p"}, {"system": "s"}, {"suffix": "s"}, {"images": ["aGk="]}):
        assert not params.is_generate_preload(extra)


@pytest.mark.parametrize("field", ["system", "images", "format", "think"])
@pytest.mark.parametrize("mode", [{"raw": True}, {"suffix": "tail"}])
def test_raw_and_suffix_refuse_templated_fields(mode: dict[str, Any], field: str) -> None:
    value = {"system": "s", "images": ["aGk="], "format": "json", "think": False}[field]
    with pytest.raises(UnsupportedParameter) as error:
        params.refuse_with_plain_prompt({**mode, field: value})
    assert error.value.param == field
    with pytest.raises(UnsupportedParameter) as stop:
        params.refuse_with_plain_prompt({**mode, "options": {"stop": ["x"]}})
    assert stop.value.param == "options.stop"


def test_plain_prompts_take_empty_values_and_templated_ones_take_all() -> None:
    params.refuse_with_plain_prompt({"raw": True, "system": "", "images": [], "format": "", "think": None,
                                     "options": {"stop": None}})
    params.refuse_with_plain_prompt({"raw": False, "suffix": "", "system": "s", "format": "json", "think": True})


def test_template_only_empty() -> None:
    params.refuse_template(None)
    params.refuse_template("")
    with pytest.raises(UnsupportedParameter) as error:
        params.refuse_template("{{ .Prompt }}")
    assert error.value.param == "template"
