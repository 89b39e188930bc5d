"""Kimi K3's XTML blocks: ``think``, ``response`` and ``tools``, each argument a block naming its JSON type."""

from __future__ import annotations

from typing import Any

import pytest

from superfluid.engine.decoding.grammar import compile_constraint
from superfluid.engine.decoding.kimi_k3_calls import kimi_k3_lark, write_kimi_k3
from superfluid.engine.decoding.kimi_k3_reader import KimiK3Reader
from superfluid.engine.decoding.output_plan import plan_output
from superfluid.engine.decoding.text_output import TextOutput
from superfluid.engine.decoding.tool_calls import ToolPolicy, ToolSpec, format_markers
from superfluid.engine.decoding.tool_grammars import call_grammar
from superfluid.engine.decoding.tool_readers import call_reader
from superfluid.engine.models.chat_template import ChatTemplate, close_reasoning
from superfluid.engine.types import ChatMessage
from superfluid.errors import ConstraintUnsatisfiable
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

NAME = "Kimi-K3.jinja"
RESPONSE_CLOSE = "<|close|>response<|sep|>"
MESSAGE_CLOSE = "<|close|>message<|sep|>"
BOUNDED = ToolSpec("get_weather", "Weather.", {
    "type": "object",
    "properties": {"city": {"type": "string", "maxLength": 12}, "unit": {"enum": ["celsius", "fahrenheit"]},
                   "days": {"type": "integer", "minimum": 1, "maximum": 9}, "hourly": {"type": "boolean"},
                   "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 2},
                   "where": {"type": "object", "properties": {"lat": {"type": "number"}}, "required": ["lat"]},
                   "limit": {"type": ["integer", "null"]}},
    "required": ["city"]})
NOTED = ToolSpec("get_weather", "Weather.", {**BOUNDED.parameters, "properties": {
    **BOUNDED.parameters["properties"], "note": {"type": "string"}}})
"""With a string of any length (random decoding would seldom end one)."""


def _template() -> ChatTemplate:
    return published_template(NAME)


# ---- the template ----------------------------------------------------------------------------------------------


def test_the_template_is_found_by_its_source_and_thinks_in_its_own_block() -> None:
    template = _template()
    assert template.call_format == "kimi_k3"
    assert template.reasoning == ("<|open|>think<|sep|>", "<|close|>think<|sep|>") and template.thinks
    renamed = ChatTemplate(template.source, name="qwen-hermes-llama", bos_token="<s>", eos_token="</s>")
    assert renamed.call_format == "kimi_k3"
    assert format_markers("kimi_k3") == ("<|open|>", "<|close|>", "<|sep|>", "<|end_of_msg|>")


def test_the_prompt_opens_the_think_block_or_with_thinking_off_the_response_block() -> None:
    template = _template()
    thinking = template.render([{"role": "user", "content": "Hi."}])
    assert thinking.text.endswith("<|open|>think<|sep|>") and thinking.starts_in_reasoning
    off = template.render([{"role": "user", "content": "Hi."}], kwargs={"thinking": False})
    assert off.text.endswith("<|open|>response<|sep|>") and not off.starts_in_reasoning
    # A forced reply closes the block as the template writes a turn without reasoning, and starts in the response.
    turn = template.render([{"role": "user", "content": "Hi."}, {"role": "assistant", "content": "Hello."}],
                           add_generation_prompt=False).text
    closed = "<|open|>think<|sep|>" + close_reasoning(thinking.text, template.reasoning[1])
    assert closed + "Hello." + RESPONSE_CLOSE in turn, turn


@pytest.mark.parametrize("count", [1, 2])
def test_the_family_writes_calls_as_the_template_does_and_reads_them_back(count: int) -> None:
    calls = [history_call(*PROBE, call_id=f"c{i}") for i in range(count)]
    text = _template().render([{"role": "user", "content": "Weather?"},
                               {"role": "assistant", "content": "", "tool_calls": calls}],
                              add_generation_prompt=False).text
    written = write_kimi_k3([PROBE] * count)
    assert RESPONSE_CLOSE + written + MESSAGE_CLOSE in text, (written, text)
    for pieces in every_split(written):
        assert read_calls("kimi_k3", pieces) == ("", [{"name": PROBE[0], "arguments": PROBE[1]}] * count), pieces[:3]


