"""Structured outputs against the real server: response_format json_schema and json_object.

A corpus of schemas is sent in both strict modes, four requests at a time (the server decodes them in one
batch, each lane under its own grammar). Whenever a reply finishes with "stop" its content must parse and
validate against the schema, formats included; the corpus is shaped (maxLength, maxItems, closed objects)
so that the bundled 135M model does finish. Schemas the grammar engine cannot express are a 400 whose message
starts "constraint unsatisfiable: ", never a 200 with an unconstrained reply.
"""

from __future__ import annotations

import json
import uuid
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Literal

import httpx
import jsonschema
import openai
import pytest
from openai import OpenAI
from openai.types.chat import ChatCompletion
from pydantic import BaseModel, Field

BRIEF = "Reply in JSON, briefly."
MAX_TOKENS = 200
FORMATS = jsonschema.Draft202012Validator.FORMAT_CHECKER


def _closed(properties: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": list(properties) if required is None else required,
            "additionalProperties": False}


SHORT = {"type": "string", "maxLength": 16}
INT = {"type": "integer", "minimum": -999, "maximum": 999}
"""Numbers and strings are bounded: a 135M model can fall into writing digits until the token cap, and which
replies do depends on how requests happen to batch. The grammar is what is under test, not the model's stamina."""

CORPUS: dict[str, dict[str, Any]] = {
    "flat_object": _closed({"name": SHORT, "age": {"type": "integer", "minimum": 0, "maximum": 120}}),
    "nested_objects": _closed({
        "user": _closed({
            "name": {"type": "string", "maxLength": 10},
            "address": _closed({"city": {"type": "string", "maxLength": 10},
                                "zip": {"type": "string", "pattern": "^[0-9]{5}$"}}),
        }),
    }),
    "array_min_max_items": _closed({
        "tags": {"type": "array", "items": {"type": "string", "maxLength": 10}, "minItems": 2, "maxItems": 3},
    }),
    "array_of_objects": _closed({
        "points": {"type": "array", "minItems": 1, "maxItems": 2,
                   "items": _closed({"x": INT, "y": INT})},
    }),
    "tuple_prefix_items": _closed({
        "pair": {"type": "array", "prefixItems": [INT, {"type": "boolean"}], "items": False},
    }),
    "enum": _closed({"color": {"enum": ["red", "green", "blue"]}, "size": {"type": "string", "enum": ["S", "M"]}}),
    "const": _closed({"kind": {"const": "point"}, "version": {"const": 2}, "x": INT}),
    "any_of": _closed({"value": {"anyOf": [INT, {"type": "boolean"}, {"type": "null"}]}}),
    "one_of": _closed({"shape": {"oneOf": [_closed({"circle": {"type": "number", "minimum": 0, "maximum": 99}}),
                                           _closed({"square": {"type": "integer", "minimum": 0, "maximum": 99}})]}}),
    "ref_defs": {
        "$defs": {"point": _closed({"x": {"type": "integer", "maximum": 99}, "y": {"type": "integer", "maximum": 99}})},
        **_closed({"start": {"$ref": "#/$defs/point"}, "end": {"$ref": "#/$defs/point"}}),
    },
    "pattern": _closed({"code": {"type": "string", "pattern": "^[A-Z]{3}-[0-9]{3}$"}}),
    "format_date": _closed({"day": {"type": "string", "format": "date"}}),
    "format_time": _closed({"at": {"type": "string", "format": "time", "maxLength": 20}}),
    "format_email": _closed({"mail": {"type": "string", "format": "email", "maxLength": 16}}),
    "format_uuid": _closed({"id": {"type": "string", "format": "uuid"}}),
    "format_ipv4": _closed({"ip": {"type": "string", "format": "ipv4"}}),
    "numbers_bounded": _closed({"ratio": {"type": "number", "minimum": 0, "maximum": 1},
                                "count": {"type": "integer", "minimum": 3, "maximum": 7}}),
    "nullable_type_list": _closed({"note": {"type": ["string", "null"], "maxLength": 12}}),
    "optional_property": _closed({"title": SHORT, "note": {"type": "string", "maxLength": 6}}, required=["title"]),
    "additional_properties_true": {"type": "object", "properties": {"k": INT}, "required": ["k"],
                                   "additionalProperties": INT, "maxProperties": 2},
    "all_of": {"allOf": [_closed({"a": INT}), {"required": ["a"]}]},
}

