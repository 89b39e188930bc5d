"""Functionary v3.2's ``>>>recipient`` messages: found from the template, written as its template writes them,
read back whole and in pieces, and held by a grammar whose random decodings read back as valid calls."""

from __future__ import annotations

import json
from typing import Any

import pytest

from superfluid.engine.decoding.recipient_reader import functionary_v3_2_lark, write_functionary_v3_2
from superfluid.engine.decoding.tool_calls import ToolSpec
from superfluid.engine.models.chat_template import ChatTemplate
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

NAME = "meetkai-functionary-medium-v3.2.jinja"
BOUNDED = ToolSpec("get_weather", "Weather.", {
    "type": "object", "properties": {"city": {"type": "string", "maxLength": 12},
                                     "unit": {"enum": ["celsius", "fahrenheit"]}}, "required": ["city"]})


def test_the_template_is_found_by_its_source() -> None:
    assert published_template(NAME).call_format == "functionary_v3_2"
    renamed = ChatTemplate(published_template(NAME).source, name="hermes-qwen", bos_token="<s>", eos_token="</s>")
    assert renamed.call_format == "functionary_v3_2"
    assert published_template("meetkai-functionary-medium-v3.1.jinja").call_format == "functionary_v3_1"


@pytest.mark.parametrize("count", [1, 2])
def test_the_family_writes_calls_as_its_template_does_and_reads_them_back(count: int) -> None:
    tools = [{"type": "function", "function": {"name": "get_weather", "description": "", "parameters": PARAMS}}]
    calls = [{"id": f"c{i}", "type": "function", "function": {"name": PROBE[0], "arguments": json.dumps(PROBE[1])}}
             for i in range(count)]
    text = published_template(NAME).render([{"role": "user", "content": "Weather?"},
                                            {"role": "assistant", "content": "", "tool_calls": calls}],
                                           tools=tools, add_generation_prompt=False).text
    written = write_functionary_v3_2([PROBE] * count)
    assert written + "<|eot_id|>" in text, (written, text)
    for reply in (written, written[3:]):  # as the history holds it, and after the prompt's own >>>
        for pieces in every_split(reply):
            content, read = read_calls("functionary_v3_2", pieces)
            assert (content, read) == ("", [{"name": PROBE[0], "arguments": PROBE[1]}] * count), pieces[:3]


FIXTURES: list[tuple[str, str, list[dict[str, Any]]]] = [
    ("all\nThe capital of France is Paris.", "The capital of France is Paris.", []),
    ('get_weather\n{"location": "San Francisco, CA", "unit": "celsius"}',
     "", [{"name": "get_weather", "arguments": {"location": "San Francisco, CA", "unit": "celsius"}}]),
    ('all\nLet me check both: a > b >> c.>>>get_weather\n{"city": "Oslo"}\n>>>get_time\n{}',
     "Let me check both: a > b >> c.", [{"name": "get_weather", "arguments": {"city": "Oslo"}},
                                        {"name": "get_time", "arguments": {}}]),
    ("Just words, no recipient at all.", "Just words, no recipient at all.", []),
]


@pytest.mark.parametrize("case", range(len(FIXTURES)))
def test_replies_read_into_words_and_calls_in_pieces_of_every_size(case: int) -> None:
    reply, words, wanted = FIXTURES[case]
    for pieces in every_split(reply):
        assert read_calls("functionary_v3_2", pieces) == (words, wanted), pieces[:3]


def test_the_grammar_takes_the_family_s_writing_and_nothing_invented() -> None:
    one = functionary_v3_2_lark((WEATHER, CLOCK), parallel=False, auto=False, param="tool_choice")
    two = functionary_v3_2_lark((WEATHER, CLOCK), parallel=True, auto=False, param="tool_choice")
    auto = functionary_v3_2_lark((WEATHER, CLOCK), parallel=True, auto=True, param="tools")
    after_prompt = write_functionary_v3_2([PROBE])[3:]
    both = write_functionary_v3_2([PROBE, ("get_time", {})])[3:]
    assert takes(one, after_prompt)
    assert not takes(one, both), "one call unless parallel calls were asked"
    assert takes(two, both)
    assert not takes(one, "all\nHello."), "a forced call is a call"
    assert takes(auto, "all\nHello, a > b.") and takes(auto, "all\nChecking.>>>" + both)
    assert takes(auto, both)
    assert not takes(one, write_functionary_v3_2([("get_weather", {"days": 2})])[3:]), "city is required"
    assert not takes(one, write_functionary_v3_2([("get_weather", {"city": "P", "x": 1})])[3:]), "closed"
    assert not takes(auto, write_functionary_v3_2([("get_news", {})])[3:]), "only the tools given"
    with pytest.raises(ConstraintUnsatisfiable):
        functionary_v3_2_lark((ToolSpec("get weather", "", PARAMS),), parallel=False, auto=False, param="tools")


@pytest.mark.parametrize("parallel", [False, True])
def test_random_decoding_reads_back_as_valid_calls(parallel: bool) -> None:
    tools = (BOUNDED, CLOCK)
    grammar = functionary_v3_2_lark(tools, parallel=parallel, auto=False, param="tool_choice")
    assert_random_decodings_read_back("functionary_v3_2", grammar, tools, parallel=parallel, seeds=4)