def test_typed_values_are_written_as_the_template_writes_them() -> None:
    arguments = {"query": 'say "hi" & <b>bye</b>\nthen 42', "filters": {"n": [1, 2.5], "lang": "en"},
                 "exact": True, "zone": None, "ids": ["a", 3], "my key": "x"}
    text = _template().render([{"role": "user", "content": "Find."},
                               {"role": "assistant", "content": "", "tool_calls": [history_call("search", arguments)]}],
                              add_generation_prompt=False).text
    written = write_kimi_k3([("search", arguments)])
    assert written in text, (written, text)
    assert 'type="boolean"' in written and 'type="null"' in written and 'type="object"' in written
    for pieces in every_split(written):
        assert read_calls("kimi_k3", pieces) == ("", [{"name": "search", "arguments": arguments}])


def test_history_reaches_the_template_as_it_reads_it() -> None:
    # A call with an id and one without (Ollama's), their results, reasoning, and the answer after.
    history = (ChatMessage("user", "Weather and time?"),
               ChatMessage.from_template_dict({
                   "role": "assistant", "content": "Checking.", "reasoning_content": "Two tools.", "tool_calls": [
                       history_call("get_weather", '{"city": "Oslo"}', "call_1"), history_call("get_time", "{}")]}),
               ChatMessage("tool", '{"sky": "clear"}', tool_call_id="call_1"),
               ChatMessage("tool", "09:30", name="get_time"),
               ChatMessage("assistant", "Clear, half past nine."))
    template = _template()
    plan = plan_output(history, template, tools=ToolPolicy((WEATHER, CLOCK)), constraint=None)
    text = template.render(plan.messages, tools=plan.template_tools).text
    assert ("<|open|>think<|sep|>Two tools.<|close|>think<|sep|><|open|>response<|sep|>Checking." + RESPONSE_CLOSE
            + write_kimi_k3([("get_weather", {"city": "Oslo"}), ("get_time", {})])) in text, text
    assert '<|open|>message role="tool" tool="get_weather" index="1"<|sep|>{"sky": "clear"}' in text
    assert '<|open|>message role="tool" tool="get_time" index="2"<|sep|>09:30' in text
    assert '<|open|>message role="system" type="tool-declare"<|sep|># Tools' in text, "the tools, declared natively"
    assert "You can call these tools" not in text


# ---- replies, in our own words after llama.cpp's Kimi K3 cases --------------------------------------------------

WORDS_ONLY = "<|open|>response<|sep|>Good morning!\nWhat shall we plan?" + RESPONSE_CLOSE + MESSAGE_CLOSE
ROLL = ('<|open|>call tool="roll_dice" index="1"<|sep|><|open|>argument key="sides" type="number"<|sep|>20'
        "<|close|>argument<|sep|><|close|>call<|sep|>")
FIXTURES: list[tuple[str, bool, str, str, list[dict[str, Any]]]] = [
    # (reply, starts in reasoning, reasoning, content, calls)
    (WORDS_ONLY, False, "", "Good morning!\nWhat shall we plan?", []),
    ("Weighing the question first<|close|>think<|sep|>" + WORDS_ONLY, True, "Weighing the question first",
     "Good morning!\nWhat shall we plan?", []),
    ("<|open|>response<|sep|>Open the tools menu, then close the message window." + RESPONSE_CLOSE + MESSAGE_CLOSE,
     False, "", "Open the tools menu, then close the message window.", []),
    ("Still weighing options when the budget ran", True, "Still weighing options when the budget ran", "", []),
    ("<|open|>response<|sep|>" + RESPONSE_CLOSE + "<|open|>tools<|sep|>" + ROLL + "<|close|>tools<|sep|>"
     + MESSAGE_CLOSE, False, "", "", [{"name": "roll_dice", "arguments": {"sides": 20}}]),
    ("A die will settle it<|close|>think<|sep|><|open|>response<|sep|>Rolling." + RESPONSE_CLOSE
     + "<|open|>tools<|sep|>" + ROLL + "<|close|>tools<|sep|>" + MESSAGE_CLOSE + "<|end_of_msg|>", True,
     "A die will settle it", "Rolling.", [{"name": "roll_dice", "arguments": {"sides": 20}}]),
    ("<|open|>response<|sep|>" + RESPONSE_CLOSE + "<|open|>tools<|sep|>" + ROLL
     + '<|open|>call tool="book_table" index="2"<|sep|><|open|>argument key="guests" type="number"<|sep|>4'
     "<|close|>argument<|sep|><|open|>argument key="
     '"terrace" type="boolean"<|sep|>false<|close|>argument<|sep|><|open|>argument key="dishes" type="array"'
     '<|sep|>["soup", "tart"]<|close|>argument<|sep|><|open|>argument key="note" type="null"<|sep|>null'
     "<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>" + MESSAGE_CLOSE, False, "", "",
     [{"name": "roll_dice", "arguments": {"sides": 20}},
      {"name": "book_table", "arguments": {"guests": 4, "terrace": False, "dishes": ["soup", "tart"],
                                           "note": None}}]),
    ("<|open|>response<|sep|>" + RESPONSE_CLOSE + '<|open|>tools<|sep|><|open|>call tool="run" index="1"<|sep|>'
     '<|open|>argument key="code" type="string"<|sep|>if a < b:\n    print("a&b", 7)<|close|>argument<|sep|>'
     "<|close|>call<|sep|><|close|>tools<|sep|>" + MESSAGE_CLOSE, False, "", "",
     [{"name": "run", "arguments": {"code": 'if a < b:\n    print("a&b", 7)'}}]),
    ("Sure, one moment." + RESPONSE_CLOSE + '<|open|>tools<|sep|><|open|>call tool="say &quot;hi&quot;" '
     'index="1"<|sep|><|open|>json type="object"<|sep|>{"to": "Ana"}<|close|>json<|sep|><|close|>call<|sep|>'
     "<|close|>tools<|sep|>" + MESSAGE_CLOSE, False, "", "Sure, one moment.",
     [{"name": 'say "hi"', "arguments": {"to": "Ana"}}]),
    (RESPONSE_CLOSE + "<|open|>tools<|sep|>" + ROLL + "<|close|>tools<|sep|>" + MESSAGE_CLOSE + "<|end_of_msg|>",
     False, "", "", [{"name": "roll_dice", "arguments": {"sides": 20}}]),
]


