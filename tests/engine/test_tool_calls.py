"""Tool calling: policies from OpenAI fields, call constraints, and the incremental readers behind streaming.

The readers are fed the same text cut at every position (and one character at a time): whatever the cuts,
the calls they assemble and the content they let through must be the same.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable
from typing import Any

import llama_cpp
import pytest

import superfluid.engine.llama_model  # noqa: F401  (quiets llama.cpp's loader log)
from superfluid.engine.grammar import GrammarTokenizer, compile_constraint
from superfluid.engine.model_sources import DEFAULT_MODEL, resolve
from superfluid.engine.tool_calls import (
    CallObjectReader,
    CallReader,
    GenericReader,
    HermesReader,
    ToolCallDelta,
    ToolPolicy,
    ToolSpec,
    closed_objects,
    generic_constraint,
    generic_system_prompt,
    hermes_constraint,
    parse_calls_text,
    policy_from_openai,
    tool_format,
)
from superfluid.errors import InvalidRequest

# llguidance's llama.cpp bridge reads every token through a deprecated llama-cpp-python call.
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning:llama_cpp")

# ---- helpers ---------------------------------------------------------------------------------------------


def _assemble(deltas: Iterable[ToolCallDelta]) -> list[dict[str, Any]]:
    """Deltas -> whole calls, checking OpenAI's partial shape: id and name open a call, fragments follow."""
    calls: list[dict[str, Any]] = []
    for delta in deltas:
        if delta.name is not None:
            assert delta.id and delta.id.startswith("call_")
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
    return content, _assemble(deltas)


def _cuts(text: str) -> Iterable[list[str]]:
    """The text whole, one character at a time, and cut in two at every position."""
    yield [text]
    yield list(text)
    for i in range(1, len(text)):
        yield [text[:i], text[i:]]


def _plain(calls: list[dict[str, Any]]) -> list[tuple[str, Any]]:
    return [(c["name"], json.loads(c["arguments"])) for c in calls]


# ---- GenericReader ----------------------------------------------------------------------------------------

NESTED_ARGS = {"query": {"terms": ["a}", "[b]"], "nested": {"deep": [1, {"x": "\"}\""}]}}, "note": "tab\there"}


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
    for pieces in _cuts(text):
        content, calls = _read(GenericReader(), pieces)
        assert content == "", pieces
        assert _plain(calls) == expected, pieces


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
    for pieces in _cuts(text):
        content, calls = _read(GenericReader(), pieces)
        assert content == expected, pieces
        assert calls == []


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
    for pieces in _cuts(text):
        got_content, calls = _read(HermesReader(), pieces)
        assert got_content == content, pieces
        assert _plain(calls) == expected, pieces


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


# ---- CallObjectReader -------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", [
    '{"name": "f", "arguments": {"a": 1}}',
    '{ "name" : "f" , "arguments" : {"a": 1} }',
    '{"name": "f", "parameters": {"a": 1}}',
], ids=["compact", "spaced", "parameters_key"])
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


# ---- parse_calls_text (whole replies: Llama 3, Mistral) -----------------------------------------------------


@pytest.mark.parametrize("text, expected", [
    ('{"name": "get_weather", "parameters": {"city": "Paris"}}', [("get_weather", {"city": "Paris"})]),
    ('<|python_tag|>{"name": "f", "parameters": {}}', [("f", {})]),
    ('[TOOL_CALLS] [{"name": "a", "arguments": {"x": 1}}, {"name": "b", "arguments": {"y": [2]}}]',
     [("a", {"x": 1}), ("b", {"y": [2]})]),
    ('  {"name": "f", "arguments": "{\\"already\\": \\"text\\"}"}  ', [("f", {"already": "text"})]),
    ('{"name": "f"}', [("f", {})]),
], ids=["llama3", "llama3_python_tag", "mistral", "string_arguments", "no_arguments"])
def test_parse_calls_text(text: str, expected: list[tuple[str, Any]]) -> None:
    calls = parse_calls_text(text)
    assert all(isinstance(c["arguments"], str) for c in calls)
    assert [(c["name"], json.loads(c["arguments"])) for c in calls] == expected


@pytest.mark.parametrize("text", [
    "Hello, world.",
    '{"name": 3, "arguments": {}}',
    '[{"name": "a", "arguments": {}}, "stray"]',
    '{"name": "f", "arguments": {',
    '{"city": "Paris"}',
    "[TOOL_CALLS] not json",
])
def test_parse_calls_text_finds_no_call(text: str) -> None:
    assert parse_calls_text(text) == []


