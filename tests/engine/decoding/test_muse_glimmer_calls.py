"""Muse Glimmer's messages to recipients: ``self`` the reasoning, ``user`` the words, a function an ATEM block."""

from __future__ import annotations

from typing import Any

import pytest

from superfluid.engine.decoding.grammar import Constraint, compile_constraint
from superfluid.engine.decoding.muse_glimmer_calls import TRIGGER, muse_glimmer_lark, write_muse_glimmer
from superfluid.engine.decoding.muse_glimmer_reader import MuseGlimmerReader
from superfluid.engine.decoding.output_plan import plan_output
from superfluid.engine.decoding.text_output import TextOutput
from superfluid.engine.decoding.tool_calls import ToolPolicy, ToolSpec
from superfluid.engine.decoding.tool_grammars import call_grammar
from superfluid.engine.decoding.tool_readers import call_reader
from superfluid.engine.models.chat_template import ChatTemplate
from superfluid.engine.types import ChatMessage
from superfluid.errors import ConstraintUnsatisfiable, UnsupportedParameter
from tests.engine.bundled_vocab import grammar_tokenizer
from tests.engine.decoding.call_reading import (
    CLOCK,
    PARAMS,
    PROBE,
    WEATHER,
    assert_random_decodings_read_back,
    every_split,
    history_call,
    published_template,
    read_calls,
    takes,
)

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning:llama_cpp")

