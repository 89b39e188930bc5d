"""Gemma 4's calls: ``<|tool_call>call:NAME{key:value,...}<tool_call|>`` with bare keys and ``<|"|>`` strings."""

from __future__ import annotations

from typing import Any

import pytest

from superfluid.engine.decoding.gemma4_calls import THOUGHT, gemma4_json, gemma4_lark, write_gemma4
from superfluid.engine.decoding.output_plan import plan_output
from superfluid.engine.decoding.text_output import TextOutput
from superfluid.engine.decoding.tool_calls import ToolPolicy, ToolSpec
from superfluid.engine.decoding.tool_grammars import call_grammar
from superfluid.engine.models.chat_template import ChatTemplate
from superfluid.engine.types import ChatMessage, PastCall
from superfluid.errors import ConstraintUnsatisfiable
from tests.engine.bundled_vocab import grammar_tokenizer
from tests.engine.decoding.call_reading import (
    CLOCK,
    PARAMS,
    PROBE,
    WEATHER,
    assert_random_decodings_read_back,
    every_split,
    published_template,
    read_calls,
    takes,
)

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning:llama_cpp")

GEMMA4_TEMPLATES = ("google-gemma-4-31B-it.jinja", "google-gemma-4-31B-it-interleaved.jinja")
BOUNDED = ToolSpec("get_weather", "Weather.", {
    "type": "object",
    "properties": {"city": {"type": "string", "maxLength": 12}, "unit": {"enum": ["celsius", "fahrenheit"]},
                   "days": {"type": "integer", "minimum": 1, "maximum": 9}, "hourly": {"type": "boolean"},
                   "tags": {"type": "array", "items": {"type": "string", "maxLength": 5}, "maxItems": 2},
                   "where": {"type": "object", "properties": {"lat": {"type": "number"},
                                                              "name": {"type": "string", "maxLength": 8}},
                             "required": ["lat"]}},
    "required": ["city"]})


# ---- the templates ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", GEMMA4_TEMPLATES)
def test_the_gemma4_templates_are_found_by_their_source(name: str) -> None:
    assert published_template(name).call_format == "gemma4"
    renamed = ChatTemplate(published_template(name).source, name="qwen-hermes-llama", bos_token="<s>", eos_token="</s>")
    assert renamed.call_format == "gemma4"


@pytest.mark.parametrize("name", GEMMA4_TEMPLATES)
@pytest.mark.parametrize("count", [1, 2])
def test_the_family_writes_calls_as_the_template_does_and_reads_them_back(name: str, count: int) -> None:
    tools = [{"type": "function", "function": {"name": "get_weather", "description": "", "parameters": PARAMS}}]
    calls = [{"id": f"c{i}", "type": "function", "function": {"name": PROBE[0], "arguments": PROBE[1]}}
             for i in range(count)]
    text = published_template(name).render([{"role": "user", "content": "Weather?"},
                                   {"role": "assistant", "content": "", "tool_calls": calls}],
                                  tools=tools, add_generation_prompt=False).text
    written = write_gemma4([PROBE] * count)
    assert written in text, (written, text)
    for pieces in every_split(written):
        content, read = read_calls("gemma4", pieces)
        assert content == "" and read == [{"name": PROBE[0], "arguments": PROBE[1]}] * count, (pieces[:3], read)


def test_nested_values_are_written_as_the_template_writes_them() -> None:
    template = published_template(GEMMA4_TEMPLATES[0])
    arguments = {"query": "a, {b}: c", "filters": {"n": [1, 2.5], "lang": "en"}, "exact": True}
    call = {"id": "c1", "type": "function", "function": {"name": "search", "arguments": arguments}}
    text = template.render([{"role": "user", "content": "Find."}, {"role": "assistant", "content": "",
                                                                   "tool_calls": [call]}],
                           tools=None, add_generation_prompt=False).text
    written = write_gemma4([("search", arguments)])
    assert written in text, (written, text)
    for pieces in every_split(written):
        assert read_calls("gemma4", pieces) == ("", [{"name": "search", "arguments": arguments}])


def test_the_earlier_template_gets_results_as_tool_responses() -> None:
    history = (ChatMessage(role="user", content="Weather?"),
               ChatMessage(role="assistant", content="",
                           tool_calls=(PastCall("get_weather", '{"city": "Oslo"}', "c1"),)),
               ChatMessage(role="tool", content='{"sky": "sunny"}', tool_call_id="c1"),
               ChatMessage(role="assistant", content="It is sunny."))
    for name in GEMMA4_TEMPLATES:
        template = published_template(name)
        plan = plan_output(history, template, tools=ToolPolicy((WEATHER,)), constraint=None)
        text = template.render(plan.messages, tools=plan.template_tools).text
        assert '<|tool_call>call:get_weather{city:<|"|>Oslo<|"|>}<tool_call|>' in text, name
        # The earlier template gets the result as an object (read from its JSON), as llama.cpp hands it over.
        response = "sky:<|\"|>sunny<|\"|>" if name.endswith("interleaved.jinja") else 'value:<|"|>{"sky": "sunny"}<|"|>'
        assert f"<|tool_response>response:get_weather{{{response}}}<tool_response|>" in text, (name, text)
        assert "It is sunny." in text and "<|turn>tool" not in text


