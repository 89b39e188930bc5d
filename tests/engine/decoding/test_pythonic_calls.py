"""LFM2 and LFM2.5's Python calls: found from the template, written as LFM2.5's template writes them, read back
whole and in pieces, and held by a grammar whose random decodings read back as valid calls."""

from __future__ import annotations

from typing import Any

import pytest

from superfluid.engine.decoding.output_plan import plan_output
from superfluid.engine.decoding.pythonic_calls import lfm2_lark, literal_json, write_lfm2
from superfluid.engine.decoding.tool_calls import ToolPolicy, ToolSpec
from superfluid.engine.models.chat_template import ChatTemplate
from superfluid.engine.types import ChatMessage, PastCall
from superfluid.errors import ConstraintUnsatisfiable
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

LFM2_TEMPLATES = ("LFM2-8B-A1B.jinja", "LFM2.5-8B-A1B.jinja", "LFM2.5-Instruct.jinja")
BOUNDED = ToolSpec("get_weather", "Weather.", {
    "type": "object",
    "properties": {"city": {"type": "string"}, "unit": {"enum": ["celsius", "fahrenheit"]},
                   "days": {"type": "integer", "minimum": 1, "maximum": 9}, "hourly": {"type": "boolean"},
                   "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 2}},
    "required": ["city"]})


# ---- the templates ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", LFM2_TEMPLATES)
def test_the_lfm2_templates_are_found_by_their_source(name: str) -> None:
    assert published_template(name).call_format == "lfm2"
    renamed = ChatTemplate(published_template(name).source, name="qwen-hermes-llama", bos_token="<s>", eos_token="</s>")
    assert renamed.call_format == "lfm2"


@pytest.mark.parametrize("count", [1, 2])
def test_the_family_writes_calls_as_lfm25_s_template_does_and_reads_them_back(count: int) -> None:
    template = published_template("LFM2.5-8B-A1B.jinja")
    tools = [{"type": "function", "function": {"name": "get_weather", "description": "", "parameters": PARAMS}}]
    calls = [{"id": f"c{i}", "type": "function", "function": {"name": PROBE[0], "arguments": PROBE[1]}}
             for i in range(count)]
    text = template.render([{"role": "user", "content": "Weather?"}, {"role": "assistant", "content": "",
                                                                      "tool_calls": calls}],
                           tools=tools, add_generation_prompt=False).text
    written = write_lfm2([PROBE] * count)
    assert written in text, (written, text)
    reply = text[text.index(written):text.index(written) + len(written)]
    for pieces in every_split(reply):
        content, read = read_calls("lfm2", pieces)
        assert content == "" and read == [{"name": PROBE[0], "arguments": PROBE[1]}] * count, (pieces[:3], read)


def test_earlier_calls_reach_the_templates_that_leave_them_out() -> None:
    history = (ChatMessage(role="user", content="Weather?"),
               ChatMessage(role="assistant", content="",
                           tool_calls=(PastCall("get_weather", '{"city": "Oslo"}', "c1"),)),
               ChatMessage(role="tool", content="Sunny.", tool_call_id="c1"))
    for name in LFM2_TEMPLATES:
        template = published_template(name)
        plan = plan_output(history, template, tools=ToolPolicy((WEATHER,)), constraint=None)
        text = template.render(plan.messages, tools=plan.template_tools).text
        assert "<|tool_call_start|>[get_weather(city='Oslo')]<|tool_call_end|>" in text, name
        assert "Sunny." in text


# ---- replies as the model cards show them ----------------------------------------------------------------------

FIXTURES: list[tuple[str, str, list[dict[str, Any]]]] = [
    ('<|tool_call_start|>[get_candidate_status(candidate_id="12345")]<|tool_call_end|>Checking the status.',
     "Checking the status.", [{"name": "get_candidate_status", "arguments": {"candidate_id": "12345"}}]),
    ("Let me look.\n<|tool_call_start|>[get_weather(city='São Paulo', days=3, hourly=False), "
     "get_time(zone=None)]<|tool_call_end|>",
     "Let me look.\n", [{"name": "get_weather", "arguments": {"city": "São Paulo", "days": 3, "hourly": False}},
                        {"name": "get_time", "arguments": {"zone": None}}]),
    ("<|tool_call_start|>[search(query='it\\'s (a) test, really', filters={'lang': 'en', 'n': [1, 2.5]}, "
     "exact=true)]<|tool_call_end|>",
     "", [{"name": "search", "arguments": {"query": "it's (a) test, really",
                                           "filters": {"lang": "en", "n": [1, 2.5]}, "exact": True}}]),
    ('<|tool_call_start|>[{"name": "get_weather", "arguments": {"city": "Lima"}}]<|tool_call_end|>',
     "", [{"name": "get_weather", "arguments": {"city": "Lima"}}]),
    ("No tools needed: the answer is [4].", "No tools needed: the answer is [4].", []),
]


@pytest.mark.parametrize("case", range(len(FIXTURES)))
def test_replies_read_into_words_and_calls_in_pieces_of_every_size(case: int) -> None:
    reply, words, wanted = FIXTURES[case]
    for pieces in every_split(reply):
        assert read_calls("lfm2", pieces) == (words, wanted), pieces[:3]


def test_python_literals_become_json() -> None:
    assert literal_json("'a\"b'") == '"a\\"b"'
    assert literal_json("[True, None, {'k': (1, 2)}]") == '[true, null, {"k": [1, 2]}]'
    assert literal_json("not a literal") == '"not a literal"'


# ---- the grammar ---------------------------------------------------------------------------------------------


def test_the_grammar_takes_the_family_s_writing_and_nothing_invented() -> None:
    one = lfm2_lark((WEATHER, CLOCK), False, "tool_choice", {})
    two = lfm2_lark((WEATHER, CLOCK), True, "tool_choice", {})
    assert takes(one, write_lfm2([PROBE]))
    assert takes(one, '<|tool_call_start|>[get_weather(city="Paris")]<|tool_call_end|>')
    assert takes(one, write_lfm2([("get_time", {})]))
    assert not takes(one, write_lfm2([PROBE, ("get_time", {})])), "one call unless parallel calls were asked"
    assert takes(two, write_lfm2([PROBE, ("get_time", {})]))
    assert not takes(one, write_lfm2([("get_weather", {"days": 2})])), "a required argument is missing"
    assert not takes(one, write_lfm2([("get_weather", {"city": "Paris", "extra": 1})])), "arguments are closed"
    assert not takes(one, write_lfm2([("get_news", {})])), "only the tools given"


def test_a_name_that_cannot_be_a_python_call_is_a_clear_error() -> None:
    with pytest.raises(ConstraintUnsatisfiable):
        lfm2_lark((ToolSpec("get weather", "", PARAMS),), False, "tools", {})


@pytest.mark.parametrize("parallel", [False, True])
def test_random_decoding_reads_back_as_valid_calls(parallel: bool) -> None:
    tools = (BOUNDED, CLOCK)
    grammar = lfm2_lark(tools, parallel, "tool_choice", {})
    assert_random_decodings_read_back("lfm2", grammar, tools, parallel=parallel, seeds=6)
