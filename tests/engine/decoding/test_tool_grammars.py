"""The call grammars, per format: what they accept, what they refuse, and that their output reads back.

Grammars are checked on the bundled model's real vocabulary (a vocab-only load, no weights). Decoding driven by
random logits, masked by a format's grammar, must always give text that the format's reader turns into calls
whose arguments validate against the function's schema.
"""

from __future__ import annotations

import json

import jsonschema
import pytest

from superfluid.engine.decoding.grammar import compile_constraint
from superfluid.engine.decoding.tool_calls import ToolFormat, ToolPolicy, ToolSpec
from superfluid.engine.decoding.tool_grammars import call_grammar, generic_constraint, generic_system_prompt
from superfluid.engine.decoding.tool_readers import call_reader
from superfluid.errors import ConstraintUnsatisfiable
from tests.engine.bundled_vocab import decode_masked, grammar_tokenizer
from tests.engine.decoding.call_reading import takes

# llguidance's llama.cpp bridge reads every token through a deprecated llama-cpp-python call.
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning:llama_cpp")

WEATHER = ToolSpec("get_weather", "Weather", {
    "type": "object",
    "properties": {"city": {"type": "string", "maxLength": 12}, "unit": {"enum": ["celsius", "fahrenheit"]},
                   "days": {"type": "integer", "minimum": 1, "maximum": 9}},
    "required": ["city"]})
CLOCK = ToolSpec("get_time", "Time", {"type": "object", "properties": {}})


def _policy(choice: str = "required", parallel: bool = False) -> ToolPolicy:
    return ToolPolicy(tools=(WEATHER, CLOCK), choice=choice, parallel=parallel)




def _grammar(fmt: ToolFormat, choice: str = "required", parallel: bool = False) -> str:
    return compile_constraint(call_grammar(fmt, _policy(choice, parallel)).constraint)


# ---- generic ------------------------------------------------------------------------------------------------

CALL = '{"tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]}'
TWO_CALLS = ('{"tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}, '
             '{"name": "get_time", "arguments": {}}]}')


def test_generic_constraint_shapes() -> None:
    required = compile_constraint(generic_constraint(_policy("required")))
    assert takes(required, CALL)
    assert not takes(required, TWO_CALLS), "one call unless parallel calls were asked for"
    assert not takes(required, '{"response": "Hi"}')
    assert not takes(required, CALL.replace('"Paris"}', '"Paris", "extra": 1}')), "arguments are closed"
    assert takes(compile_constraint(generic_constraint(_policy("required", parallel=True))), TWO_CALLS)
    auto = compile_constraint(generic_constraint(_policy("auto")))
    assert takes(auto, CALL) and takes(auto, '{"response": "Hi"}')
    named = compile_constraint(generic_constraint(_policy("get_time")))
    assert not takes(named, CALL)
    assert takes(named, '{"tool_calls": [{"name": "get_time", "arguments": {}}]}')


def test_generic_constraint_param_names_the_field_to_blame() -> None:
    assert generic_constraint(_policy("required")).param == "tool_choice"
    assert generic_constraint(_policy("auto")).param == "tools"
    assert call_grammar("generic", _policy("auto")).trigger is None, "the generic reply is always constrained"


def test_generic_system_prompt_describes_tools_and_the_reply_format() -> None:
    text = generic_system_prompt(_policy("auto"))
    assert '"name": "get_weather"' in text and '"name": "get_time"' in text
    assert '{"tool_calls": [' in text and '{"response":' in text
    named = generic_system_prompt(_policy("get_time"))
    assert "get_weather" not in named
    assert '{"response":' not in named


# ---- native formats -----------------------------------------------------------------------------------------

HERMES = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
HERMES_CLOCK = '<tool_call>\n{"name": "get_time", "arguments": {}}\n</tool_call>'
LLAMA3 = '{"name": "get_weather", "parameters": {"city": "Paris"}}'
LLAMA3_CLOCK = '{"name": "get_time", "parameters": {}}'
MISTRAL = '[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris"}}]'
MISTRAL_CLOCK = '[TOOL_CALLS][{"name": "get_time", "arguments": {}}]'
MISTRAL_TWO = ('[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris"}}, '
               '{"name": "get_time", "arguments": {}}]')
GEMMA = '```tool_code\nget_weather(city="Paris")\n```'
GEMMA_CLOCK = "```tool_code\nget_time()\n```"
GEMMA_TWO = '```tool_code\nget_weather(city="Paris")\nget_time()\n```'