# ---- replies as the model card shows them ----------------------------------------------------------------------

FIXTURES: list[tuple[str, str, list[dict[str, Any]]]] = [
    ('<|tool_call>call:get_current_temperature{location:<|"|>London<|"|>}<tool_call|>',
     "", [{"name": "get_current_temperature", "arguments": {"location": "London"}}]),
    ('Let me check.<|tool_call>call:get_weather{city:<|"|>São Paulo<|"|>,days:3,hourly:false}<tool_call|>'
     '<|tool_call>call:get_time{}<tool_call|>',
     "Let me check.", [{"name": "get_weather", "arguments": {"city": "São Paulo", "days": 3, "hourly": False}},
                       {"name": "get_time", "arguments": {}}]),
    ('<|tool_call>call:search{filters:{lang:<|"|>en<|"|>,n:[1,2.5]},query:<|"|>it\'s {a}, [b]: c<|"|>,'
     'zone:null}<tool_call|>',
     "", [{"name": "search", "arguments": {"filters": {"lang": "en", "n": [1, 2.5]}, "query": "it's {a}, [b]: c",
                                           "zone": None}}]),
    ("No tools needed: {x: 4}.", "No tools needed: {x: 4}.", []),
]


@pytest.mark.parametrize("case", range(len(FIXTURES)))
def test_replies_read_into_words_and_calls_in_pieces_of_every_size(case: int) -> None:
    reply, words, wanted = FIXTURES[case]
    for pieces in every_split(reply):
        assert read_calls("gemma4", pieces) == (words, wanted), pieces[:3]


def test_gemma_values_become_json() -> None:
    assert gemma4_json('<|"|>a"b<|"|>') == '"a\\"b"'
    assert gemma4_json("[true,None,{k:[1,2]}]") == '[true, null, {"k": [1, 2]}]'
    assert gemma4_json("bare words") == '"bare words"'


# ---- the grammar ---------------------------------------------------------------------------------------------


def test_the_grammar_takes_the_family_s_writing_and_nothing_invented() -> None:
    one = gemma4_lark((WEATHER, CLOCK), False, "tool_choice", {})
    two = gemma4_lark((WEATHER, CLOCK), True, "tool_choice", {})
    assert takes(one, write_gemma4([PROBE]))
    assert takes(one, write_gemma4([("get_weather", {"city": "Paris"})]))
    assert takes(one, write_gemma4([("get_time", {})]))
    assert not takes(one, write_gemma4([PROBE, ("get_time", {})])), "one call unless parallel calls were asked"
    assert takes(two, write_gemma4([PROBE, ("get_time", {})]))
    assert not takes(one, write_gemma4([("get_weather", {"days": 2})])), "a required argument is missing"
    assert not takes(one, write_gemma4([("get_weather", {"city": "Paris", "extra": 1})])), "arguments are closed"
    assert not takes(one, write_gemma4([("get_news", {})])), "only the tools given"
    assert not takes(one, '<|tool_call>call:get_weather{city:"Paris"}<tool_call|>'), "strings in Gemma's quotes"


def test_auto_engages_at_the_call_marker() -> None:
    grammar = call_grammar("gemma4", ToolPolicy((WEATHER,), "auto"))
    assert grammar.trigger == "<|tool_call>" and not grammar.at_start


def test_a_name_that_cannot_be_written_bare_is_a_clear_error() -> None:
    with pytest.raises(ConstraintUnsatisfiable):
        gemma4_lark((ToolSpec("get weather", "", PARAMS),), False, "tools", {})
    with pytest.raises(ConstraintUnsatisfiable):
        gemma4_lark((ToolSpec("f", "", {"type": "object", "properties": {"a:b": {}}}),), False, "tools", {})


@pytest.mark.parametrize("parallel", [False, True])
def test_random_decoding_reads_back_as_valid_calls(parallel: bool) -> None:
    tools = (BOUNDED, CLOCK)
    grammar = gemma4_lark(tools, parallel, "tool_choice", {})
    assert_random_decodings_read_back("gemma4", grammar, tools, parallel=parallel, seeds=6)


# ---- a forced call after thinking ------------------------------------------------------------------------------

THINKING = "<|channel>thought\nThe user wants Paris, for two days.\n<channel|>"
CONTROL = {"<|tool_call>": 3, "<tool_call|>": 4, "<|channel>": 5, "<channel|>": 6}
"""Stand-ins for a vocabulary's control tokens (the bundled one's 3..11 are control tokens too)."""


