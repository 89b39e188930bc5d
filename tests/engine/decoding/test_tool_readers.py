"""The incremental call readers behind streaming, one per call format.

Each reader is fed the same text cut at every position (and one character at a time): whatever the cuts, the
calls it assembles and the content it lets through must be the same.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

import pytest

from superfluid.engine.decoding.call_object_reader import CallObjectReader
from superfluid.engine.decoding.harmony_reader import HarmonyReader
from superfluid.engine.decoding.json_reply_readers import GenericReader, Llama3Reader
from superfluid.engine.decoding.marked_readers import GemmaReader, HermesReader, MistralReader
from superfluid.engine.decoding.tool_calls import ToolCallDelta
from superfluid.engine.decoding.tool_readers import CallReader, call_reader

# ---- helpers ---------------------------------------------------------------------------------------------


def _id_ok(call_id: str | None, mistral: bool) -> bool:
    if mistral:
        return call_id is not None and len(call_id) == 9 and call_id.isascii() and call_id.isalnum()
    return call_id is not None and call_id.startswith("call_")


def _assemble(deltas: Iterable[ToolCallDelta], *, mistral: bool = False) -> list[dict[str, Any]]:
    """Deltas -> whole calls, checking OpenAI's partial shape: id and name open a call, fragments follow."""
    calls: list[dict[str, Any]] = []
    for delta in deltas:
        if delta.name is not None:
            assert _id_ok(delta.id, mistral), delta.id
            assert delta.index == len(calls), "calls open in index order"
            calls.append({"id": delta.id, "name": delta.name, "arguments": delta.arguments})
        else:
            assert delta.id is None
            assert calls and delta.index == len(calls) - 1, "fragments belong to the call opened last"
            calls[-1]["arguments"] += delta.arguments
    return calls


def _read(reader: CallReader, pieces: Iterable[str]) -> tuple[str, list[dict[str, Any]]]:
    content, deltas = "", []
    for piece in pieces:
        out = reader.feed(piece)
        content += out.content
        deltas.extend(out.calls)
    tail = reader.finish()
    content += tail.content
    deltas.extend(tail.calls)
    return content, _assemble(deltas, mistral=isinstance(reader, MistralReader))


def _cuts(text: str) -> Iterable[list[str]]:
    """The text whole, one character at a time, and cut in two at every position."""
    yield [text]
    yield list(text)
    for i in range(1, len(text)):
        yield [text[:i], text[i:]]


def _plain(calls: list[dict[str, Any]]) -> list[tuple[str, Any]]:
    return [(c["name"], json.loads(c["arguments"])) for c in calls]


def _same_at_every_cut(make: type[CallReader], text: str, content: str, expected: list[tuple[str, Any]]) -> None:
    for pieces in _cuts(text):
        got_content, calls = _read(make(), pieces)
        assert got_content == content, pieces
        assert _plain(calls) == expected, pieces


NESTED_ARGS = {"query": {"terms": ["a}", "[b]"], "nested": {"deep": [1, {"x": "\"}\""}]}}, "note": "tab\there"}

# ---- GenericReader ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("text, expected", [
    ('{"tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris", "unit": "celsius"}}]}',
     [("get_weather", {"city": "Paris", "unit": "celsius"})]),
    ('{"tool_calls": [{"name": "search", "arguments": ' + json.dumps(NESTED_ARGS) + "}]}",
     [("search", NESTED_ARGS)]),
    ('{"tool_calls": [{"name": "a", "arguments": {}}, {"name": "b", "arguments": {"n": 1}}]}',
     [("a", {}), ("b", {"n": 1})]),
    ('{"tool_calls": [{"name": "caf\\u00e9", "arguments": {"s": "\\u00e9\\n"}}]}', [("café", {"s": "é\n"})]),
], ids=["simple", "nested_with_brackets_in_strings", "two_calls", "escapes"])
def test_generic_calls_read_the_same_at_every_cut(text: str, expected: list[tuple[str, Any]]) -> None:
    _same_at_every_cut(GenericReader, text, "", expected)


def test_generic_arguments_stream_as_their_own_text() -> None:
    args = '{"city": "Paris", "unit": "celsius"}'
    _, calls = _read(GenericReader(), list('{"tool_calls": [{"name": "f", "arguments": ' + args + "}]}"))
    assert calls[0]["arguments"] == args, "fragments concatenate to the exact argument text"