def _read_reply(pieces: list[str], in_reasoning: bool) -> tuple[str, str, list[dict[str, Any]]]:
    """A reply as the engine reads it: the reasoning split first, then the call reader on the rest."""
    output = TextOutput((), thinking=True, in_reasoning=in_reasoning, markers=_template().reasoning)
    parts = [output.feed(piece.encode()) for piece in pieces] + [output.flush()]
    content, calls = read_calls("kimi_k3", [p.content for p in parts if p.content])
    return "".join(p.reasoning for p in parts), content, calls


@pytest.mark.parametrize("case", range(len(FIXTURES)))
def test_replies_read_into_reasoning_words_and_calls_in_pieces_of_every_size(case: int) -> None:
    reply, opened, reasoning, content, calls = FIXTURES[case]
    for pieces in every_split(reply):
        assert _read_reply(pieces, opened) == (reasoning, content, calls), pieces[:3]


def test_string_values_stream_as_they_arrive_and_untyped_ones_follow_the_schema() -> None:
    reader = KimiK3Reader((WEATHER,))
    opening = '<|open|>tools<|sep|><|open|>call tool="get_weather" index="1"<|sep|><|open|>argument key="city"'
    first = reader.feed(opening + ' type="string"<|sep|>San ').calls
    assert first[0].name == "get_weather" and "".join(d.arguments for d in first) == '{"city": "San '
    assert [d.arguments for d in reader.feed("Francisco<|clo").calls] == ["Francisco"], "the close is held back"
    reader = KimiK3Reader((WEATHER,))  # no type attribute: the schema says city is a string, days is not
    reply = opening + '<|sep|>042<|close|>argument<|sep|><|open|>argument key="days"<|sep|>3<|close|>argument<|sep|>'
    arguments = "".join(d.arguments for d in reader.feed(reply + "<|close|>call<|sep|>").calls)
    assert arguments == '{"city": "042", "days": 3}'


def test_a_reply_cut_inside_a_piece_of_framing_leaves_no_markup() -> None:
    assert read_calls("kimi_k3", ["<|open|>response<|sep|>Hi there<|close|>resp"]) == ("Hi there", [])
    assert read_calls("kimi_k3", ["<|open|>response<|sep|>a <|open| b"]) == ("a <|open| b", [])
    assert read_calls("kimi_k3", [write_kimi_k3([PROBE]) + "<"]) == ("", [{"name": PROBE[0], "arguments": PROBE[1]}])
    assert read_calls("kimi_k3", ["Is a <"]) == ("Is a <", []), "an unframed reply keeps its words"
    reader = call_reader("kimi_k3")
    assert isinstance(reader, KimiK3Reader)


# ---- the grammar ---------------------------------------------------------------------------------------------


