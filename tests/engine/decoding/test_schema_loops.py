"""Self-referential schemas with no way out (superfluid.engine.decoding.schema_loops), and the ones that are fine."""

from __future__ import annotations

from typing import Any

import pytest

from superfluid.engine.decoding.grammar import Constraint, compile_constraint
from superfluid.engine.decoding.schema_loops import describe_loop, unproductive_loop
from superfluid.errors import ConstraintUnsatisfiable

A_B = {"type": "object", "properties": {"x": {"$ref": "#/$defs/a"}}, "required": ["x"],
       "$defs": {"a": {"type": "object", "properties": {"b": {"$ref": "#/$defs/b"}}, "required": ["b"]},
                 "b": {"type": "object", "properties": {"a": {"$ref": "#/$defs/a"}}, "required": ["a"]}}}

LOOPS: dict[str, tuple[dict[str, Any], list[str]]] = {
    "itself": ({"$ref": "#"}, ["#", "#"]),
    "a-b-a": ({"$ref": "#/$defs/a", "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}},
              ["#/$defs/a", "#/$defs/b", "#/$defs/a"]),
    "required property": ({"type": "object", "properties": {"me": {"$ref": "#"}}, "required": ["me"]},
                          ["#", "#/properties/me", "#"]),
    "a-b-a through properties": (A_B, ["#/$defs/a", "#/$defs/a/properties/b", "#/$defs/b",
                                       "#/$defs/b/properties/a", "#/$defs/a"]),
    "allOf": ({"allOf": [{"$ref": "#"}, {"type": "object"}]}, ["#", "#/allOf/0", "#"]),
    "every anyOf branch": ({"anyOf": [{"$ref": "#"}, {"allOf": [{"$ref": "#"}]}]}, ["#", "#/anyOf/0", "#"]),
    "non-empty array of itself": ({"type": "array", "items": {"$ref": "#"}, "minItems": 1}, ["#", "#/items", "#"]),
}

FINE: dict[str, dict[str, Any]] = {
    "linked list ending in null": {"type": "object", "properties": {
        "value": {"type": "integer"}, "next": {"anyOf": [{"$ref": "#"}, {"type": "null"}]}},
        "required": ["value", "next"]},
    "optional link": {"type": "object", "properties": {"next": {"$ref": "#"}}},
    "tree with a possibly empty list": {"$ref": "#/$defs/node", "$defs": {"node": {
        "type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/node"}}},
        "required": ["children"]}}},
    "nullable type": {"type": ["object", "null"], "properties": {"a": {"$ref": "#"}}, "required": ["a"]},
    "a loop nobody uses": {"type": "string", "$defs": {"x": {"$ref": "#/$defs/x"}}},
    "no type named": {"properties": {"a": {"$ref": "#"}}, "required": ["a"]},
    "false (the grammar engine's to report)": {"type": "object", "properties": {"a": False}, "required": ["a"]},
}


@pytest.mark.parametrize("name", LOOPS)
def test_a_loop_with_no_way_out_is_named(name: str) -> None:
    schema, loop = LOOPS[name]
    assert unproductive_loop(schema) == loop


@pytest.mark.parametrize("name", FINE)
def test_a_schema_with_a_way_out_passes(name: str) -> None:
    assert unproductive_loop(FINE[name]) is None


def test_the_loop_is_refused_before_compiling_and_the_field_named() -> None:
    with pytest.raises(ConstraintUnsatisfiable) as caught:
        compile_constraint(Constraint.for_schema(A_B, param="format"))
    assert caught.value.param == "format"
    assert caught.value.message.startswith("constraint unsatisfiable: the schema refers to itself")
    assert "#/$defs/a -> #/$defs/a/properties/b -> #/$defs/b" in caught.value.message


def test_a_recursive_schema_with_a_base_case_still_compiles() -> None:
    assert compile_constraint(Constraint.for_schema(FINE["linked list ending in null"]))


def test_a_long_loop_is_shortened_in_the_message() -> None:
    defs = {f"d{i}": {"$ref": f"#/$defs/d{(i + 1) % 20}"} for i in range(20)}
    loop = unproductive_loop({"$ref": "#/$defs/d0", "$defs": defs})
    assert loop is not None and len(loop) == 21
    assert "..." in describe_loop(loop)