# Prompts the small model answers briefly with no JSON instructions of its own beyond "JSON".
JSON_OBJECT_PROMPTS = ("Return a JSON object with your name.", "Give a JSON object with one key, ok, set to true.")


def _user(text: str) -> list[Any]:
    return [{"role": "user", "content": text}]


def _schema_format(name: str, schema: dict[str, Any], strict: bool) -> Any:
    return {"type": "json_schema", "json_schema": {"name": name, "schema": schema, "strict": strict}}


def _validate(schema: dict[str, Any], content: str | None) -> Any:
    assert content is not None
    assert "\n" not in content and content == content.strip(), f"not compact JSON: {content!r}"
    value = json.loads(content)
    jsonschema.Draft202012Validator(schema, format_checker=FORMATS).validate(value)
    return value


@pytest.fixture(scope="module")
def corpus_replies(client: OpenAI, model: str) -> dict[tuple[str, bool], ChatCompletion]:
    """Every corpus schema in both strict modes, four requests in flight at once."""

    def send(key: tuple[str, bool]) -> ChatCompletion:
        name, strict = key
        return client.chat.completions.create(
            model=model, messages=_user(BRIEF), max_tokens=MAX_TOKENS, temperature=0,
            response_format=_schema_format(name, CORPUS[name], strict),
        )

    keys = [(name, strict) for name in CORPUS for strict in (True, False)]
    with ThreadPoolExecutor(max_workers=4) as pool:
        return dict(zip(keys, pool.map(send, keys), strict=True))


@pytest.mark.parametrize("strict", [True, False], ids=["strict", "loose"])
@pytest.mark.parametrize("name", sorted(CORPUS))
def test_corpus_reply_validates(corpus_replies: dict[tuple[str, bool], ChatCompletion], name: str,
                                strict: bool) -> None:
    reply = corpus_replies[(name, strict)]
    choice = reply.choices[0]
    assert choice.finish_reason == "stop", f"{name}: the model ran to the token cap: {choice.message.content!r}"
    _validate(CORPUS[name], choice.message.content)
    assert choice.message.tool_calls is None


@pytest.mark.parametrize("prompt", JSON_OBJECT_PROMPTS)
def test_json_object_reply_is_an_object(client: OpenAI, model: str, prompt: str) -> None:
    # Any JSON object may nest without end, and whether the 135M model's greedy reply closes depends on the last
    # bits of its logits: a batch-invariant lane (cold, alone) makes the reply the same whatever ran before.
    reply = client.chat.completions.create(model=model, messages=_user(prompt), max_tokens=MAX_TOKENS,
                                           temperature=0, response_format={"type": "json_object"},
                                           extra_headers={"x-superfluid-batch-invariant": "1"})
    choice = reply.choices[0]
    assert choice.finish_reason == "stop", choice.message.content
    assert isinstance(_validate({"type": "object"}, choice.message.content), dict)


def test_strict_closes_objects_that_do_not_say(client: OpenAI, model: str) -> None:
    """strict: true reads an object without additionalProperties as closed, nested ones too."""
    schema = {"type": "object", "required": ["color", "inner"],
              "properties": {"color": {"enum": ["red", "green"]},
                             "inner": {"type": "object", "properties": {"n": {"type": "integer", "maximum": 9}},
                                       "required": ["n"]}}}
    reply = client.chat.completions.create(model=model, messages=_user(BRIEF), max_tokens=MAX_TOKENS,
                                           temperature=0, response_format=_schema_format("c", schema, True))
    assert reply.choices[0].finish_reason == "stop"
    value = _validate(schema, reply.choices[0].message.content)
    assert set(value) == {"color", "inner"}
    assert set(value["inner"]) == {"n"}