# ---- policy_from_openai -----------------------------------------------------------------------------------

WEATHER = {"type": "function", "function": {"name": "get_weather", "description": "Weather",
                                            "parameters": {"type": "object",
                                                           "properties": {"city": {"type": "string"}}}}}
CLOCK = {"type": "function", "function": {"name": "get_time"}}


def test_policy_defaults() -> None:
    policy = policy_from_openai([WEATHER, CLOCK], None, None)
    assert policy.choice == "auto" and policy.parallel is False and policy.active
    assert [t.name for t in policy.tools] == ["get_weather", "get_time"]
    clock = policy.tools[1]
    assert clock.description == "" and clock.parameters == {"type": "object", "properties": {}}
    assert not policy_from_openai(None, None, None).active


@pytest.mark.parametrize("parallel, expected", [(True, True), (False, False), (None, False)])
def test_parallel_only_when_asked(parallel: bool | None, expected: bool) -> None:
    assert policy_from_openai([WEATHER], "required", parallel).parallel is expected


def test_named_choice_narrows_the_callable_tools() -> None:
    policy = policy_from_openai([WEATHER, CLOCK], {"type": "function", "function": {"name": "get_time"}}, None)
    assert policy.choice == "get_time"
    assert [t.name for t in policy.callable_tools()] == ["get_time"]


def test_none_is_inactive_but_keeps_the_tools() -> None:
    policy = policy_from_openai([WEATHER], "none", None)
    assert not policy.active
    assert len(policy.tools) == 1


@pytest.mark.parametrize("tools, choice, param, words", [
    ([WEATHER], {"type": "function", "function": {"name": "launch"}}, "tool_choice", "launch"),
    ([WEATHER], {"type": "function"}, "tool_choice", "name a function"),
    ([WEATHER], "sometimes", "tool_choice", "sometimes"),
    (None, "required", "tool_choice", "no tools"),
    ([], {"type": "function", "function": {"name": "get_weather"}}, "tool_choice", "not in tools"),
    ([WEATHER, {"type": "retrieval"}], None, "tools[1]", "function"),
    ([{"type": "function", "function": {"description": "nameless"}}], None, "tools[0]", "name"),
], ids=["unknown_function", "choice_without_name", "unknown_word", "required_without_tools",
        "named_without_tools", "not_a_function", "function_without_name"])
def test_bad_policies_are_400s_naming_the_field(tools: Any, choice: Any, param: str, words: str) -> None:
    with pytest.raises(InvalidRequest) as caught:
        policy_from_openai(tools, choice, None)
    assert caught.value.param == param
    assert words in str(caught.value)


# ---- closed_objects ---------------------------------------------------------------------------------------


def test_closed_objects_shallow_and_deep() -> None:
    schema = {"type": "object", "properties": {"inner": {"type": "object", "properties": {"n": {}}}}}
    shallow = closed_objects(schema, deep=False)
    assert shallow["additionalProperties"] is False
    assert "additionalProperties" not in shallow["properties"]["inner"]
    deep = closed_objects(schema, deep=True)
    assert deep["properties"]["inner"]["additionalProperties"] is False
    assert "additionalProperties" not in schema, "the input is not modified"


def test_closed_objects_reaches_every_subschema_and_respects_explicit_choices() -> None:
    obj = {"type": "object", "properties": {"a": {"type": "integer"}}}
    schema = {
        "type": "object",
        "properties": {"list": {"type": "array", "items": obj}, "open": {**obj, "additionalProperties": True}},
        "$defs": {"d": obj}, "definitions": {"e": obj},
        "anyOf": [obj], "oneOf": [obj], "allOf": [obj],
        "additionalProperties": {"type": "object", "properties": {"z": {}}},
    }
    deep = closed_objects(schema, deep=True)
    closed = [deep["properties"]["list"]["items"], deep["$defs"]["d"], deep["definitions"]["e"],
              deep["anyOf"][0], deep["oneOf"][0], deep["allOf"][0], deep["additionalProperties"]]
    assert all(s["additionalProperties"] is False for s in closed)
    assert deep["properties"]["open"]["additionalProperties"] is True
    prefix = closed_objects({"type": "array", "prefixItems": [obj]}, deep=True)
    assert prefix["prefixItems"][0]["additionalProperties"] is False


