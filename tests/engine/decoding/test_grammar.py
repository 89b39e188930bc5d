"""Grammar constraints: compiling (cached, with clear errors) and the per-lane masks that enforce them.

The masks are tested on the bundled model's real vocabulary (a vocab-only load, no weights): decoding driven
by random logits, with the mask applied before every argmax, must always produce output that validates.
"""

from __future__ import annotations

import json
import os
import threading
from typing import Any

import jsonschema
import numpy as np
import pytest

from superfluid.engine.decoding import grammar
from superfluid.engine.decoding.grammar import (
    ANY_JSON_OBJECT,
    PRISTINE_CHARS,
    PRISTINE_MATCHERS,
    Constraint,
    GrammarState,
    LazyGrammar,
    closed_objects,
    compile_constraint,
)
from superfluid.errors import ConstraintUnsatisfiable, InvalidRequest
from tests.engine.bundled_vocab import accepts, decode_masked, grammar_tokenizer

# llguidance's llama.cpp bridge reads every token through a deprecated llama-cpp-python call.
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning:llama_cpp")


def _state(constraint: Constraint) -> GrammarState:
    return grammar_tokenizer().state(compile_constraint(constraint))


def _accepts(constraint: Constraint, text: str) -> bool:
    return accepts(_state(constraint), text)


def _decode(constraint: Constraint, seed: int, limit: int = 400) -> str:
    return decode_masked(_state(constraint), seed, limit)


# ---- compiling --------------------------------------------------------------------------------------------


def test_compiling_is_cached_per_distinct_schema() -> None:
    schema = {"type": "object", "properties": {"cache_probe": {"type": "integer"}}, "required": ["cache_probe"]}
    before = grammar._compiled.cache_info()
    first = compile_constraint(Constraint.for_schema(schema))
    second = compile_constraint(Constraint.for_schema(dict(schema), param="format"))
    after = grammar._compiled.cache_info()
    assert first == second
    assert after.misses == before.misses + 1
    assert after.hits == before.hits + 1
    compile_constraint(Constraint.for_schema({**schema, "required": []}))
    assert grammar._compiled.cache_info().misses == after.misses + 1


def test_for_schema_keeps_property_order() -> None:
    schema = {"type": "object", "properties": {"zeta": {}, "alpha": {}}}
    assert list(json.loads(Constraint.for_schema(schema).json_schema or "")["properties"]) == ["zeta", "alpha"]
    assert Constraint.for_schema(schema).param == "response_format"


@pytest.mark.parametrize("schema, words", [
    ({"type": "string", "format": "colour-name"}, "colour-name"),
    ({"type": "object", "not": {}}, "not"),
    ({"type": "array", "uniqueItems": True}, "uniqueItems"),
    ({"$ref": "#/$defs/missing"}, "/$defs/missing"),
    ({"type": "array", "minItems": 2, "maxItems": 1}, "minItems"),
    ({"type": "string", "pattern": "(("}, "regex"),
    ({"type": "tuple"}, "tuple"),
])
def test_inexpressible_schemas_are_unsatisfiable(schema: dict[str, Any], words: str) -> None:
    with pytest.raises(ConstraintUnsatisfiable) as caught:
        compile_constraint(Constraint.for_schema(schema, param="response_format.json_schema"))
    assert str(caught.value).startswith("constraint unsatisfiable: ")
    assert words in str(caught.value)
    assert caught.value.param == "response_format.json_schema"
    assert isinstance(caught.value, InvalidRequest), "a 400, not a server error"


def test_a_schema_that_is_not_an_object_is_unsatisfiable() -> None:
    with pytest.raises(ConstraintUnsatisfiable, match="not a JSON object"):
        compile_constraint(Constraint(json_schema="[1, 2]", param="format"))