def test_the_grammar_takes_the_family_s_writing_and_nothing_invented() -> None:
    one = kimi_k3_lark((WEATHER, CLOCK), parallel=False, forced=True, param="tool_choice")
    two = kimi_k3_lark((WEATHER, CLOCK), parallel=True, forced=True, param="tool_choice")
    call = ("get_weather", {"city": "Paris", "days": 2})
    assert takes(one, RESPONSE_CLOSE + write_kimi_k3([call]))
    assert takes(one, RESPONSE_CLOSE + write_kimi_k3([call]) + MESSAGE_CLOSE + "<|end_of_msg|>")
    assert not takes(one, write_kimi_k3([call])), "a forced reply closes the response block first"
    assert not takes(one, "Sure." + RESPONSE_CLOSE + write_kimi_k3([call])), "and writes no words"
    assert takes(one, RESPONSE_CLOSE + write_kimi_k3([("get_weather", {"city": "Paris"})]))
    assert takes(one, RESPONSE_CLOSE + write_kimi_k3([("get_time", {})]))
    assert not takes(one, RESPONSE_CLOSE + write_kimi_k3([call, ("get_time", {})])), "one call unless parallel"
    assert takes(two, RESPONSE_CLOSE + write_kimi_k3([call, ("get_time", {})]))
    assert not takes(one, RESPONSE_CLOSE + write_kimi_k3([("get_weather", {"days": 2})])), "a required one missing"
    assert not takes(one, RESPONSE_CLOSE + write_kimi_k3([("get_weather", {"city": "Paris", "extra": 1})]))
    assert not takes(one, RESPONSE_CLOSE + write_kimi_k3([("get_news", {})])), "only the tools given"
    assert not takes(one, RESPONSE_CLOSE + write_kimi_k3([("get_weather", {"city": "Paris", "days": "2"})]))
    auto = kimi_k3_lark((WEATHER, CLOCK), parallel=False, forced=False, param="tools")
    assert takes(auto, write_kimi_k3([call])) and takes(auto, RESPONSE_CLOSE + write_kimi_k3([call]))


def test_plans_engage_auto_at_the_tools_block_and_force_the_rest() -> None:
    template = _template()
    ask = (ChatMessage("user", "Weather in Paris?"),)
    auto = plan_output(ask, template, tools=ToolPolicy((WEATHER,), "auto"), constraint=None)
    assert auto.lazy is not None and auto.lazy.trigger == "<|open|>tools<|sep|>" and not auto.lazy.at_start
    assert auto.grammar is None and auto.reader == "kimi_k3"
    forced = plan_output(ask, template, tools=ToolPolicy((WEATHER,), "get_weather"), constraint=None)
    assert forced.lazy is None and forced.grammar is not None
    assert call_grammar("kimi_k3", ToolPolicy((WEATHER,), "required")).trigger is None
    control = {"<|open|>": 3, "<|close|>": 4, "<|sep|>": 5, "<|end_of_msg|>": 6}
    words = plan_output(ask, template, tools=None, constraint=None, control=control)
    assert words.reader == "kimi_k3" and words.preserve == frozenset(control.values()), "framing out of every reply"


def test_markers_held_as_control_tokens_are_taken_as_those_tokens_or_spelled_out() -> None:
    control = {"<|open|>": 3, "<|close|>": 4, "<|sep|>": 5, "<|end_of_msg|>": 6}
    grammar = compile_constraint(call_grammar("kimi_k3", ToolPolicy((NOTED,), "required"), control).constraint)
    reply = (RESPONSE_CLOSE + write_kimi_k3([("get_weather", {"city": "Oslo", "days": 3, "note": "a <b> & <|c|"})])
             + MESSAGE_CLOSE + "<|end_of_msg|>")
    assert takes(grammar, reply), "spelled out"
    tokenizer = grammar_tokenizer().tokenizer
    tokens: list[int] = []
    for bit in reply.replace("<|", "\0<|").replace("|>", "|>\0").split("\0"):
        tokens += [control[bit]] if bit in control else tokenizer.tokenize_str(bit) if bit else []
    state = grammar_tokenizer().state(grammar)
    assert state.matcher.consume_tokens(tokens) and state.matcher.is_accepting(), state.error


def test_names_and_parameters_it_cannot_write_are_refused() -> None:
    with pytest.raises(ConstraintUnsatisfiable):
        kimi_k3_lark((ToolSpec("get<|sep|>weather", "", PARAMS),), parallel=False, forced=True, param="tools")
    with pytest.raises(ConstraintUnsatisfiable):
        kimi_k3_lark((ToolSpec("f", "", {"type": "array"}),), parallel=False, forced=True, param="tools")


@pytest.mark.parametrize("parallel", [False, True])
@pytest.mark.parametrize("forced", [False, True])
def test_random_decoding_reads_back_as_valid_calls(parallel: bool, forced: bool) -> None:
    grammar = kimi_k3_lark((BOUNDED, CLOCK), parallel=parallel, forced=forced, param="tool_choice")
    assert_random_decodings_read_back("kimi_k3", grammar, (BOUNDED, CLOCK), parallel=parallel, seeds=5)
