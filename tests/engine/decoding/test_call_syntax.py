"""The call-syntax families: each family's pieces as its published templates write them, its grammar, and its
reader on whole and streamed replies.

Three kinds of evidence per family:

* the published templates (``tests/engine/models/published_templates``) render an assistant turn's calls, and
  that rendering is both what :meth:`CallSyntax.write` writes (for the template each family was taken from) and
  what the family's reader reads back into the same calls, fed whole, one character at a time and in pieces of
  every size;
* replies written the way the models' own documentation shows them (reasoning or words before the calls,
  several calls, a multi-line code argument), rewritten here as fixtures;
* the generation grammar accepts the family's writing, refuses invented keys and names, and random decoding
  under it reads back as calls whose arguments validate.
"""

from __future__ import annotations

import functools
import json
import textwrap
from pathlib import Path
from typing import Any

import pytest

from superfluid.engine.decoding.call_syntax import PROBE_CALL, SYNTAXES, CallSyntax
from superfluid.engine.decoding.output_plan import plan_output
from superfluid.engine.decoding.syntax_grammar import syntax_lark
from superfluid.engine.decoding.tool_calls import ToolPolicy, ToolSpec, tool_format
from superfluid.engine.decoding.tool_readers import call_reader
from superfluid.engine.models.chat_template import ChatTemplate
from superfluid.engine.types import ChatMessage, PastCall
from superfluid.errors import ConstraintUnsatisfiable
from tests.engine.decoding.call_reading import assert_random_decodings_read_back, every_split, read_calls, takes

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning:llama_cpp")

FOLDER = Path(__file__).parents[1] / "models" / "published_templates"

PARAMS = {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
          "required": ["city"]}
WEATHER = ToolSpec("get_weather", "Weather.", PARAMS)
CODE = ToolSpec("write_file", "Write a file.", {
    "type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"},
                                     "mode": {"enum": ["create", "overwrite"]}},
    "required": ["path", "content"]})
BOUNDED = ToolSpec("get_weather", "Weather.", {
    "type": "object",
    "properties": {"city": {"type": "string", "maxLength": 12}, "unit": {"enum": ["celsius", "fahrenheit"]},
                   "days": {"type": "integer", "minimum": 1, "maximum": 9}},
    "required": ["city"]})
CLOCK = ToolSpec("get_time", "Time.", {"type": "object", "properties": {}})

# The template each family's pieces were taken from: its rendering is the family's writing, byte for byte.
SOURCES = {
    "qwen3_coder": "Qwen3-Coder.jinja", "seed_oss": "ByteDance-Seed-OSS.jinja", "glm": "GLM-4.6.jinja",
    "glm_compact": "GLM-4.7-Flash.jinja", "minimax_m2": "MiniMax-M2.jinja", "dsml": "deepseek-ai-DeepSeek-V3.2.jinja",
    "dsml_tools": "deepseek-ai-DeepSeek-V4.jinja", "hunyuan": "tencent-Hy3.jinja",
    "minicpm": "openbmb-MiniCPM5-1B.jinja", "kimi_k2": "moonshotai-Kimi-K2.jinja",
    "deepseek_r1": "llama-cpp-deepseek-r1.jinja", "deepseek_v3": "deepseek-ai-DeepSeek-V3.1.jinja",
    "mistral_args": "mistralai-Ministral-3-14B-Reasoning-2512.jinja",
    "mistral_call_id": "Mistral-Small-3.2-24B-Instruct-2506.jinja",
    "functionary_v3_1": "meetkai-functionary-medium-v3.1.jinja",
    "nemotron_v2": "NVIDIA-Nemotron-Nano-v2.jinja", "apriel": "Apriel-1.6-15b-Thinker-fixed.jinja",
    "minimax_m1": "MiniMax-M1.jinja", "firefunction_v2": "fireworks-ai-llama-3-firefunction-v2.jinja",
    "gigachat": "GigaChat3.1-10B-A1.8B.jinja", "apertus": "Apertus-8B-Instruct.jinja",
    "command_r7b": "CohereForAI-c4ai-command-r7b-12-2024-tool_use.jinja",
    "command_r_plus": "CohereForAI-c4ai-command-r-plus-tool_use.jinja",
    "solar_open": "upstage-Solar-Open-100B.jinja", "gigachat_v3": "GigaChat3-10B-A1.8B.jinja",
}


@functools.cache
def _template(name: str) -> ChatTemplate:
    return ChatTemplate((FOLDER / name).read_text(), name=name, bos_token="<s>", eos_token="</s>")