def test_a_broken_lark_grammar_is_unsatisfiable() -> None:
    with pytest.raises(ConstraintUnsatisfiable, match="unknown name") as caught:
        compile_constraint(Constraint(lark="start: missing_rule", param="tools"))
    assert caught.value.param == "tools"


def test_failures_are_not_cached_as_successes() -> None:
    bad = Constraint.for_schema({"type": "string", "format": "colour-name"})
    for _ in range(2):
        with pytest.raises(ConstraintUnsatisfiable):
            compile_constraint(bad)


# ---- what a grammar accepts -------------------------------------------------------------------------------


def test_json_is_compact_with_fixed_separators() -> None:
    schema = Constraint.for_schema({"type": "object", "properties": {"a": {"type": "integer"},
                                                                     "b": {"type": "array",
                                                                           "items": {"type": "integer"}}},
                                    "required": ["a", "b"], "additionalProperties": False})
    assert _accepts(schema, '{"a": 1, "b": [1, 2]}')
    assert not _accepts(schema, '{"a":1,"b":[1,2]}')
    assert not _accepts(schema, '{ "a": 1, "b": [1, 2] }')
    assert not _accepts(schema, '{"a": 1,\n "b": [1, 2]}')


def test_properties_come_in_schema_order() -> None:
    schema = Constraint.for_schema({"type": "object", "properties": {"z": {"type": "integer"},
                                                                     "a": {"type": "integer"}},
                                    "required": ["z", "a"], "additionalProperties": False})
    assert _accepts(schema, '{"z": 1, "a": 2}')
    assert not _accepts(schema, '{"a": 2, "z": 1}')


def test_any_json_object_takes_objects_only() -> None:
    constraint = Constraint.for_schema(ANY_JSON_OBJECT)
    assert _accepts(constraint, '{"k": [1, {"n": null}], "s": "x"}')
    assert _accepts(constraint, "{}")
    assert not _accepts(constraint, "[1, 2]")
    assert not _accepts(constraint, '"text"')


def test_lark_grammars_constrain_too() -> None:
    constraint = Constraint(lark='start: "yes" | "no"')
    assert _accepts(constraint, "yes") and _accepts(constraint, "no")
    assert not _accepts(constraint, "maybe")


# ---- masks, one lane at a time ------------------------------------------------------------------------------

DECODED_SCHEMAS: dict[str, dict[str, Any]] = {
    "object": {"type": "object", "additionalProperties": False, "required": ["name", "tags", "kind"],
               "properties": {"name": {"type": "string", "maxLength": 8},
                              "tags": {"type": "array", "items": {"enum": ["a", "b"]}, "minItems": 1,
                                       "maxItems": 3},
                              "kind": {"anyOf": [{"const": 1}, {"type": "boolean"}]}}},
    "refs": {"$defs": {"p": {"type": "object", "properties": {"x": {"type": "integer", "minimum": 0,
                                                                    "maximum": 9}},
                             "required": ["x"], "additionalProperties": False}},
             "type": "array", "items": {"$ref": "#/$defs/p"}, "minItems": 2, "maxItems": 2},
    "pattern": {"type": "string", "pattern": "^[a-c]{2}-[0-9]$"},
}


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("name", sorted(DECODED_SCHEMAS))
def test_masked_decoding_always_validates(name: str, seed: int) -> None:
    schema = DECODED_SCHEMAS[name]
    text = _decode(Constraint.for_schema(schema), seed)
    jsonschema.validate(json.loads(text), schema)


def test_apply_forbids_exactly_what_the_grammar_forbids() -> None:
    vocabulary = grammar_tokenizer()
    state = _state(Constraint(lark='start: "yes" | "no"'))
    logits = np.zeros(vocabulary.n_vocab, dtype=np.float32)
    state.apply(logits)
    allowed = np.flatnonzero(np.isfinite(logits))
    texts = {vocabulary.tokenizer.decode_str([int(t)]) for t in allowed}
    assert texts and all("yes".startswith(t) or "no".startswith(t) for t in texts), texts
    assert np.isneginf(logits[vocabulary.tokenizer.tokenize_str("maybe")[0]])