@pytest.mark.parametrize("fmt, one, clock, two, refused", [
    ("hermes", HERMES, HERMES_CLOCK, HERMES + "\n" + HERMES_CLOCK,
     [HERMES.replace('"Paris"}', '"Paris", "x": 1}'), "Sure. " + HERMES, HERMES.replace("arguments", "parameters")]),
    ("llama3", LLAMA3, LLAMA3_CLOCK, None,
     [LLAMA3.replace('"Paris"}', '"Paris", "x": 1}'), "Sure. " + LLAMA3, LLAMA3.replace("parameters", "arguments"),
      LLAMA3 + "\n" + LLAMA3_CLOCK]),
    ("mistral", MISTRAL, MISTRAL_CLOCK, MISTRAL_TWO,
     [MISTRAL.replace('"Paris"}', '"Paris", "x": 1}'), "Sure. " + MISTRAL, "[TOOL_CALLS][]",
      MISTRAL.replace('}}]', '}, "id": "abcdefghi"}]')]),
    ("gemma", GEMMA, GEMMA_CLOCK, GEMMA_TWO,
     [GEMMA.replace('"Paris"', '"Paris", x=1'), "Sure. " + GEMMA, GEMMA.replace('"Paris"', "Paris"),
      GEMMA.replace('city="Paris"', 'unit="celsius"'), GEMMA.replace('city="Paris"', 'city = "Paris"')]),
], ids=["hermes", "llama3", "mistral", "gemma"])
def test_native_constraint_shapes(fmt: ToolFormat, one: str, clock: str, two: str | None, refused: list[str]) -> None:
    required = _grammar(fmt)
    assert takes(required, one) and takes(required, clock)
    for text in refused:
        assert not takes(required, text), text
    named = _grammar(fmt, "get_time")
    assert takes(named, clock) and not takes(named, one)
    if two is not None:
        assert not takes(required, two), "one call unless parallel calls were asked for"
        assert takes(_grammar(fmt, parallel=True), two)
    auto = call_grammar(fmt, _policy("auto"))
    assert auto.trigger is not None and one.startswith(auto.trigger)
    assert takes(compile_constraint(auto.constraint), one), "auto holds the same grammar from the trigger on"
    assert auto.constraint.param == "tools" and call_grammar(fmt, _policy()).constraint.param == "tool_choice"


@pytest.mark.parametrize("fmt, trigger, at_start", [
    ("hermes", "<tool_call>", False), ("llama3", '{"name"', True), ("mistral", "[TOOL_CALLS]", False),
    ("gemma", "```tool_code", False)])
def test_auto_triggers(fmt: ToolFormat, trigger: str, at_start: bool) -> None:
    auto = call_grammar(fmt, _policy("auto"))
    assert (auto.trigger, auto.at_start) == (trigger, at_start)
    assert call_grammar(fmt, _policy("required")).trigger is None, "required constrains the whole reply"


def test_a_marker_held_as_a_control_token_is_taken_as_that_token_or_spelled_out() -> None:
    vocabulary = grammar_tokenizer()
    token = 1  # stands in for a vocabulary's [TOOL_CALLS] control token
    grammar = compile_constraint(call_grammar("mistral", _policy(), {"[TOOL_CALLS]": token}).constraint)
    state = vocabulary.state(grammar)
    assert state.matcher.consume_tokens([token, *vocabulary.tokenizer.tokenize_str(MISTRAL[len("[TOOL_CALLS]"):])])
    assert state.matcher.is_accepting()
    assert takes(grammar, MISTRAL)
    hermes = compile_constraint(call_grammar("hermes", _policy(), {"<tool_call>": token}).constraint)
    assert takes(hermes, HERMES)
    assert "<[1]>" in call_grammar("hermes", _policy(), {"<tool_call>": token}).constraint.lark


def test_llama3_takes_one_call_even_when_parallel_calls_are_allowed() -> None:
    assert not takes(_grammar("llama3", parallel=True), LLAMA3 + "\n" + LLAMA3_CLOCK)


@pytest.mark.parametrize("text, ok", [
    ('f(a="x", b=1, c=true)', True),
    ('f(a="x", c=true)', True),
    ('f(a="x")', True),
    ('f(a="x", b=1)', True),
    ("f(b=1)", False),
    ('f(b=1, a="x")', False),
    ('f(a="x",b=1)', False),
    ('f(a="x", , b=1)', False),
    ('f(a="x", b=1, c=true, d=2)', False),
    ("f()", False),
], ids=["all", "skip_optional", "only_required", "skip_last", "missing_required", "out_of_order",
        "no_space", "empty_argument", "unknown_argument", "nothing"])