DROPS_CALLS = {"deepseek-ai-DeepSeek-R1-Distill-Llama-8B.jinja", "ibm-granite-granite-3.3-2B-Instruct.jinja"}
"""Templates of a family (by their pieces) that leave an assistant turn's calls out of the prompt: there is no
rendering of theirs to read back."""


def _syntax_templates() -> list[str]:
    """Every published template that writes its calls in a call-syntax family."""
    return [p.name for p in sorted(FOLDER.glob("*.jinja"))
            if _template(p.name).call_format in SYNTAXES and p.name not in DROPS_CALLS]


def _rendered_calls(template: ChatTemplate, count: int) -> str:
    """The text a template renders for an assistant turn of ``count`` calls (after the prompt before it)."""
    name, arguments = PROBE_CALL
    tools = [{"type": "function", "function": {"name": name, "description": "Weather.", "parameters": PARAMS}}]
    ask = [{"role": "user", "content": "Weather in Paris?"}]
    calls = [{"id": f"abcDEF12{i}", "type": "function", "function": {"name": name, "arguments": arguments}}
             for i in range(count)]
    before = template.render(ask, tools=tools, add_generation_prompt=True).text
    after = template.render([*ask, {"role": "assistant", "content": "", "tool_calls": calls}], tools=tools,
                            add_generation_prompt=False).text
    shared = 0
    while shared < min(len(before), len(after)) and before[shared] == after[shared]:
        shared += 1
    trigger = SYNTAXES[template.call_format].trigger
    return after[after.find(trigger, max(0, shared - len(trigger))):]






# ---- the published templates -----------------------------------------------------------------------------------


def test_the_families_cover_the_templates_they_were_taken_from() -> None:
    for fmt, name in SOURCES.items():
        assert _template(name).call_format == fmt, name
    assert len(_syntax_templates()) >= 33


@pytest.mark.parametrize("fmt", sorted(SOURCES))
def test_a_family_writes_calls_as_its_template_does(fmt: str) -> None:
    template = _template(SOURCES[fmt])
    syntax = SYNTAXES[fmt]
    one = _rendered_calls(template, 1)
    if fmt == "mistral_call_id":  # the template writes the history's own id where the grammar has any nine
        one = one.replace("[CALL_ID]abcDEF120", "[CALL_ID]000000000")
    if fmt == "solar_open":  # the same, with ten characters
        one = one.replace("<|tool_call:begin|>abcDEF120", "<|tool_call:begin|>0000000000")
    if fmt == "command_r_plus":  # the template indents the arguments' JSON, which the grammar writes compact
        indented = textwrap.indent(json.dumps(PROBE_CALL[1], indent=4), " " * 8).lstrip()
        one = one.replace(indented, json.dumps(PROBE_CALL[1]))
    assert one.startswith(syntax.write([PROBE_CALL]).lstrip()), (one, syntax.write([PROBE_CALL]))


def test_a_one_call_family_gets_earlier_parallel_calls_one_a_turn() -> None:
    template = _template(SOURCES["gigachat_v3"])
    calls = tuple(PastCall("get_weather", {"city": city}, f"c{i}") for i, city in enumerate(("Oslo", "Bergen")))
    history = (ChatMessage(role="user", content="Weather?"),
               ChatMessage(role="assistant", content="", tool_calls=calls),
               ChatMessage(role="tool", content="Sunny.", tool_call_id="c0"),
               ChatMessage(role="tool", content="Rain.", tool_call_id="c1"))
    plan = plan_output(history, template, tools=ToolPolicy((WEATHER,)), constraint=None)
    text = template.render(plan.messages, tools=plan.template_tools).text
    oslo, bergen = (SYNTAXES["gigachat_v3"].write([("get_weather", {"city": c})]) for c in ("Oslo", "Bergen"))
    assert oslo in text and bergen in text, text
    assert text.index(oslo) < text.index("Sunny.") < text.index(bergen) < text.index("Rain.")