def test_advance_reports_a_refused_token_and_done_at_the_end() -> None:
    vocabulary = grammar_tokenizer()
    state = _state(Constraint(lark='start: "yes"'))
    assert not state.done and state.error is None
    for token in vocabulary.tokenizer.tokenize_str("yes"):
        assert state.advance(token)
    assert state.done
    refused = _state(Constraint(lark='start: "yes"'))
    assert not refused.advance(vocabulary.tokenizer.tokenize_str("no")[0])
    assert refused.error


def test_lanes_keep_their_own_grammar_state() -> None:
    constraint = Constraint(lark='start: "yes" | "no"')
    first, second = _state(constraint), _state(constraint)
    tokens = grammar_tokenizer().tokenizer.tokenize_str("yes")
    for token in tokens:
        assert first.advance(token)
    assert first.done and not second.done
    assert second.advance(grammar_tokenizer().tokenizer.tokenize_str("no")[0])


# ---- lazy grammars ----------------------------------------------------------------------------------------


def _feed_lazy(lazy: LazyGrammar, pieces: list[str]) -> tuple[int | None, str]:
    """What the scheduler does with each decoded piece: where the grammar engages, and the text it takes."""
    reply = ""
    for piece in pieces:
        reply += piece
        at = lazy.trigger_at(reply)
        if at is not None:
            return at, reply[at:]
        if not lazy.may_trigger_later(reply):
            return None, ""
        reply = lazy.keep(reply)
    return None, ""


@pytest.mark.parametrize("pieces, taken", [
    (["Sure. ", "<tool", "_call>", "\n{"], "<tool_call>"),
    (["Sure. <tool", "_call>\n{"], "<tool_call>\n{"),
    (["<tool_call>"], "<tool_call>"),
    (["words only"], None),
    (["a" * 50, "<tool_ca", "ll>x"], "<tool_call>x"),
])
def test_a_lazy_grammar_engages_wherever_its_trigger_appears(pieces: list[str], taken: str | None) -> None:
    at, text = _feed_lazy(LazyGrammar("<tool_call>", "grammar"), pieces)
    assert (text if at is not None else None) == taken


@pytest.mark.parametrize("pieces, taken", [
    (['{"', "name", '": "f"'], '{"name": "f"'),
    (["\n ", '{"name"'], '{"name"'),
    (['{"na', "me"], None),
    (["Sure: ", '{"name": "f"'], None),
    (['{"nam', 'e_of": 1}', ' {"name"'], None),
])
def test_a_start_anchored_trigger_counts_only_at_the_start(pieces: list[str], taken: str | None) -> None:
    lazy = LazyGrammar('{"name"', "grammar", at_start=True)
    at, text = _feed_lazy(lazy, pieces)
    assert (text if at is not None else None) == taken


# ---- closed objects ---------------------------------------------------------------------------------------


def test_closed_objects_reaches_every_subschema_and_respects_explicit_choices() -> None:
    obj = {"type": "object", "properties": {"a": {"type": "integer"}}}
    schema = {
        "type": "object",
        "properties": {"list": {"type": "array", "items": obj}, "open": {**obj, "additionalProperties": True},
                       "pattern": {**obj, "patternProperties": {"^x": {}}}, "untyped": {"properties": {"b": {}}}},
        "$defs": {"d": obj}, "definitions": {"e": obj},
        "anyOf": [obj], "oneOf": [obj],
        "additionalProperties": {"type": "object", "properties": {"z": {}}},
    }
    closed = closed_objects(schema)
    assert closed["additionalProperties"] is not False  # it says: a schema for extra keys
    shut = [closed["properties"]["list"]["items"], closed["$defs"]["d"], closed["definitions"]["e"],
            closed["anyOf"][0], closed["oneOf"][0], closed["additionalProperties"],
            closed["properties"]["untyped"]]
    assert all(s["additionalProperties"] is False for s in shut)
    assert closed["properties"]["open"]["additionalProperties"] is True
    assert "additionalProperties" not in closed["properties"]["pattern"]
    prefix = closed_objects({"type": "array", "prefixItems": [obj]})
    assert prefix["prefixItems"][0]["additionalProperties"] is False
    assert "additionalProperties" not in schema["properties"]["list"]["items"], "the input is not modified"