def test_constraints_hold_in_every_choice(client: OpenAI, model: str) -> None:
    """n choices sampled hot: each lane decodes under its own copy of the grammar."""
    schema = _closed({"animal": {"enum": ["cat", "dog", "owl", "fox"]},
                      "legs": {"type": "integer", "minimum": 0, "maximum": 8}})
    reply = client.chat.completions.create(model=model, messages=_user("Pick an animal, as JSON."), n=3,
                                           max_tokens=60, temperature=1.0, seed=77,
                                           response_format=_schema_format("pick", schema, True))
    assert [c.index for c in reply.choices] == [0, 1, 2]
    for choice in reply.choices:
        assert choice.finish_reason == "stop", choice.message.content
        _validate(schema, choice.message.content)


# ---- schemas the grammar cannot express -------------------------------------------------------------

REFUSED: dict[str, tuple[dict[str, Any], str]] = {
    "unknown_format": (_closed({"a": {"type": "string", "format": "colour-name"}}), "colour-name"),
    "unimplemented_not": ({"type": "object", "not": {"required": ["a"]}}, "not"),
    "unimplemented_unique_items": ({"type": "array", "items": {"type": "integer"}, "uniqueItems": True},
                                   "uniqueItems"),
    "unimplemented_if_then": ({"type": "object", "if": {"required": ["a"]}, "then": {"required": ["b"]}}, "if"),
    "dangling_ref": (_closed({"a": {"$ref": "#/$defs/missing"}}), "/$defs/missing"),
    "min_items_above_max": ({"type": "array", "minItems": 3, "maxItems": 1}, "minItems"),
    "min_length_above_max": ({"type": "string", "minLength": 5, "maxLength": 2}, "minLength"),
    "broken_pattern": (_closed({"a": {"type": "string", "pattern": "(("}}), "regex"),
    "unknown_type": ({"type": "tuple"}, "tuple"),
    "overlapping_one_of": (_closed({"n": {"oneOf": [{"type": "integer"}, {"type": "number"}]}}), "oneOf"),
    "required_but_closed_out": ({"type": "object", "properties": {}, "required": ["a"],
                                 "additionalProperties": False}, "'a'"),
    "empty_enum": ({"enum": []}, "Unsatisfiable schema"),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_inexpressible_schema_is_a_400(client: OpenAI, model: str, case: str) -> None:
    schema, named = REFUSED[case]
    with pytest.raises(openai.BadRequestError) as caught:
        client.chat.completions.create(model=model, messages=_user(BRIEF), max_tokens=8,
                                       response_format=_schema_format(case, schema, True))
    error = caught.value.body
    assert isinstance(error, dict)
    assert caught.value.status_code == 400
    assert error["message"].startswith("constraint unsatisfiable: "), error
    assert named in error["message"], f"the message should name {named!r}: {error['message']}"
    assert error["param"] == "response_format.json_schema"
    assert error["type"] == "invalid_request_error"


def test_json_schema_without_a_schema_object_is_a_400(http: httpx.Client, model: str) -> None:
    body = {"model": model, "messages": _user(BRIEF), "max_tokens": 4,
            "response_format": {"type": "json_schema", "json_schema": {"name": "x", "schema": [1, 2]}}}
    reply = http.post("/v1/chat/completions", json=body)
    assert reply.status_code == 400, reply.text
    assert reply.json()["error"]["param"] == "response_format.json_schema"


def _wide_any_of(branches: int) -> dict[str, Any]:
    return {"anyOf": [_closed({f"k{i}": {"type": "string", "maxLength": 4}}) for i in range(branches)]}


def test_an_any_of_past_llguidances_default_row_limit_is_served(client: OpenAI, model: str) -> None:
    """2,500 branches: past llguidance's default of 2,000 alternatives per parse step, which answered 200 with
    the content '{"' and finish_reason "stop" (the parser gave up after the first token)."""
    schema = _wide_any_of(2500)
    reply = client.chat.completions.create(model=model, messages=_user(BRIEF), max_tokens=MAX_TOKENS,
                                           temperature=0, response_format=_schema_format("wide", schema, False))
    choice = reply.choices[0]
    assert choice.finish_reason == "stop", choice
    value = _validate(schema, choice.message.content)
    assert len(value) == 1


TOO_WIDE = {"type": "object", "properties": {f"k{i}": {"type": "string", "maxLength": 4} for i in range(2600)}}
"""2,600 optional properties: about 10,400 alternatives in the step after '{', past the server's cap of 10,000
(docs/structured-outputs.md). No check before decoding sees it; the parser stops on taking the first token."""
UNTYPED_WIDE = {"type": "object", "properties": {f"k{i}": {} for i in range(2400)}}
"""2,400 optional properties of any type: under the cap, but once a key is written llguidance gives up working
out which tokens may follow (over 50,000 items), leaving only the end token allowed: that reply used to end
with "stop" after '{"k0":'."""
GIVING_UP = {"on_taking_a_token": (TOO_WIDE, "Current row has"), "on_masking": (UNTYPED_WIDE, "Too many items")}


@pytest.mark.parametrize("case", sorted(GIVING_UP))
def test_a_grammar_that_gives_up_mid_reply_is_a_400_not_half_a_value(client: OpenAI, model: str, case: str) -> None:
    schema, reason = GIVING_UP[case]
    with pytest.raises(openai.BadRequestError) as caught:
        client.chat.completions.create(model=model, messages=_user(BRIEF), max_tokens=MAX_TOKENS, temperature=0,
                                       response_format=_schema_format("too_wide", schema, False))
    error = caught.value.body
    assert isinstance(error, dict)
    assert error["message"].startswith("constraint unsatisfiable: the output grammar gave up at reply token "), error
    assert reason in error["message"], error
    assert len(error["message"]) < 500, "llguidance's state dump and grammar belong in the log, not the reply"
    assert error["param"] == "response_format.json_schema"


def test_a_grammar_that_gives_up_mid_stream_ends_in_an_error_event(http: httpx.Client, model: str) -> None:
    body = {"model": model, "messages": _user(BRIEF), "max_tokens": MAX_TOKENS, "temperature": 0, "stream": True,
            "response_format": _schema_format("too_wide", TOO_WIDE, False)}
    with http.stream("POST", "/v1/chat/completions", json=body) as reply:
        assert reply.status_code == 200
        frames = [json.loads(line[6:]) for line in reply.iter_lines() if line.startswith("data: {")]
    errors = [f["error"] for f in frames if "error" in f]
    assert len(errors) == 1 and "the output grammar gave up" in errors[0]["message"], frames
    assert errors[0]["param"] == "response_format.json_schema"
    finishes = [c["finish_reason"] for f in frames for c in f.get("choices") or [] if c.get("finish_reason")]
    assert finishes == [], "a reply the grammar abandoned must not look finished"


# ---- streaming ------------------------------------------------------------------------------------------


def test_streamed_json_schema_deltas_validate(client: OpenAI, model: str) -> None:
    schema = CORPUS["nested_objects"]
    stream = client.chat.completions.create(model=model, messages=_user(BRIEF), max_tokens=MAX_TOKENS,
                                            temperature=0, stream=True,
                                            response_format=_schema_format("nested", schema, True))
    chunks = list(stream)
    assert chunks[0].choices[0].delta.role == "assistant"
    pieces = [c.choices[0].delta.content or "" for c in chunks if c.choices]
    assert sum(1 for p in pieces if p) > 1, "the reply arrived in one piece, not streamed"
    assert all(c.choices[0].delta.tool_calls is None for c in chunks if c.choices)
    assert chunks[-1].choices[0].finish_reason == "stop"
    _validate(schema, "".join(pieces))


# ---- the SDK's pydantic helpers ---------------------------------------------------------------------------


class City(BaseModel):
    name: str = Field(max_length=20)
    country: str = Field(max_length=20)


class Trip(BaseModel):
    city: City
    days: int = Field(ge=1, le=30)
    season: Literal["spring", "summer", "autumn", "winter"]


TRIP_PROMPT = "Plan a short trip to Paris, as JSON."


def test_sdk_parse_returns_the_pydantic_object(client: OpenAI, model: str) -> None:
    reply = client.chat.completions.parse(model=model, messages=_user(TRIP_PROMPT), response_format=Trip,
                                          max_tokens=MAX_TOKENS, temperature=0)
    choice = reply.choices[0]
    assert choice.finish_reason == "stop"
    assert choice.message.refusal is None
    trip = choice.message.parsed
    assert isinstance(trip, Trip)
    assert isinstance(trip.city, City)
    assert 1 <= trip.days <= 30
    assert trip.season in ("spring", "summer", "autumn", "winter")
    assert Trip.model_validate_json(choice.message.content or "") == trip


def test_sdk_stream_helper_parses_the_final_object(client: OpenAI, model: str) -> None:
    marker = uuid.uuid4().hex[:8]
    with client.chat.completions.stream(model=model, messages=_user(f"{TRIP_PROMPT} ({marker})"),
                                        response_format=Trip, max_tokens=MAX_TOKENS, temperature=0) as stream:
        kinds = [event.type for event in stream]
        final = stream.get_final_completion()
    assert "content.delta" in kinds and "content.done" in kinds
    choice = final.choices[0]
    assert choice.finish_reason == "stop"
    assert isinstance(choice.message.parsed, Trip)


# ---- plain schemas, as clients send them --------------------------------------------------------------


class Planet(BaseModel):
    name: str
    moons: int


class Order(BaseModel):
    item: str
    quantity: int
    gift: bool
    shipping: City


PLAIN_SCHEMAS = {"planet": (Planet, "Name a planet and how many moons it has, as JSON."),
                 "order": (Order, "Write a small shop order as JSON.")}


@pytest.mark.parametrize("name", sorted(PLAIN_SCHEMAS))
def test_a_plain_pydantic_schema_ends_in_valid_json(client: OpenAI, model: str, name: str) -> None:
    """What llm --schema and instructor send: model_json_schema() as is (no additionalProperties, no strict).
    Objects that do not say otherwise are closed, so the reply cannot invent keys until the token cap."""
    cls, prompt = PLAIN_SCHEMAS[name]
    schema = cls.model_json_schema()
    assert "additionalProperties" not in json.dumps(schema)
    reply = client.chat.completions.create(
        model=model, messages=_user(prompt), max_tokens=MAX_TOKENS, temperature=0,
        response_format={"type": "json_schema", "json_schema": {"name": name, "schema": schema}})
    choice = reply.choices[0]
    assert choice.finish_reason == "stop", choice.message.content
    value = _validate(schema, choice.message.content)
    assert set(value) <= set(schema["properties"])
    cls.model_validate(value)


def test_additional_properties_true_keeps_an_object_open(client: OpenAI, model: str) -> None:
    schema = {"type": "object", "properties": {"name": SHORT}, "required": ["name"],
              "additionalProperties": {"type": "integer", "minimum": 0, "maximum": 9}, "maxProperties": 3}
    reply = client.chat.completions.create(
        model=model, messages=_user("Name a cat and give it two scores, as JSON."), max_tokens=MAX_TOKENS,
        temperature=0, response_format={"type": "json_schema", "json_schema": {"name": "open", "schema": schema}})
    if reply.choices[0].finish_reason == "stop":
        _validate(schema, reply.choices[0].message.content)