def test_solar_open_history_ids_reach_the_template_as_ten_characters() -> None:
    """Ids of earlier calls (another server's ``call_...``, this server's own) are mapped to stable ten-character
    lowercase ids, the same for a call and the result that names it; a call without an id gets one by place."""
    template = _template(SOURCES["solar_open"])
    calls = tuple(PastCall("get_weather", {"city": city}, i)
                  for i, city in (("call_abc123XYZ", "Oslo"), ("a1b2c3d4e5", "Bergen")))
    history = (ChatMessage(role="user", content="Weather?"),
               ChatMessage(role="assistant", content="", tool_calls=calls),
               ChatMessage(role="tool", content="Sunny.", tool_call_id="call_abc123XYZ"),
               ChatMessage(role="tool", content="Rain.", tool_call_id="a1b2c3d4e5"),
               ChatMessage(role="assistant", content="", tool_calls=(PastCall("get_weather", {"city": "Rome"}),)),
               ChatMessage(role="tool", content="Warm."),
               ChatMessage(role="user", content="And Paris?"))
    plan = plan_output(history, template, tools=ToolPolicy((WEATHER,)), constraint=None)
    first, second = (c["id"] for c in plan.messages[1]["tool_calls"])
    third = plan.messages[4]["tool_calls"][0]["id"]
    assert second == "a1b2c3d4e5", "an id that already fits is kept"
    for call_id in (first, third):
        assert len(call_id) == 10 and call_id.isascii() and call_id.isalnum() and call_id == call_id.lower()
    assert len({first, second, third}) == 3
    assert [plan.messages[i]["tool_call_id"] for i in (2, 3, 5)] == [first, second, third]
    again = plan_output(history, template, tools=ToolPolicy((WEATHER,)), constraint=None)
    assert again.messages == plan.messages, "the same conversation maps alike (the prompt's prefix stays cached)"
    text = template.render(plan.messages, tools=plan.template_tools).text
    for call_id in (first, second, third):
        assert f"<|tool_call:begin|>{call_id}<|tool_call:name|>" in text
        assert f"<|tool_response:begin|>{call_id}<|tool_response:name|>get_weather" in text
    assert "call_abc123XYZ" not in text
    assert history[1].tool_calls[0].id == "call_abc123XYZ", "the request's own data is untouched"


def test_the_templates_that_drop_calls_do() -> None:
    for name in DROPS_CALLS:
        template = _template(name)
        assert template.call_format in SYNTAXES
        assert PROBE_CALL[0] not in _rendered_calls(template, 1).replace(SYNTAXES[template.call_format].trigger, "")


@pytest.mark.parametrize("name", _syntax_templates())
@pytest.mark.parametrize("count", [1, 2])
def test_every_syntax_template_s_own_calls_read_back(name: str, count: int) -> None:
    template = _template(name)
    text = _rendered_calls(template, count)
    # A template may keep one call a turn (GigaChat 3.1): read back what it rendered.
    rendered = min(count, text.count(PROBE_CALL[0]))
    assert rendered >= 1, text
    wanted = [{"name": PROBE_CALL[0], "arguments": PROBE_CALL[1]}] * rendered
    for tools in ((WEATHER,), ()):  # with the schema (values typed by it) and without (typed by their text)
        for pieces in every_split(text):
            content, calls = read_calls(template.call_format, pieces, tools)
            assert calls == wanted, (pieces[:3], calls)
            assert "get_weather" not in content and "Paris" not in content, content


def test_the_syntax_families_are_chosen_from_the_template_never_the_name() -> None:
    source = _template("Qwen3-Coder.jinja").source
    assert tool_format(source, True) == "qwen3_coder"
    renamed = ChatTemplate(source, name="llama-3-hermes-gemma", bos_token="<s>", eos_token="</s>")
    assert renamed.call_format == "qwen3_coder"


# ---- replies as the models write them ------------------------------------------------------------------------