def test_closed_objects_leaves_objects_without_properties_and_all_of_branches_open() -> None:
    assert closed_objects({"type": "object"}) == {"type": "object"}
    assert closed_objects(True) is True
    inner = {"type": "object", "properties": {"n": {}}}
    merged = closed_objects({"allOf": [{"type": "object", "properties": {"a": {}, "deep": inner}},
                                       {"type": "object", "properties": {"b": {}}}]})
    assert all("additionalProperties" not in branch for branch in merged["allOf"])
    assert merged["allOf"][0]["properties"]["deep"]["additionalProperties"] is False


def test_a_plain_schema_takes_no_invented_keys_and_no_key_twice() -> None:
    """A schema as pydantic writes it (no additionalProperties, no strict) is closed: the keys it lists, once."""
    schema = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
              "required": ["a"], "title": "M"}
    assert _accepts(Constraint.for_schema(schema), '{"a": 1, "b": 2}')
    assert not _accepts(Constraint.for_schema(schema), '{"a": 1, "c": 2}')
    assert not _accepts(Constraint.for_schema(schema), '{"a": 1, "a": 2}')
    opened = {**schema, "additionalProperties": True}
    assert _accepts(Constraint.for_schema(opened), '{"a": 1, "c": 2}')
    assert not _accepts(Constraint.for_schema(opened), '{"a": 1, "a": 2}')