@pytest.mark.parametrize("text, expected", [
    ('{"response": "Hello there."}', "Hello there."),
    ('{"response": "quote \\" backslash \\\\ newline \\n tab \\t"}', 'quote " backslash \\ newline \n tab \t'),
    ('{"response": "\\u00e9t\\u00e9 \\ud83d\\ude00"}', "été 😀"),
    ('{"response": "{\\"tool_calls\\": []}"}', '{"tool_calls": []}'),
], ids=["plain", "escapes", "unicode_escapes", "looks_like_calls"])
def test_generic_words_read_the_same_at_every_cut(text: str, expected: str) -> None:
    _same_at_every_cut(GenericReader, text, expected, [])


def test_generic_reader_emits_nothing_before_the_envelope_is_known() -> None:
    reader = GenericReader()
    assert reader.feed('{"').content == ""
    assert reader.feed("respon").content == ""
    assert reader.feed('se": "Hi').content == "Hi"


def test_scalar_arguments_end_at_the_call_object() -> None:
    """A function whose parameters are not an object still gets exactly its arguments' text."""
    for value in ("5", "true", "null"):
        _, calls = _read(GenericReader(), ['{"tool_calls": [{"name": "f", "arguments": ' + value + "}]}"])
        assert len(calls) == 1
        assert calls[0]["arguments"] == value


# ---- HermesReader -----------------------------------------------------------------------------------------

HERMES_ONE = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
HERMES_TWO = HERMES_ONE + '\n<tool_call>\n{"name": "get_time", "arguments": {"zone": "UTC"}}\n</tool_call>'


@pytest.mark.parametrize("text, content, expected", [
    (HERMES_ONE, "", [("get_weather", {"city": "Paris"})]),
    ("Let me check. " + HERMES_ONE, "Let me check. ", [("get_weather", {"city": "Paris"})]),
    (HERMES_TWO, "", [("get_weather", {"city": "Paris"}), ("get_time", {"zone": "UTC"})]),
    ('<tool_call>\n{"name": "s", "arguments": ' + json.dumps(NESTED_ARGS) + "}\n</tool_call>", "",
     [("s", NESTED_ARGS)]),
    ("No calls here: 1 < 2 and <b>bold</b>.", "No calls here: 1 < 2 and <b>bold</b>.", []),
    ("ends with a partial tag <tool", "ends with a partial tag <tool", []),
], ids=["one_call", "words_then_call", "two_calls", "nested", "angle_brackets", "partial_tag_at_end"])
def test_hermes_reads_the_same_at_every_cut(text: str, content: str, expected: list[tuple[str, Any]]) -> None:
    _same_at_every_cut(HermesReader, text, content, expected)


def test_hermes_holds_back_what_may_become_the_open_tag() -> None:
    reader = HermesReader()
    assert reader.feed("Sure <tool_").content == "Sure "
    out = reader.feed('call>\n{"name": "f", "arguments": {}}\n</tool_call>')
    assert out.content == ""
    assert [c.name for c in out.calls if c.name] == ["f"]


def test_hermes_whitespace_between_calls_is_not_content() -> None:
    content, calls = _read(HermesReader(), [HERMES_ONE, "\n\n", HERMES_ONE.replace("Paris", "Oslo"), "\n"])
    assert content == ""
    assert [json.loads(c["arguments"])["city"] for c in calls] == ["Paris", "Oslo"]


# ---- Llama3Reader -----------------------------------------------------------------------------------------

LLAMA3_ONE = '{"name": "get_weather", "parameters": {"city": "Paris", "unit": "celsius"}}'


@pytest.mark.parametrize("text, content, expected", [
    (LLAMA3_ONE, "", [("get_weather", {"city": "Paris", "unit": "celsius"})]),
    ("\n  " + LLAMA3_ONE + "\n", "", [("get_weather", {"city": "Paris", "unit": "celsius"})]),
    ("<|python_tag|>" + LLAMA3_ONE, "", [("get_weather", {"city": "Paris", "unit": "celsius"})]),
    ('{"name": "s", "parameters": ' + json.dumps(NESTED_ARGS) + "}", "", [("s", NESTED_ARGS)]),
    ('{"name": "f", "parameters": {}} and then words', "and then words", [("f", {})]),
    ("It is sunny in Paris.", "It is sunny in Paris.", []),
    ('{"answer": 42}', '{"answer": 42}', []),
    ('I would call {"name": "f", "parameters": {}}', 'I would call {"name": "f", "parameters": {}}', []),
    ('{"na', '{"na', []),
    ("  ", "  ", []),
], ids=["one_call", "whitespace_around", "python_tag", "nested", "words_after_the_call", "words",
        "other_json", "a_call_not_at_the_start_is_words", "cut_while_undecided", "only_whitespace"])