FIXTURES: list[tuple[str, str, tuple[ToolSpec, ...], str, list[dict[str, Any]]]] = [
    # family, reply, tools, the words for the client, the calls
    ("qwen3_coder",
     "I'll write it.\n<tool_call>\n<function=write_file>\n<parameter=path>\nsrc/app.py\n</parameter>\n"
     "<parameter=content>\ndef main():\n    print(\"<hi>\")\n\n</parameter>\n</function>\n</tool_call>",
     (CODE,), "I'll write it.\n",
     [{"name": "write_file", "arguments": {"path": "src/app.py", "content": "def main():\n    print(\"<hi>\")\n"}}]),
    ("qwen3_coder",
     "<tool_call>\n<function=get_weather>\n<parameter=city>\nOslo\n</parameter>\n</function>\n</tool_call>\n"
     "<tool_call>\n<function=get_time>\n</function>\n</tool_call>",
     (WEATHER, CLOCK), "",
     [{"name": "get_weather", "arguments": {"city": "Oslo"}}, {"name": "get_time", "arguments": {}}]),
    ("glm",
     "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Beijing</arg_value>\n<arg_key>days</arg_key>"
     "<arg_value>3</arg_value>\n</tool_call>",
     (WEATHER,), "", [{"name": "get_weather", "arguments": {"city": "Beijing", "days": 3}}]),
    ("minimax_m2",
     "Let me check.\n<minimax:tool_call>\n<invoke name=\"get_weather\">\n<parameter name=\"city\">San Francisco"
     "</parameter>\n</invoke>\n<invoke name=\"get_time\">\n</invoke>\n</minimax:tool_call>",
     (WEATHER, CLOCK), "Let me check.\n",
     [{"name": "get_weather", "arguments": {"city": "San Francisco"}}, {"name": "get_time", "arguments": {}}]),
    ("dsml",
     "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"get_weather\">\n"
     "<｜DSML｜parameter name=\"city\" string=\"true\">42</｜DSML｜parameter>\n"
     "<｜DSML｜parameter name=\"days\" string=\"false\">2</｜DSML｜parameter>\n</｜DSML｜invoke>\n"
     "</｜DSML｜function_calls>",
     (), "", [{"name": "get_weather", "arguments": {"city": "42", "days": 2}}]),
    ("kimi_k2",
     "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>"
     "{\"city\": \"Tokyo\"}<|tool_call_end|><|tool_call_begin|>functions.get_time:1<|tool_call_argument_begin|>"
     "{}<|tool_call_end|><|tool_calls_section_end|>",
     (), "", [{"name": "get_weather", "arguments": {"city": "Tokyo"}}, {"name": "get_time", "arguments": {}}]),
    ("deepseek_r1",
     "Checking the weather.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n"
     "{\"city\": \"Paris\", \"days\": 1}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
     (), "Checking the weather.", [{"name": "get_weather", "arguments": {"city": "Paris", "days": 1}}]),
    ("deepseek_v3",
     "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{\"city\": \"Lima\"}<｜tool▁call▁end｜>"
     "<｜tool▁call▁begin｜>get_time<｜tool▁sep｜>{}<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
     (), "", [{"name": "get_weather", "arguments": {"city": "Lima"}}, {"name": "get_time", "arguments": {}}]),
    ("mistral_args",
     "[TOOL_CALLS]get_weather[ARGS]{\"city\": \"Rome\"}[TOOL_CALLS]get_time[ARGS]{}",
     (), "", [{"name": "get_weather", "arguments": {"city": "Rome"}}, {"name": "get_time", "arguments": {}}]),
    ("mistral_call_id",
     "[TOOL_CALLS]get_weather[CALL_ID]a1B2c3D4e[ARGS]{\"city\": \"Rome\"}",
     (), "", [{"name": "get_weather", "arguments": {"city": "Rome"}}]),
    ("functionary_v3_1",
     "<function=get_weather>{\"city\": \"Paris\"}</function>",
     (), "", [{"name": "get_weather", "arguments": {"city": "Paris"}}]),
    ("seed_oss",
     "<seed:tool_call>\n<function=get_weather>\n<parameter=city>Paris</parameter>\n</function>\n</seed:tool_call>",
     (WEATHER,), "", [{"name": "get_weather", "arguments": {"city": "Paris"}}]),
    ("minicpm",
     "<function name=\"get_weather\"><param name=\"city\">Paris</param></function> Done.",
     (WEATHER,), "Done.", [{"name": "get_weather", "arguments": {"city": "Paris"}}]),
    ("solar_open",  # as the template's instruction shows it: a ten-character id before the name
     "<|tool_calls|><|tool_call:begin|>a1b2c3d4e5<|tool_call:name|>get_weather<|tool_call:args|>"
     "{\"city\": \"Seoul\"}<|tool_call:end|><|tool_call:begin|>f6g7h8i9j0<|tool_call:name|>get_time"
     "<|tool_call:args|>{}<|tool_call:end|><|calls|>",
     (), "", [{"name": "get_weather", "arguments": {"city": "Seoul"}}, {"name": "get_time", "arguments": {}}]),
    ("gigachat_v3",  # words, then the call as a message of its own role
     "Let me check.<|message_sep|>\n\nfunction call<|role_sep|>\n{\"name\": \"get_weather\", \"arguments\": "
     "{\"city\": \"Moscow\"}}",
     (), "Let me check.", [{"name": "get_weather", "arguments": {"city": "Moscow"}}]),
    ("command_r_plus",  # as the template's own instruction shows it: Action: and a fenced list of actions
     "I will look up the weather.\nAction: ```json\n[\n    {\n        \"tool_name\": \"get_weather\",\n"
     "        \"parameters\": {\"city\": \"Toronto\", \"days\": 1}\n    },\n    {\"tool_name\": \"get_time\", "
     "\"parameters\": {}}\n]```",
     (), "I will look up the weather.\n",
     [{"name": "get_weather", "arguments": {"city": "Toronto", "days": 1}}, {"name": "get_time", "arguments": {}}]),
]