def test_all_of_branches_merge_into_one_object() -> None:
    schema = {"allOf": [{"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]},
                        {"type": "object", "properties": {"b": {"type": "integer"}}, "required": ["b"]}]}
    assert _accepts(Constraint.for_schema(schema), '{"a": 1, "b": 2}')


def test_a_grammar_is_prepared_once_and_each_state_is_its_own() -> None:
    """The second state of a grammar is a copy of a kept matcher: advancing one leaves the next fresh."""
    tokenizer = grammar_tokenizer()
    grammar = compile_constraint(Constraint(lark='start: "yes" | "no"'))
    first = tokenizer.state(grammar)
    assert tokenizer._pristine[grammar] is not first.matcher
    assert accepts(first, "yes")
    assert accepts(tokenizer.state(grammar), "no")
    for n in range(PRISTINE_MATCHERS + 1):
        tokenizer.state(compile_constraint(Constraint(lark=f'start: "v{n}"')))
    assert grammar not in tokenizer._pristine and len(tokenizer._pristine) == PRISTINE_MATCHERS


def test_a_huge_grammar_is_built_afresh_and_the_kept_ones_stay_within_their_budget() -> None:
    tokenizer = grammar_tokenizer()
    text = "ab " * (PRISTINE_CHARS // 10)
    huge = compile_constraint(Constraint(lark=f'start: "{text}"'))
    assert len(huge) > PRISTINE_CHARS // 4
    assert accepts(tokenizer.state(huge), text) and huge not in tokenizer._pristine
    assert sum(map(len, tokenizer._pristine)) <= PRISTINE_CHARS


def _wide_any_of(branches: int) -> str:
    return compile_constraint(Constraint.for_schema({"anyOf": [
        {"type": "object", "properties": {f"k{i}": {"type": "string", "maxLength": 3}}, "required": [f"k{i}"]}
        for i in range(branches)]}))


def test_an_any_of_past_llguidances_default_row_cap_decodes_to_valid_json() -> None:
    """2,500 branches: llguidance's default cap (2,000 alternatives a step) stopped the parser after '{"'."""
    state = grammar_tokenizer().state(_wide_any_of(2500))
    assert accepts(state, '{"k2499": "abc"}'), state.error


def test_a_parse_step_past_the_cap_leaves_the_matcher_in_error_naming_it() -> None:
    """What the scheduler turns into a 400 (conformance/test_structured_outputs.py has it end to end)."""
    wide = compile_constraint(Constraint.for_schema(
        {"type": "object", "properties": {f"k{i}": {"type": "string"} for i in range(2600)}}))
    state = grammar_tokenizer().state(wide)
    assert state.error is None
    assert not accepts(state, '{"k0": "a"}')
    assert state.error is not None and f"max is {grammar.ROW_ITEMS}" in state.error


def test_a_big_grammar_is_built_at_the_lowest_priority_when_the_caller_may_wait() -> None:
    big = _wide_any_of(1000)
    assert len(big) >= grammar.YIELDING_GRAMMAR_CHARS
    state = grammar_tokenizer().state(big, yield_cpu=True)
    assert accepts(state, '{"k999": "abc"}')
    assert grammar._yielding is not None
    nice = grammar._yielding.submit(lambda: os.getpriority(os.PRIO_PROCESS, threading.get_native_id())).result()
    assert nice == min(19, os.getpriority(os.PRIO_PROCESS, 0) + 19)
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == os.getpriority(os.PRIO_PROCESS, 0), \
        "the caller's own thread keeps its priority"


def test_an_integer_without_bounds_has_at_most_sixteen_digits() -> None:
    """As llama.cpp's converter: a small model must not write digits to the token cap. Bounds the schema sets are
    its own, and a number's integral part is left as the schema says."""
    schema = {"type": "object", "properties": {"population": {"type": "integer"}}, "required": ["population"]}
    constraint = Constraint.for_schema(schema)
    assert _accepts(constraint, '{"population": ' + "9" * 16 + "}")
    assert _accepts(constraint, '{"population": -' + "9" * 16 + "}")
    assert not _accepts(constraint, '{"population": ' + "1" * 17 + "}")
    own = Constraint.for_schema({"type": "object", "properties": {"n": {"type": "integer", "maximum": 10 ** 18}},
                                 "required": ["n"]})
    assert _accepts(own, '{"n": ' + "1" * 18 + "}")
    assert not _accepts(own, '{"n": -' + "1" * 17 + "}")


def test_a_number_without_bounds_has_at_most_sixteen_integral_and_ten_fraction_digits() -> None:
    """A number's integral part as an integer's; after the point, the ten digits llguidance can bound. A schema's own
    bounds and step are its own."""
    schema = {"type": "object", "properties": {"ratio": {"type": "number"}}, "required": ["ratio"]}
    constraint = Constraint.for_schema(schema)
    for good in ["0", "-3.25", "9" * 16 + "." + "1" * 10, "0." + "0" * 9 + "1"]:
        assert _accepts(constraint, '{"ratio": ' + good + "}"), good
    for bad in ["1" * 17, "1." + "1" * 11, "3.14159265358979323846"]:
        assert not _accepts(constraint, '{"ratio": ' + bad + "}"), bad
    own = Constraint.for_schema({"type": "object", "properties": {"p": {"type": "number", "minimum": 0, "maximum": 1,
                                                                        "multipleOf": 0.25}}, "required": ["p"]})
    assert _accepts(own, '{"p": 0.75}') and not _accepts(own, '{"p": 0.7}') and not _accepts(own, '{"p": 2}')
    # Random masked decoding stays inside the bound.
    for seed in range(8):
        value = json.loads(_decode(constraint, seed))["ratio"]
        text = json.dumps(value)
        assert len(text.split(".")[-1]) <= 10 if "." in text else len(text.lstrip("-")) <= 16
