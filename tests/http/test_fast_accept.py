"""The compiled acceptor never accepts a body jsonschema refuses, and accepts the bodies clients send."""

from __future__ import annotations

import copy
import functools
import json
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from connexion.spec import Specification
from hypothesis import HealthCheck, Phase, given, settings
from schemathesis.generation import GenerationMode

from superfluid.app import SPEC_DIR, SPECS
from superfluid.http.fast_accept import (
    DISPATCH,
    acceptor,
    explicit_nulls,
    fast_form,
    merged_union,
    tagged_union,
)
from superfluid.http.validation import _null_alternatives, _validator_of, body_error

WRONG_VALUES: tuple[Any, ...] = (None, True, 0, -1, 1.5, "", "x", [], [1], {}, {"k": None})
"""What a mutation puts in place of a value: one of every JSON type, empty and not."""


def _operations() -> list[tuple[str, str, str]]:
    found = []
    for spec in SPECS:
        document = Specification.load(SPEC_DIR / spec)
        for path, methods in document["paths"].items():
            for method, operation in methods.items():
                content = operation.get("requestBody", {}).get("content", {}) if isinstance(operation, dict) else {}
                if "application/json" in content:
                    found.append((spec, path, method))
    return found


OPERATIONS = _operations()


@functools.cache
def _checks(spec: str, path: str, method: str) -> tuple[Any, Any]:
    """The operation's body schema as the server validates it: jsonschema's validator and the acceptor."""
    document = Specification.load(SPEC_DIR / spec)
    schema = _null_alternatives(document["paths"][path][method]["requestBody"]["content"]["application/json"]
                                ["schema"])
    return _validator_of(schema), acceptor(schema)


def _mutations(body: Any) -> Iterator[Any]:
    """``body`` with one value replaced by a value of each other kind, or one key left out, at every place."""
    def places(node: Any, where: tuple[Any, ...]) -> Iterator[tuple[Any, ...]]:
        yield where
        children = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for key, child in children:
            yield from places(child, (*where, key))

    for where in list(places(body, ()))[:40]:
        if not where:
            continue
        for value in (*WRONG_VALUES, "leave out"):
            changed = copy.deepcopy(body)
            parent = changed
            for key in where[:-1]:
                parent = parent[key]
            if value == "leave out":
                if not isinstance(parent, dict):
                    continue
                del parent[where[-1]]
            else:
                parent[where[-1]] = value
            yield changed


def test_every_documented_body_schema_compiles() -> None:
    assert len(OPERATIONS) >= 20  # chat, completions, responses, messages, embeddings, Ollama's...
    for operation in OPERATIONS:
        _checks(*operation)


@pytest.mark.parametrize(("spec", "path", "method"), OPERATIONS, ids=[f"{m} {p}" for _, p, m in OPERATIONS])
def test_what_the_acceptor_takes_jsonschema_takes(spec: str, path: str, method: str) -> None:
    """Generated valid bodies (schemathesis, from the document) are accepted by both; every one-place mutation
    of them that the acceptor takes, jsonschema takes too."""
    validator, accepts = _checks(spec, path, method)
    operation = schemathesis.openapi.from_path(str(SPEC_DIR / spec))[path][method.upper()]

    @settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck), database=None,
              phases=(Phase.generate,))  # no shrinking: a failure names its body itself
    @given(operation.as_strategy(generation_mode=GenerationMode.POSITIVE))
    def check(case: Any) -> None:
        if not isinstance(case.body, dict):
            return
        assert body_error(validator, case.body) is None
        assert accepts(case.body)
        for changed in _mutations(case.body):
            if accepts(changed):
                assert body_error(validator, changed) is None, changed

    check()


def test_client_bodies_are_accepted_without_jsonschema() -> None:
    validator, accepts = _checks("openai.yaml", "/v1/chat/completions", "post")
    bodies = [
        {"model": "m", "messages": [{"role": "user", "content": "hi"}]},
        {"model": "m", "messages": [{"role": "system", "content": None},
                                    {"role": "user", "content": [{"type": "text", "text": "a"}]},
                                    {"role": "assistant", "tool_calls": [{"id": "c", "type": "function",
                                                                          "function": {"name": "f",
                                                                                       "arguments": "{}"}}]},
                                    {"role": "tool", "tool_call_id": "c", "content": "ok"}],
         "stop": ["a", "b"], "max_tokens": None, "stream": True},
        {"model": "m", "messages": [{"role": "user", "content": f"m {i}"} for i in range(20_000)]},
    ]
    for body in bodies:
        assert accepts(body)
        assert body_error(validator, body) is None
    for refused in ({"model": "m", "messages": [{"role": "user", "content": 5}]},
                    {"model": "m", "messages": [{"role": "user", "content": "a"}], "max_tokens": 1.0},
                    {"model": "m", "messages": [{"role": "user", "content": "a"}], "stop": ["a"] * 5}):
        assert not accepts(refused)
        assert body_error(validator, refused) is not None