@pytest.mark.parametrize("case", range(len(FIXTURES)))
def test_replies_read_into_words_and_calls_in_pieces_of_every_size(case: int) -> None:
    fmt, reply, tools, words, wanted = FIXTURES[case]
    for pieces in every_split(reply):
        content, calls = read_calls(fmt, pieces, tools)
        assert content == words, (pieces[:3], content)
        assert calls == wanted, (pieces[:3], calls)


def test_a_string_value_streams_as_it_is_written() -> None:
    reader = call_reader("qwen3_coder", (CODE,))
    head = "<tool_call>\n<function=write_file>\n<parameter=content>\nline one\nline "
    fragments = "".join(d.arguments for d in reader.feed(head).calls)
    assert fragments == '{"content": "line one\\nline ', fragments


def test_words_that_only_look_like_a_call_stay_words() -> None:
    content, calls = read_calls("deepseek_v3", ["Use <｜tool", " carefully."])
    assert (content, calls) == ("Use <｜tool carefully.", [])
    content, calls = read_calls("minimax_m2", ["<minimax:tool_call>\nnot a call"])
    assert calls == [] and content.endswith("not a call")


# ---- grammars ------------------------------------------------------------------------------------------------




@pytest.mark.parametrize("fmt", sorted(SYNTAXES))
def test_the_grammar_takes_the_family_s_writing_and_nothing_invented(fmt: str) -> None:
    syntax: CallSyntax = SYNTAXES[fmt]
    one = syntax_lark(syntax, (WEATHER, CLOCK), parallel=False, param="tool_choice")
    two = syntax_lark(syntax, (WEATHER, CLOCK), parallel=True, param="tool_choice")
    call = ("get_weather", {"city": "Paris", "days": 2})
    assert takes(one, syntax.write([call])), syntax.write([call])
    assert takes(one, syntax.write([("get_weather", {"city": "Paris"})])), "an optional argument may be left out"
    assert takes(one, syntax.write([("get_time", {})]))
    assert not takes(one, syntax.write([call, ("get_time", {})])), "one call unless parallel calls were asked"
    # GigaChat 3's template writes one call a turn: its replies hold one call even with parallel calls.
    assert takes(two, syntax.write([call, ("get_time", {})])) is not syntax.one_call
    assert not takes(one, syntax.write([("get_weather", {"days": 2})])), "a required argument is missing"
    assert not takes(one, syntax.write([("get_weather", {"city": "Paris", "extra": 1})])), "arguments are closed"
    assert not takes(one, syntax.write([("get_news", {})])), "only the tools given"


def test_a_name_the_syntax_cannot_write_is_a_clear_error() -> None:
    with pytest.raises(ConstraintUnsatisfiable):
        syntax_lark(SYNTAXES["qwen3_coder"], (ToolSpec("get weather", "", PARAMS),), parallel=False, param="tools")


@pytest.mark.parametrize("fmt", sorted(SYNTAXES))
@pytest.mark.parametrize("parallel", [False, True])
def test_random_decoding_reads_back_as_valid_calls(fmt: str, parallel: bool) -> None:
    tools = (BOUNDED, CLOCK)
    grammar = syntax_lark(SYNTAXES[fmt], tools, parallel=parallel, param="tool_choice")
    assert_random_decodings_read_back(fmt, grammar, tools, parallel=parallel, seeds=4, reader_tools=True)


def test_a_template_that_only_mentions_tool_call_is_not_taken_for_hermes() -> None:
    # MiniMax M3 writes <tool_call> around its own XML; forcing Hermes JSON on it would be a format its model
    # never saw, so it gets the generic format. Real Hermes templates render the probe call as Hermes.
    assert _template("MiniMax-M3.jinja").call_format == "generic"
    for name in ("Qwen-Qwen2.5-7B-Instruct.jinja", "NousResearch-Hermes-3-Llama-3.1-8B-tool_use.jinja",
                 "ibm-granite-granite-4.0.jinja", "Reka-Edge.jinja"):
        assert _template(name).call_format == "hermes", name