def test_llama3_reads_the_same_at_every_cut(text: str, content: str, expected: list[tuple[str, Any]]) -> None:
    _same_at_every_cut(Llama3Reader, text, content, expected)


def test_llama3_holds_back_only_while_the_start_may_become_a_call() -> None:
    reader = Llama3Reader()
    assert reader.feed(' {"').content == ""
    assert reader.feed("na").content == ""
    out = reader.feed('me": "f", "parameters": {"a": 1}}')
    assert out.content == "" and out.calls[0].name == "f"
    other = Llama3Reader()
    assert other.feed("{").content == ""
    assert other.feed('"x": 1}').content == '{"x": 1}'


def test_llama3_arguments_stream_in_fragments() -> None:
    reader = Llama3Reader()
    fragments = [d.arguments for piece in LLAMA3_ONE for d in reader.feed(piece).calls if d.name is None]
    assert len(fragments) > 5
    assert "".join(fragments) == '{"city": "Paris", "unit": "celsius"}'


# ---- MistralReader ----------------------------------------------------------------------------------------

MISTRAL_ONE = '[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris"}}]'
MISTRAL_TWO = ('[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris"}}, '
               '{"name": "get_time", "arguments": {"zone": "UTC"}}]')


@pytest.mark.parametrize("text, content, expected", [
    (MISTRAL_ONE, "", [("get_weather", {"city": "Paris"})]),
    (MISTRAL_TWO, "", [("get_weather", {"city": "Paris"}), ("get_time", {"zone": "UTC"})]),
    ("Checking. " + MISTRAL_ONE, "Checking. ", [("get_weather", {"city": "Paris"})]),
    ('[TOOL_CALLS] [{"name": "f", "arguments": {}, "id": "abcDEF123"}]', "", [("f", {})]),
    ('[TOOL_CALLS][{"name": "s", "arguments": ' + json.dumps(NESTED_ARGS) + "}]", "", [("s", NESTED_ARGS)]),
    ("[1, 2] is a list; [TOOL is not a marker", "[1, 2] is a list; [TOOL is not a marker", []),
    ("cut at [TOOL_CA", "cut at [TOOL_CA", []),
    ("[TOOL_CALLS] no list", "no list", []),
], ids=["one_call", "two_calls", "words_then_call", "space_and_model_id", "nested", "brackets_in_words",
        "partial_marker_at_end", "marker_without_list"])
def test_mistral_reads_the_same_at_every_cut(text: str, content: str, expected: list[tuple[str, Any]]) -> None:
    _same_at_every_cut(MistralReader, text, content, expected)


def test_mistral_call_ids_fit_its_templates() -> None:
    _, calls = _read(MistralReader(), [MISTRAL_TWO])
    assert len({c["id"] for c in calls}) == 2
    assert all(len(c["id"]) == 9 and c["id"].isalnum() for c in calls)


# ---- GemmaReader ------------------------------------------------------------------------------------------

GEMMA_ONE = '```tool_code\nget_weather(city="Paris", unit="celsius")\n```'


@pytest.mark.parametrize("text, content, expected", [
    (GEMMA_ONE, "", [("get_weather", {"city": "Paris", "unit": "celsius"})]),
    ("Let me look. " + GEMMA_ONE, "Let me look. ", [("get_weather", {"city": "Paris", "unit": "celsius"})]),
    ('```tool_code\nget_time()\n```', "", [("get_time", {})]),
    ('```tool_code\nget_weather(city="Paris")\nget_time(zone="UTC")\n```', "",
     [("get_weather", {"city": "Paris"}), ("get_time", {"zone": "UTC"})]),
    ('```tool_code\nf(s="a, b) c=d", n=-1.5e3, ok=true, none=null, l=[1, ")"], o={"k": "v,)"})\n```', "",
     [("f", {"s": "a, b) c=d", "n": -1.5e3, "ok": True, "none": None, "l": [1, ")"], "o": {"k": "v,)"}})]),
    ("```tool_code\nf(q=" + json.dumps(json.dumps(NESTED_ARGS)) + ")\n```", "",
     [("f", {"q": json.dumps(NESTED_ARGS)})]),
    ("```python\nprint(1)\n```", "```python\nprint(1)\n```", []),
    ("cut at ```tool_co", "cut at ```tool_co", []),
    (GEMMA_ONE + "\nDone.", "Done.", [("get_weather", {"city": "Paris", "unit": "celsius"})]),
], ids=["one_call", "words_then_call", "no_arguments", "two_calls", "json_values", "escaped_string",
        "other_code_block", "partial_marker_at_end", "words_after"])
def test_gemma_reads_the_same_at_every_cut(text: str, content: str, expected: list[tuple[str, Any]]) -> None:
    _same_at_every_cut(GemmaReader, text, content, expected)