def test_closed_objects_leaves_objects_without_properties_open() -> None:
    assert closed_objects({"type": "object"}, deep=True) == {"type": "object"}
    assert closed_objects(True, deep=True) is True


# ---- constraints and prompts ------------------------------------------------------------------------------


def _policy(choice: str = "required", parallel: bool = False) -> ToolPolicy:
    return ToolPolicy(tools=(ToolSpec("get_weather", "Weather",
                                      {"type": "object", "properties": {"city": {"type": "string"}},
                                       "required": ["city"]}),
                             ToolSpec("get_time", "Time", {"type": "object", "properties": {}})),
                      choice=choice, parallel=parallel)


@functools.cache
def _vocabulary() -> GrammarTokenizer:
    """The bundled model's vocabulary as llguidance sees it (a vocab-only load: no weights, well under 1 s)."""
    llama_cpp.llama_backend_init()
    params = llama_cpp.llama_model_default_params()
    params.vocab_only = True
    model = llama_cpp.llama_model_load_from_file(str(resolve(DEFAULT_MODEL).locate()).encode(), params)
    assert model, "the bundled model is missing"
    vocab = llama_cpp.llama_model_get_vocab(model)
    return GrammarTokenizer(vocab, int(llama_cpp.llama_vocab_n_tokens(vocab)), (int(llama_cpp.llama_vocab_eos(vocab)),))


def _accepts(grammar: str, text: str) -> bool:
    """Whether the grammar matches all of ``text`` and may end there."""
    vocabulary = _vocabulary()
    state = vocabulary.state(grammar)
    ok = state.matcher.consume_tokens(vocabulary.tokenizer.tokenize_str(text))
    return bool(ok) and bool(state.matcher.is_accepting())


CALL = '{"tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]}'
TWO_CALLS = ('{"tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}, '
             '{"name": "get_time", "arguments": {}}]}')


def test_generic_constraint_shapes() -> None:
    required = compile_constraint(generic_constraint(_policy("required")))
    assert _accepts(required, CALL)
    assert not _accepts(required, TWO_CALLS), "one call unless parallel calls were asked for"
    assert not _accepts(required, '{"response": "Hi"}')
    assert not _accepts(required, CALL.replace('"Paris"}', '"Paris", "extra": 1}')), "arguments are closed"
    assert _accepts(compile_constraint(generic_constraint(_policy("required", parallel=True))), TWO_CALLS)
    auto = compile_constraint(generic_constraint(_policy("auto")))
    assert _accepts(auto, CALL) and _accepts(auto, '{"response": "Hi"}')
    named = compile_constraint(generic_constraint(_policy("get_time")))
    assert not _accepts(named, CALL)
    assert _accepts(named, '{"tool_calls": [{"name": "get_time", "arguments": {}}]}')


def test_generic_constraint_param_names_the_field_to_blame() -> None:
    assert generic_constraint(_policy("required")).param == "tool_choice"
    assert generic_constraint(_policy("auto")).param == "tools"


def test_hermes_constraint_shapes() -> None:
    one = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
    constraint, lazy = hermes_constraint(_policy("required"))
    assert not lazy
    strict = compile_constraint(constraint)
    assert _accepts(strict, one)
    assert not _accepts(strict, one + "\n" + one)
    constraint, lazy = hermes_constraint(_policy("required", parallel=True))
    assert _accepts(compile_constraint(constraint), one + "\n" + one)
    constraint, lazy = hermes_constraint(_policy("auto"))
    assert lazy, "auto engages the grammar only after the model writes <tool_call>"
    after_trigger = one[len("<tool_call>"):]
    assert _accepts(compile_constraint(constraint), after_trigger)


def test_generic_system_prompt_describes_tools_and_the_reply_format() -> None:
    text = generic_system_prompt(_policy("auto"))
    assert '"name": "get_weather"' in text and '"name": "get_time"' in text
    assert '{"tool_calls": [' in text and '{"response":' in text
    named = generic_system_prompt(_policy("get_time"))
    assert "get_weather" not in named
    assert '{"response":' not in named


@pytest.mark.parametrize("source, supports, expected", [
    ("{{ tools }} <tool_call>", True, "hermes"),
    ("{{ tools }} [TOOL_CALLS]", True, "generic"),
    ("<tool_call> without reading tools", False, "generic"),
    ("plain chatml", False, "generic"),
])
def test_tool_format_is_chosen_from_the_template(source: str, supports: bool, expected: str) -> None:
    assert tool_format(source, supports) == expected