NAME = "muse-glimmer.jinja"
BOUNDED = ToolSpec("get_weather", "Weather.", {
    "type": "object",
    "properties": {"city": {"type": "string", "maxLength": 12}, "unit": {"enum": ["celsius", "fahrenheit"]},
                   "days": {"type": "integer", "minimum": 1, "maximum": 9}, "hourly": {"type": "boolean"},
                   "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 2}},
    "required": ["city"]})
CONTROL = {m: 3 + i for i, m in enumerate(("<|start|>", "<|message|>", "<|eom|>", "<atem:function_calls>",
                                           "<atem:invoke", "<atem:parameter", "</atem:parameter>",
                                           "</atem:invoke>", "</atem:function_calls>"))}
"""Stand-ins for a vocabulary's control tokens (the bundled one's 3..11 are control tokens too)."""


def _template() -> ChatTemplate:
    return published_template(NAME)


# ---- the template ----------------------------------------------------------------------------------------------


def test_the_template_is_found_by_its_source_and_reasons_to_itself() -> None:
    template = _template()
    assert template.call_format == "muse_glimmer"
    assert template.reasoning == (" to=self<|message|>", "<|eom|>") and template.thinks
    renamed = ChatTemplate(template.source, name="qwen-hermes-llama", bos_token="<s>", eos_token="</s>")
    assert renamed.call_format == "muse_glimmer"
    prompt = template.render([{"role": "user", "content": "Hi."}])
    assert prompt.text.endswith("<|start|>assistant") and not prompt.starts_in_reasoning


@pytest.mark.parametrize("count", [1, 2])
def test_the_family_writes_calls_as_the_template_does_and_reads_them_back(count: int) -> None:
    calls = [history_call(*PROBE, call_id=f"c{i}") for i in range(count)]
    text = _template().render([{"role": "user", "content": "Weather?"},
                               {"role": "assistant", "content": "", "tool_calls": calls}],
                              add_generation_prompt=False).text
    written = write_muse_glimmer([PROBE] * count)
    assert "<|start|>assistant" + written + "<|eot|>" in text, (written, text)
    for pieces in every_split(written + "<|eot|>"):
        assert read_calls("muse_glimmer", pieces) == ("", [{"name": PROBE[0], "arguments": PROBE[1]}] * count)


def test_values_are_written_as_the_template_writes_them() -> None:
    arguments = {"query": 'say "hi"\nthen <b>go</b>', "filters": {"n": [1, 2.5], "lang": "en"}, "exact": True,
                 "zone": None, "ids": ["a", 3], "page": 2}
    text = _template().render([{"role": "user", "content": "Find."},
                               {"role": "assistant", "content": "", "tool_calls": [history_call("search", arguments)]}],
                              add_generation_prompt=False).text
    written = write_muse_glimmer([("search", arguments)])
    assert written in text, (written, text)
    tool = ToolSpec("search", "", {"type": "object", "properties": {"query": {"type": "string"}}})
    for pieces in every_split(written):
        assert read_calls("muse_glimmer", pieces, (tool,)) == ("", [{"name": "search", "arguments": arguments}])


def test_history_reaches_the_template_as_it_reads_it() -> None:
    history = (ChatMessage("user", "Weather and time?"),
               ChatMessage.from_template_dict({
                   "role": "assistant", "content": "", "reasoning_content": "Two tools.", "tool_calls": [
                       history_call("get_weather", '{"city": "Oslo"}', "call_1"),
                       history_call("get_time", "{}", "call_2")]}),
               ChatMessage("tool", '{"sky": "clear"}', tool_call_id="call_1"),
               ChatMessage("tool", "09:30", name="get_time"),
               ChatMessage("assistant", "Clear, half past nine."))
    template = _template()
    plan = plan_output(history, template, tools=ToolPolicy((WEATHER, CLOCK)), constraint=None)
    text = template.render(plan.messages, tools=plan.template_tools).text
    calls = write_muse_glimmer([("get_weather", {"city": "Oslo"}), ("get_time", {})])
    assert "<|start|>assistant to=self<|message|>Two tools.<|eom|><|start|>assistant" + calls + "<|eot|>" in text
    assert '<|start|>tool get_weather<|message|><tool_output name="get_weather">\n{"sky": "clear"}' in text
    assert '<|start|>tool get_time<|message|><tool_output name="get_time">\n09:30' in text
    assert '"get_weather.*"' in text and "You can call these tools" not in text, "the tools, declared natively"


# ---- replies, in our own words after llama.cpp's Muse Glimmer cases ---------------------------------------------

STOCK = ('<atem:function_calls>\n<atem:invoke name="check_stock">\n<atem:parameter name="sku">A-12'
         '</atem:parameter>\n<atem:parameter name="count">3</atem:parameter>\n</atem:invoke>\n</atem:function_calls>')
STOCK_CALL = {"name": "check_stock", "arguments": {"sku": "A-12", "count": 3}}
FIXTURES: list[tuple[str, str, str, list[dict[str, Any]]]] = [
    # (reply, reasoning, content, calls)
    (" to=user<|message|>Good evening!\nAnything to plan?<|eot|>", "", "Good evening!\nAnything to plan?", []),
    (" to=check_stock<|message|>" + STOCK, "", "", [STOCK_CALL]),
    (" to=user<|message|>Checking the shelf now.<|eom|><|start|>assistant to=check_stock<|message|>" + STOCK
     + "<|eot|>", "", "Checking the shelf now.", [STOCK_CALL]),
    (" to=user<|message|>A call looks like this:\n" + STOCK + "<|eot|>", "", "A call looks like this:\n" + STOCK,
     []),
    (" to=self<|message|>A greeting is wanted<|eom|><|start|>assistant to=user<|message|>Hello there!<|eot|>",
     "A greeting is wanted", "Hello there!", []),
    (" to=self<|message|>Maybe " + STOCK + " later<|eom|><|start|>assistant to=user<|message|>Not yet.<|eot|>",
     "Maybe " + STOCK + " later", "Not yet.", []),
    (" to=self<|message|>Two shelves<|eom|><|start|>assistant to=check_stock<|message|>" + STOCK
     + '<|eom|><|start|>assistant to=ship<|message|><atem:function_calls>\n<atem:invoke name="ship">\n'
     '<atem:parameter name="rush">false</atem:parameter>\n<atem:parameter name="note">null</atem:parameter>\n'
     '<atem:parameter name="boxes">[1, 2]</atem:parameter>\n</atem:invoke>\n</atem:function_calls><|eot|>',
     "Two shelves", "", [STOCK_CALL, {"name": "ship", "arguments": {"rush": False, "note": None, "boxes": [1, 2]}}]),
    ("<|message|>Words without a recipient.<|eot|>", "", "Words without a recipient.", []),
    ("Plain words, no framing at all.", "", "Plain words, no framing at all.", []),
]


def _read_reply(pieces: list[str]) -> tuple[str, str, list[dict[str, Any]]]:
    """A reply as the engine reads it: the reasoning split first, then the call reader on the rest."""
    output = TextOutput((), thinking=True, markers=_template().reasoning)
    parts = [output.feed(piece.encode()) for piece in pieces] + [output.flush()]
    content, calls = read_calls("muse_glimmer", [p.content for p in parts if p.content])
    return "".join(p.reasoning for p in parts), content, calls


@pytest.mark.parametrize("case", range(len(FIXTURES)))
def test_replies_read_into_reasoning_words_and_calls_in_pieces_of_every_size(case: int) -> None:
    reply, reasoning, content, calls = FIXTURES[case]
    for pieces in every_split(reply):
        assert _read_reply(pieces) == (reasoning, content, calls), pieces[:3]


def test_string_values_stream_as_they_arrive() -> None:
    reader = MuseGlimmerReader((WEATHER,))
    head = ' to=get_weather<|message|><atem:function_calls>\n<atem:invoke name="get_weather">\n'
    first = reader.feed(head + '<atem:parameter name="city">San ').calls
    assert first[0].name == "get_weather" and "".join(d.arguments for d in first) == '{"city": "San '
    assert [d.arguments for d in reader.feed("Jose<|eo").calls] == ["Jose"]
    assert isinstance(call_reader("muse_glimmer"), MuseGlimmerReader)


def test_a_reply_cut_inside_the_framing_leaves_no_markup() -> None:
    assert read_calls("muse_glimmer", [" to=user<|message|>Hi there<|eo"]) == ("Hi there", [])
    assert read_calls("muse_glimmer", [" to=user<|message|>Hi<|eom|><|start|>assis"]) == ("Hi", [])


# ---- the grammar ---------------------------------------------------------------------------------------------


def test_the_grammar_takes_the_family_s_writing_and_nothing_invented() -> None:
    one = muse_glimmer_lark((WEATHER, CLOCK), parallel=False, forced=True, param="tool_choice")
    two = muse_glimmer_lark((WEATHER, CLOCK), parallel=True, forced=True, param="tool_choice")
    call = ("get_weather", {"city": "Paris", "days": 2})
    assert takes(one, write_muse_glimmer([call]))
    assert takes(one, write_muse_glimmer([("get_weather", {"city": "Paris"})]))
    assert takes(one, write_muse_glimmer([("get_time", {})]))
    assert not takes(one, write_muse_glimmer([call, ("get_time", {})])), "one call unless parallel calls were asked"
    assert takes(two, write_muse_glimmer([call, ("get_time", {})]))
    assert not takes(one, write_muse_glimmer([("get_weather", {"days": 2})])), "a required argument is missing"
    assert not takes(one, write_muse_glimmer([("get_weather", {"city": "Paris", "extra": 1})])), "arguments closed"
    assert not takes(one, write_muse_glimmer([("get_news", {})])), "only the tools given"
    assert not takes(one, " to=user<|message|>Hi."), "a forced reply is a call"
    auto = muse_glimmer_lark((WEATHER, CLOCK), parallel=False, forced=False, param="tools")
    written = write_muse_glimmer([call])
    assert takes(auto, written[written.index(TRIGGER):]), "auto holds the reply from the trigger on"


def test_plans_engage_auto_at_a_message_that_is_a_block() -> None:
    template = _template()
    ask = (ChatMessage("user", "Weather in Paris?"),)
    auto = plan_output(ask, template, tools=ToolPolicy((WEATHER,), "auto"), constraint=None)
    assert auto.lazy is not None and auto.lazy.trigger == "<|message|><atem:function_calls>"
    assert not auto.lazy.at_start and auto.grammar is None and auto.reader == "muse_glimmer"
    assert call_grammar("muse_glimmer", ToolPolicy((WEATHER,), "required")).trigger is None
    words = plan_output(ask, template, tools=None, constraint=None, control=CONTROL)
    assert words.reader == "muse_glimmer" and words.preserve == frozenset(CONTROL.values())
    schema = Constraint.for_schema({"type": "object"})
    with pytest.raises(UnsupportedParameter):
        plan_output(ask, template, tools=ToolPolicy((WEATHER,), "auto"), constraint=schema)


def test_markers_held_as_control_tokens_are_taken_as_those_tokens_or_spelled_out() -> None:
    tool = ToolSpec("get_weather", "", {**PARAMS, "properties": {**PARAMS["properties"], "note": {"type": "string"}}})
    grammar = compile_constraint(call_grammar("muse_glimmer", ToolPolicy((tool,), "required"), CONTROL).constraint)
    reply = write_muse_glimmer([("get_weather", {"city": "Oslo", "days": 3, "note": "a <b> & </c"})])
    assert takes(grammar, reply), "spelled out"
    tokenizer = grammar_tokenizer().tokenizer
    tokens: list[int] = []
    rest = reply
    while rest:
        marker = next((m for m in CONTROL if rest.startswith(m)), None)
        if marker:
            tokens.append(CONTROL[marker])
            rest = rest[len(marker):]
            continue
        ends = [at for m in CONTROL if (at := rest.find(m)) > 0]
        text, rest = rest[: min(ends, default=len(rest))], rest[min(ends, default=len(rest)):]
        tokens += tokenizer.tokenize_str(text)
    state = grammar_tokenizer().state(grammar)
    assert state.matcher.consume_tokens(tokens) and state.matcher.is_accepting(), state.error


def test_names_and_parameters_it_cannot_write_are_refused() -> None:
    with pytest.raises(ConstraintUnsatisfiable):
        muse_glimmer_lark((ToolSpec("get weather", "", PARAMS),), parallel=False, forced=True, param="tools")
    with pytest.raises(ConstraintUnsatisfiable):
        muse_glimmer_lark((ToolSpec("f", "", {"type": "array"}),), parallel=False, forced=True, param="tools")


@pytest.mark.parametrize("parallel", [False, True])
def test_random_decoding_reads_back_as_valid_calls(parallel: bool) -> None:
    grammar = muse_glimmer_lark((BOUNDED, CLOCK), parallel=parallel, forced=True, param="tool_choice")
    assert_random_decodings_read_back("muse_glimmer", grammar, (BOUNDED, CLOCK), parallel=parallel, seeds=5,
                                      reader_tools=True)