# ---- HarmonyReader (gpt-oss) ---------------------------------------------------------------------------------
# What reaches the reader once the analysis channel was taken out as reasoning; the reply starts inside the
# header the prompt's <|start|>assistant opened.


@pytest.mark.parametrize("text, content, expected", [
    ("<|channel|>final<|message|>Paris is sunny.<|return|>", "Paris is sunny.", []),
    ("<|start|>assistant<|channel|>final<|message|>Hi there.", "Hi there.", []),
    ('<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>'
     '{"city": "Paris"}', "", [("get_weather", {"city": "Paris"})]),
    (' to=functions.get_weather<|channel|>commentary json<|message|>{"city": "Paris", "days": 2}', "",
     [("get_weather", {"city": "Paris", "days": 2})]),
    ('<|channel|>commentary<|message|>Let me check.<|end|><|start|>assistant<|channel|>commentary '
     'to=functions.get_time <|constrain|>json<|message|>{}', "Let me check.", [("get_time", {})]),
    ("A model that writes no framing.", "A model that writes no framing.", []),
], ids=["final", "final_after_start", "call_in_channel", "call_in_header", "preamble_then_call", "no_framing"])
def test_harmony_reads_the_same_at_every_cut(text: str, content: str, expected: list[tuple[str, Any]]) -> None:
    _same_at_every_cut(HarmonyReader, text, content, expected)


def test_harmony_reads_the_call_gpt_oss_s_template_renders() -> None:
    from pathlib import Path

    from superfluid.engine.models.chat_template import ChatTemplate

    source = (Path(__file__).parents[1] / "models" / "published_templates" / "openai-gpt-oss-120b.jinja").read_text()
    template = ChatTemplate(source, name="gpt-oss", bos_token="<s>", eos_token="</s>")
    assert template.call_format == "harmony"
    assert template.reasoning == ("<|channel|>analysis<|message|>", "<|end|>")
    call = {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": {"city": "Paris"}}}
    text = template.render([{"role": "user", "content": "Weather?"},
                            {"role": "assistant", "content": "", "tool_calls": [call]}],
                           add_generation_prompt=False).text
    reply = text[text.rindex("<|start|>assistant") + len("<|start|>assistant"):]
    _same_at_every_cut(HarmonyReader, reply, "", [("get_weather", {"city": "Paris"})])


def test_gemma_opens_the_call_at_its_name_and_streams_the_arguments() -> None:
    reader = GemmaReader()
    assert reader.feed("```tool_code\nget_wea").calls == []
    opened = reader.feed("ther(").calls
    assert [(c.name, c.arguments) for c in opened] == [("get_weather", "")]
    fragments = [d.arguments for piece in 'city="Paris", unit="celsius")\n```' for d in reader.feed(piece).calls]
    assert "".join(fragments) == '{"city": "Paris", "unit": "celsius"}', "the compact layout of the other formats"
    assert len(fragments) > 5


# ---- CallObjectReader -------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", [
    '{"name": "f", "arguments": {"a": 1}}',
    '{ "name" : "f" , "arguments" : {"a": 1} }',
    '{"name": "f", "parameters": {"a": 1}}',
    '{"name": "f", "arguments": {"a": 1}, "id": "abcdefghi"}',
], ids=["compact", "spaced", "parameters_key", "trailing_id"])
def test_call_object_reader_and_what_follows(text: str) -> None:
    for pieces in _cuts(text + " tail"):
        reader = CallObjectReader(3)
        deltas: list[ToolCallDelta] = []
        rest = ""
        for piece in pieces:
            if reader.done:
                rest += piece
                continue
            got, left = reader.feed(piece)
            deltas.extend(got)
            rest += left
        assert reader.done
        assert rest == " tail", pieces
        assert all(d.index == 3 for d in deltas)
        assert deltas[0].name == "f" and deltas[0].id
        assert json.loads("".join(d.arguments for d in deltas)) == {"a": 1}


def test_call_ids_are_fresh() -> None:
    ids = {_read(GenericReader(), ['{"tool_calls": [{"name": "f", "arguments": {}}]}'])[1][0]["id"]
           for _ in range(20)}
    assert len(ids) == 20


@pytest.mark.parametrize("fmt, kind", [("generic", GenericReader), ("hermes", HermesReader),
                                       ("llama3", Llama3Reader), ("mistral", MistralReader),
                                       ("gemma", GemmaReader)])
def test_call_reader_per_format(fmt: Any, kind: type) -> None:
    assert isinstance(call_reader(fmt), kind)