def test_nullable_becomes_null_in_type_and_enum_only() -> None:
    schema = {"type": "object", "properties": {
        "nullable": {"type": "string"},  # a property of that name is not the keyword
        "a": {"type": "string", "nullable": True, "enum": ["x"]},
        "b": {"allOf": [{"type": "string"}], "nullable": True}}}
    out = explicit_nulls(schema)
    assert out["properties"]["nullable"] == {"type": "string"}
    assert out["properties"]["a"] == {"type": ["string", "null"], "enum": ["x", None]}
    assert out["properties"]["b"] == {"allOf": [{"type": "string"}]}  # Connexion lets null through type and enum only


def test_unions_merge_only_when_each_type_has_one_branch() -> None:
    content = {"anyOf": [{"oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "object"}}]},
                         {"enum": [None]}]}
    assert fast_form(content)["type"] == ["string", "array", "null"]
    assert fast_form(content)["items"] == {"type": "object"}
    for overlapping in ([{"type": "number"}, {"type": "integer", "minimum": 3}],
                        [{"type": "string", "minLength": 2}, {"type": "string", "enum": ["a"]}],
                        [{"type": "string"}, {"type": "object", "minLength": 1}],  # not that type's keyword
                        [{"type": "string"}, {"$ref": "#/x"}]):
        assert merged_union({"oneOf": overlapping}) is None
    assert merged_union({"oneOf": [{"type": "string"}], "minLength": 3}) is None  # more than the union


def test_draft_4_types_and_no_defaults_written() -> None:
    """Connexion validates as draft 4: 1.0 is no integer, a boolean is no number; and a default is never
    written into the body (fastjsonschema can fill them in)."""
    schema = {"type": "object", "properties": {"n": {"type": "integer", "default": 3}, "x": {"type": "number"}}}
    accepts = acceptor(schema)
    validator = _validator_of(schema)
    for body in ({"n": 1.0}, {"n": True}, {"x": True}, {"n": "1"}):
        assert not accepts(body)
        assert body_error(validator, body) is not None
    body: dict[str, Any] = {"x": 1.5}
    assert accepts(body)
    assert body == {"x": 1.5}


def _block(tag: Any, **extra: Any) -> dict[str, Any]:
    return {"type": "object", "required": ["type"], "properties": {"type": {"type": "string", "enum": [tag]}},
            **extra}


def test_a_oneof_of_tagged_objects_becomes_an_anyof_only_when_no_value_can_match_two() -> None:
    blocks = {"oneOf": [_block("text"), _block("tool_use")], "description": "a block"}
    assert tagged_union(blocks) == {"anyOf": blocks["oneOf"], "description": "a block",
                                    DISPATCH: ["type", ["text", "tool_use"]]}
    for untagged in ([_block("text"), _block("text")],  # the same tag twice
                     [_block("text"), {**_block("x"), "required": []}],  # the tag not required
                     [_block("text"), {**_block("x"), "type": ["object", "null"]}],  # null matches both
                     [_block("text"), _block("x", properties={"type": {"enum": ["x", "y"]}})],  # two values
                     [_block(1), _block(1.0)],  # one number to jsonschema
                     [_block({"k": 1}), _block({"k": 2})]):  # not a string, number or boolean
        assert tagged_union({"oneOf": untagged}) is None
    assert tagged_union({"oneOf": [_block(True), _block(1), _block("1")]}) is not None  # three values to jsonschema
    assert tagged_union({"anyOf": [_block("a"), _block("b")]}) is None  # already "at least one"
    assert tagged_union({"oneOf": [_block("a"), _block("b")], "anyOf": [{"minProperties": 2}]}) is None


def test_a_union_with_string_tags_is_checked_by_its_tag() -> None:
    """The compiled check tries only the branch whose tag the value carries; what it accepts is still exactly
    what jsonschema accepts of the oneOf."""
    text = _block("text", properties={"type": {"enum": ["text"]}, "text": {"type": "string"}},
                  required=["type", "text"])
    image = _block("image", properties={"type": {"enum": ["image"]}, "size": {"type": "integer"}})
    schema = {"type": "object", "properties": {"blocks": {"type": "array", "items": {"oneOf": [text, image]}}}}
    form = fast_form(schema)
    assert form["properties"]["blocks"]["items"][DISPATCH] == ["type", ["text", "image"]]
    accepts, validator = acceptor(schema), _validator_of(schema)
    for blocks in ([{"type": "text", "text": "hi"}, {"type": "image", "size": 3}, {"type": "image"}],
                   [{"type": "text"}], [{"type": "image", "size": "big"}], [{"type": "video"}], [{"text": "hi"}],
                   [{"type": 1}], ["text"], [None], [{"type": ["text"], "text": "x"}]):
        body = {"blocks": blocks}
        assert accepts(body) == (body_error(validator, body) is None), blocks
    assert accepts({"blocks": [{"type": "text", "text": "hi"}, {"type": "image"}]})


def test_only_string_tags_are_dispatched_on() -> None:
    assert DISPATCH not in tagged_union({"oneOf": [_block(1), _block(2)]})  # type: ignore[operator]
    assert DISPATCH in tagged_union({"oneOf": [_block("a"), _block("b")]})  # type: ignore[operator]


def test_anthropic_content_blocks_are_dispatched_on() -> None:
    document = Specification.load(SPEC_DIR / "anthropic.yaml")
    schema = document["paths"]["/v1/messages"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert f'"{DISPATCH}": ["type", ["text", ' in json.dumps(fast_form(_null_alternatives(schema)))