def test_a_forced_grammar_with_thinking_on_takes_a_thinking_block_before_the_call() -> None:
    thinking = gemma4_lark((WEATHER, CLOCK), False, "tool_choice", {}, thinking=True)
    plain = gemma4_lark((WEATHER, CLOCK), False, "tool_choice", {})
    call = write_gemma4([PROBE])
    assert takes(thinking, THINKING + call) and takes(thinking, call), "thinking first, or the call at once"
    assert takes(thinking, "<|channel>thought<channel|>" + call), "an empty block"
    assert not takes(plain, THINKING + call), "with thinking off the call comes at once"
    assert not takes(thinking, "Let me check." + call), "no words before the call"
    assert not takes(thinking, THINKING + "Let me check." + call), "nor after the thinking"
    assert not takes(thinking, THINKING), "thinking alone is no call"
    assert not takes(thinking, THINKING + THINKING + call), "one thinking block"
    parallel = gemma4_lark((WEATHER, CLOCK), True, "tool_choice", {}, thinking=True)
    assert takes(parallel, THINKING + write_gemma4([PROBE, ("get_time", {})]))


def test_the_thinking_block_s_marks_are_taken_as_control_tokens_or_spelled_out() -> None:
    grammar = gemma4_lark((WEATHER,), False, "tool_choice", CONTROL, thinking=True)
    reply = THINKING + write_gemma4([PROBE])
    assert takes(grammar, reply), "spelled out"
    tokenizer = grammar_tokenizer().tokenizer
    tokens: list[int] = []
    for bit in reply.replace("<|channel>", "\0<|channel>\0").replace("<channel|>", "\0<channel|>\0") \
            .replace("<|tool_call>", "\0<|tool_call>\0").replace("<tool_call|>", "\0<tool_call|>\0").split("\0"):
        tokens += [CONTROL[bit]] if bit in CONTROL else tokenizer.tokenize_str(bit) if bit else []
    state = grammar_tokenizer().state(grammar)
    assert state.matcher.consume_tokens(tokens) and state.matcher.is_accepting(), state.error


@pytest.mark.parametrize("name", GEMMA4_TEMPLATES)
def test_plans_let_a_forced_call_follow_thinking_only_while_thinking_is_on(name: str) -> None:
    template = published_template(name)
    ask = (ChatMessage("user", "Weather in Paris?"),)
    assert template.thinking_on({}) and not template.thinking_on({"enable_thinking": False})
    off = template.render([{"role": "user", "content": "Weather in Paris?"}], kwargs={"enable_thinking": False})
    assert off.text.endswith("<|channel>thought\n<channel|>"), "the thinking-off prompt holds an empty block"
    call = write_gemma4([PROBE])
    for choice in ("required", "get_weather"):
        on = plan_output(ask, template, tools=ToolPolicy((WEATHER,), choice), constraint=None, thinking=True)
        plain = plan_output(ask, template, tools=ToolPolicy((WEATHER,), choice), constraint=None)
        assert on.grammar is not None and plain.grammar is not None and on.lazy is None
        assert takes(on.grammar, THINKING + call) and takes(on.grammar, call)
        assert not takes(plain.grammar, THINKING + call) and takes(plain.grammar, call)
    auto = [plan_output(ask, template, tools=ToolPolicy((WEATHER,), "auto"), constraint=None, thinking=thinking)
            for thinking in (False, True)]
    assert auto[0].lazy == auto[1].lazy, "auto leaves the reply free before the call marker either way"
    control = {**CONTROL, '<|"|>': 7}
    forced = plan_output(ask, template, tools=ToolPolicy((WEATHER,), "required"), constraint=None,
                         control=control, thinking=True)
    assert forced.preserve == frozenset(control.values()), "the channel marks are written out for the split"


def _split_then_read(pieces: list[str]) -> tuple[str, str, list[dict[str, Any]]]:
    """As a reply streams: the reasoning split first (the template's pair), then the call reader on the words."""
    output = TextOutput((), thinking=True, markers=published_template(GEMMA4_TEMPLATES[0]).reasoning)
    parts = [output.feed(piece.encode()) for piece in pieces] + [output.flush()]
    words, calls = read_calls("gemma4", [p.content for p in parts if p.content])
    return "".join(p.reasoning for p in parts), words, calls


def test_thinking_then_a_forced_call_reads_as_reasoning_and_the_call_in_pieces_of_every_size() -> None:
    assert published_template(GEMMA4_TEMPLATES[0]).reasoning == THOUGHT
    reply = THINKING + write_gemma4([PROBE, ("get_time", {})])
    wanted = [{"name": PROBE[0], "arguments": PROBE[1]}, {"name": "get_time", "arguments": {}}]
    for pieces in every_split(reply):
        assert _split_then_read(pieces) == ("\nThe user wants Paris, for two days.\n", "", wanted), pieces[:3]
    assert _split_then_read([write_gemma4([PROBE])]) == ("", "", wanted[:1]), "the call alone"