def test_gemma_keyword_arguments(text: str, ok: bool) -> None:
    tool = ToolSpec("f", "", {"type": "object", "required": ["a"], "properties": {
        "a": {"type": "string"}, "b": {"type": "integer"}, "c": {"type": "boolean"}}})
    grammar = compile_constraint(call_grammar("gemma", ToolPolicy(tools=(tool,), choice="required")).constraint)
    assert takes(grammar, f"```tool_code\n{text}\n```") is ok


def test_gemma_open_arguments_and_definitions() -> None:
    open_tool = ToolSpec("f", "", {"type": "object"})
    grammar = compile_constraint(call_grammar("gemma", ToolPolicy(tools=(open_tool,), choice="f")).constraint)
    assert takes(grammar, '```tool_code\nf(anything=[1, {"a": null}], more="x")\n```')
    assert takes(grammar, "```tool_code\nf()\n```")
    refs = ToolSpec("g", "", {"type": "object", "$defs": {"n": {"type": "integer"}},
                              "properties": {"n": {"$ref": "#/$defs/n"}}, "required": ["n"]})
    grammar = compile_constraint(call_grammar("gemma", ToolPolicy(tools=(refs,), choice="g")).constraint)
    assert takes(grammar, "```tool_code\ng(n=3)\n```")
    assert not takes(grammar, '```tool_code\ng(n="3")\n```')


@pytest.mark.parametrize("tool, words", [
    (ToolSpec("f", "", {"type": "array"}), "not an object"),
    (ToolSpec("f", "", {"type": "object", "properties": {"a b": {}}}), "'a b'"),
    (ToolSpec("f(x)", "", {"type": "object"}), "'f(x)'"),
])
def test_gemma_refuses_what_keyword_calls_cannot_write(tool: ToolSpec, words: str) -> None:
    with pytest.raises(ConstraintUnsatisfiable) as caught:
        call_grammar("gemma", ToolPolicy(tools=(tool,), choice="auto"))
    assert words in str(caught.value)
    assert caught.value.param == "tools"


# ---- decoding under each grammar reads back as valid calls -----------------------------------------------------


def _decode(grammar: str, seed: int, limit: int = 300) -> str:
    return decode_masked(grammar_tokenizer().state(grammar), seed, limit)


@pytest.mark.parametrize("fmt", ["generic", "hermes", "llama3", "mistral", "gemma", "harmony"])
@pytest.mark.parametrize("parallel", [False, True])
def test_random_decoding_reads_back_as_valid_calls(fmt: ToolFormat, parallel: bool) -> None:
    schemas = {WEATHER.name: WEATHER.parameters, CLOCK.name: CLOCK.parameters}
    grammar = _grammar(fmt, parallel=parallel)
    for seed in range(6):
        text = _decode(grammar, seed)
        reader = call_reader(fmt)
        pieces = [text[i: i + 3] for i in range(0, len(text), 3)]
        deltas = [d for piece in pieces for d in reader.feed(piece).calls] + reader.finish().calls
        calls: dict[int, dict[str, str]] = {}
        for delta in deltas:
            if delta.name is not None:
                calls[delta.index] = {"name": delta.name, "arguments": ""}
            calls[delta.index]["arguments"] += delta.arguments
        assert calls, text
        if not parallel or fmt in ("llama3", "harmony"):  # one call per reply in these formats
            assert len(calls) == 1, text
        for call in calls.values():
            arguments = json.loads(call["arguments"])
            jsonschema.validate(arguments, schemas[call["name"]])
            assert set(arguments) <= set(schemas[call["name"]]["properties"]), text


def test_harmony_auto_takes_the_recipient_in_either_place_harmony_allows() -> None:
    auto = _grammar("harmony", "auto")
    args = '{"city": "Paris"}'
    assert takes(auto, 'to=functions.get_weather<|channel|>commentary json<|message|>' + args)
    assert takes(auto, 'to=functions.get_weather <|constrain|>json<|message|>' + args)
    assert takes(auto, "to=functions.get_time<|message|>{}")
    assert not takes(auto, "to=functions.get_news<|message|>{}"), "only the tools given"
    forced = _grammar("harmony", "required")
    assert takes(forced, ' to=functions.get_weather<|channel|>commentary json<|message|>' + args)
    assert not takes(forced, "<|channel|>final<|message|>Sunny."), "a forced reply is a call"
