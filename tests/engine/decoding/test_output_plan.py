"""Output plans: which call format a template gets, the grammar and reader that go with it, and tool history.

The native-format templates are the ones the conformance tests serve (conformance/templates/*_tools.jinja).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from superfluid.engine.decoding.grammar import Constraint
from superfluid.engine.decoding.json_reply_readers import GenericReader, Llama3Reader
from superfluid.engine.decoding.marked_readers import GemmaReader, HermesReader, MistralReader
from superfluid.engine.decoding.output_plan import plan_output
from superfluid.engine.decoding.tool_calls import ToolPolicy, ToolSpec
from superfluid.engine.models.chat_template import BUILTIN_TEMPLATES, ChatTemplate, builtin_template_source
from superfluid.engine.types import ChatMessage, PastCall
from superfluid.errors import ConstraintUnsatisfiable, UnsupportedParameter
from superfluid.handlers.openai.params import tool_policy
from tests.engine.bundled_vocab import accepts, grammar_tokenizer

TEMPLATES = Path(__file__).resolve().parents[3] / "conformance" / "templates"
WEATHER: Any = {"type": "function", "function": {
    "name": "get_weather", "description": "The current weather in a city",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}
FAMILIES = ["hermes", "llama3", "mistral", "gemma"]


def _template(family: str) -> ChatTemplate:
    source = (TEMPLATES / f"{family}_tools.jinja").read_text()
    return ChatTemplate(source, name=family, bos_token="<s>", eos_token="</s>")


def _policy(choice: Any) -> ToolPolicy:
    return tool_policy([WEATHER], choice, None)


ASK = (ChatMessage("user", "What is the weather in Paris?"),)
HISTORY = (
    ChatMessage("system", "Be brief."),
    *ASK,
    ChatMessage("assistant", "", tool_calls=(PastCall("get_weather", '{"city": "Paris"}', "call_5f0c2e"),)),
    ChatMessage("tool", '{"temperature": 21}', tool_call_id="call_5f0c2e"),
    ChatMessage("assistant", "It is 21 degrees in Paris."),
    ChatMessage("user", "And in Oslo?"),
)
NATIVE_CALL = {
    "hermes": '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
    "llama3": '{"name": "get_weather", "parameters": {"city": "Paris"}}',
    "mistral": '[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris"}, "id": "',
    "gemma": '```tool_code\nget_weather(city="Paris")\n```',
}
READERS = {"hermes": HermesReader, "llama3": Llama3Reader, "mistral": MistralReader, "gemma": GemmaReader}


@pytest.mark.parametrize("family", FAMILIES)
def test_required_constrains_the_whole_reply(family: str) -> None:
    plan = plan_output(ASK, _template(family), tools=_policy("required"), constraint=None)
    assert plan.reader == family
    assert plan.grammar is not None and plan.lazy is None
    assert isinstance(plan.call_reader(), READERS[family])
    assert plan.template_tools and plan.template_tools[0]["function"]["name"] == "get_weather"


@pytest.mark.parametrize("family, trigger, at_start", [
    ("hermes", "<tool_call>", False), ("llama3", '{"name"', True), ("mistral", "[TOOL_CALLS]", False),
    ("gemma", "```tool_code", False)])
def test_auto_engages_lazily_at_the_trigger(family: str, trigger: str, at_start: bool) -> None:
    plan = plan_output(ASK, _template(family), tools=_policy("auto"), constraint=None)
    assert plan.grammar is None and plan.lazy is not None
    assert (plan.lazy.trigger, plan.lazy.at_start) == (trigger, at_start)
    assert plan.reader == family


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("choice", ["required", "auto"])
def test_a_deferred_grammar_compiles_to_the_same_plan(family: str, choice: str) -> None:
    eager = plan_output(ASK, _template(family), tools=_policy(choice), constraint=None)
    deferred = plan_output(ASK, _template(family), tools=_policy(choice), constraint=None, defer=True)
    assert deferred.grammar is None and deferred.lazy is None and deferred.pending is not None
    assert deferred.whole_reply_grammar == (choice == "required")
    assert deferred.compiled() == eager and eager.pending is None and eager.compiled() is eager


@pytest.mark.parametrize("family", FAMILIES)
def test_none_shows_no_tools_and_reads_no_calls(family: str) -> None:
    plan = plan_output(ASK, _template(family), tools=_policy("none"), constraint=None)
    assert plan.template_tools is None and plan.grammar is None and plan.lazy is None
    assert plan.call_reader() is None


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("choice", ["auto", "none"])
def test_tool_history_renders_in_the_native_format(family: str, choice: str) -> None:
    template = _template(family)
    plan = plan_output(HISTORY, template, tools=_policy(choice), constraint=None)
    text = template.render(plan.messages, tools=plan.template_tools).text
    assert NATIVE_CALL[family] in text
    assert '{"temperature": 21}' in text or json.dumps('{"temperature": 21}') in text
    assert "It is 21 degrees in Paris." in text and text.rstrip().endswith(
        {"hermes": "<|im_start|>assistant", "llama3": "<|start_header_id|>assistant<|end_header_id|>",
         "mistral": "And in Oslo?[/INST]", "gemma": "<start_of_turn>model"}[family])


def test_mistral_history_ids_fit_the_template() -> None:
    template = _template("mistral")
    plan = plan_output(HISTORY, template, tools=_policy("auto"), constraint=None)
    call_id = plan.messages[2]["tool_calls"][0]["id"]
    assert len(call_id) == 9 and call_id.isalnum()
    assert plan.messages[3]["tool_call_id"] == call_id, "the result still names its call"
    text = template.render(plan.messages, tools=plan.template_tools).text
    assert f'"id": "{call_id}"' in text and f'"call_id": "{call_id}"' in text


def test_markers_held_as_control_tokens_are_written_out() -> None:
    control = {"[TOOL_CALLS]": 7}
    plan = plan_output(ASK, _template("mistral"), tools=_policy("auto"), control=control, constraint=None)
    assert plan.preserve == frozenset({7})
    assert plan.lazy is not None and "<[7]>" in plan.lazy.grammar
    assert plan_output(ASK, _template("mistral"), tools=_policy("auto"), constraint=None).preserve == frozenset()
    words = plan_output(ASK, _template("mistral"), tools=_policy("none"), control=control, constraint=None)
    assert words.preserve == frozenset(), "without tools the marker stays dropped"


@pytest.mark.parametrize("name", BUILTIN_TEMPLATES)
def test_builtin_templates_use_the_generic_format(name: str) -> None:
    template = ChatTemplate(builtin_template_source(name), name=name, bos_token="<s>", eos_token="</s>")
    plan = plan_output(ASK, template, tools=_policy("auto"), constraint=None)
    assert plan.reader == "generic" and isinstance(plan.call_reader(), GenericReader)
    assert plan.grammar is not None and plan.lazy is None and plan.template_tools is None
    assert "get_weather" in plan.messages[0]["content"], "the generic format describes the tools itself"


ANSWER: Any = {"type": "object", "properties": {"city": {"type": "string"}, "celsius": {"type": "integer"}},
               "required": ["city", "celsius"]}
ANSWER_TEXT = '{"city": "Paris", "celsius": 21}'


@pytest.mark.parametrize("family", FAMILIES)
def test_tools_beside_a_schema_allow_a_call_or_the_schema_from_the_first_token(family: str) -> None:
    """As the OpenAI API allows: with auto tools and a response schema, the reply is a call or valid JSON."""
    plan = plan_output(ASK, _template(family), tools=_policy("auto"), constraint=Constraint.for_schema(ANSWER))
    assert plan.lazy is None and plan.grammar is not None, "no free text before a call: the grammar holds at once"
    state = grammar_tokenizer().state(plan.grammar)
    assert accepts(state, ANSWER_TEXT)
    state = grammar_tokenizer().state(plan.grammar)
    assert accepts(state, NATIVE_CALL[family].split('"id"')[0].rstrip(", ") if family == "mistral"
                   else NATIVE_CALL[family]) or family == "mistral"
    for text in ("It is sunny.", '{"city": "Paris"}'):
        assert not accepts(grammar_tokenizer().state(plan.grammar), text), text
    reader = plan.call_reader()
    assert reader is not None and reader.feed(ANSWER_TEXT).content == ANSWER_TEXT


def test_the_generic_format_answers_with_the_schema_under_response() -> None:
    template = ChatTemplate(builtin_template_source("chatml"), name="chatml", bos_token="<s>", eos_token="</s>")
    plan = plan_output(ASK, template, tools=_policy("auto"), constraint=Constraint.for_schema(ANSWER))
    assert plan.reader == "generic" and plan.json_answer and plan.grammar is not None
    assert json.dumps(ANSWER) in plan.messages[0]["content"], "the prompt gives the schema of an answer"
    assert accepts(grammar_tokenizer().state(plan.grammar), '{"response": ' + ANSWER_TEXT + "}")
    assert accepts(grammar_tokenizer().state(plan.grammar),
                   '{"tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]}')
    assert not accepts(grammar_tokenizer().state(plan.grammar), '{"response": "It is sunny."}')
    reader = plan.call_reader()
    assert isinstance(reader, GenericReader)
    content = "".join(reader.feed(piece).content for piece in ('{"respo', 'nse": {"city": "Pa', 'ris", "cel',
                                                              'sius": 21}', "}"))
    assert content == ANSWER_TEXT


def test_a_schema_beside_a_required_call_is_moot_and_a_grammar_beside_tools_is_refused() -> None:
    plan = plan_output(ASK, _template("hermes"), tools=_policy("required"), constraint=Constraint.for_schema(ANSWER))
    assert accepts(grammar_tokenizer().state(plan.grammar or ""), NATIVE_CALL["hermes"])
    with pytest.raises(UnsupportedParameter):
        plan_output(ASK, _template("hermes"), tools=_policy("auto"), constraint=Constraint(lark='start: "x"'))


def test_gemma_parameters_it_cannot_write_are_refused_before_decoding() -> None:
    policy = ToolPolicy(tools=(ToolSpec("f", "", {"type": "array"}),), choice="required")
    with pytest.raises(ConstraintUnsatisfiable) as caught:
        plan_output(ASK, _template("gemma"), tools=policy, constraint=None)
    assert caught.value.param == "tool_choice"
