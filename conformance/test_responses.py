"""The Responses API through the official openai SDK and byte-level httpx, on the real server and model.

Every body and every streamed event is held to OpenAI's published schemas (conformance/responses_checks.py).
Generation is greedy (temperature 0) so replies repeat.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import jsonschema
import openai
import pytest
from openai import OpenAI
from pydantic import BaseModel, Field

from conformance.reference import validate_openai
from conformance.responses_checks import create, output_text, stream

GREEDY = {"temperature": 0}
WEATHER = {"type": "function", "name": "get_weather", "description": "The current weather in a city.",
           "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}
# Bounded values: a greedy reply of the small model can run on inside a string or a number (a full run once gave
# "population": 1111... to the token limit), and these tests are about the schema being enforced, not about the
# model stopping on its own.
CITY = {"type": "object",
        "properties": {"name": {"type": "string", "maxLength": 40},
                       "population": {"type": "integer", "minimum": 0, "maximum": 99999999}},
        "required": ["name", "population"]}


class City(BaseModel):
    name: str = Field(max_length=40)
    country: str = Field(max_length=40)


def test_create_reads_right_through_the_sdk(client: OpenAI, model: str) -> None:
    raw = client.responses.with_raw_response.create(model=model, input="Say hi.", instructions="Be friendly.",
                                                    max_output_tokens=200, metadata={"suite": "conformance"},
                                                    **GREEDY)
    body = raw.http_response.json()
    validate_openai("Response", body)
    reply = raw.parse()
    assert reply.id.startswith("resp_") and reply.object == "response" and reply.status == "completed"
    assert reply.output_text == output_text(body) and reply.output_text.strip()
    assert reply.instructions == "Be friendly." and reply.metadata == {"suite": "conformance"}
    usage = reply.usage
    assert usage is not None and usage.total_tokens == usage.input_tokens + usage.output_tokens
    assert usage.output_tokens_details.reasoning_tokens == 0
    assert [item.type for item in reply.output] == ["message"]


def test_a_reply_cut_by_max_output_tokens_is_incomplete(http: httpx.Client, model: str) -> None:
    reply = create(http, {"model": model, "input": "Tell me a long story.", "max_output_tokens": 3, **GREEDY})
    assert reply["status"] == "incomplete" and reply["incomplete_details"] == {"reason": "max_output_tokens"}
    assert reply["output"][0]["status"] == "incomplete" and reply["usage"]["output_tokens"] == 3
    _, events = stream(http, {"model": model, "input": "Tell me a long story.", "max_output_tokens": 3, **GREEDY})
    assert events[-1]["type"] == "response.incomplete"
    assert output_text(events[-1]["response"]) == output_text(reply)


def test_sdk_stream_and_its_final_response(client: OpenAI, http: httpx.Client, model: str) -> None:
    body: dict[str, Any] = {"model": model, "input": "Say hi.", "max_output_tokens": 200, **GREEDY}
    with client.responses.stream(**body) as events:
        kinds, text = [], ""
        for event in events:
            kinds.append(event.type)
            if event.type == "response.output_text.delta":
                text += event.delta
        final = events.get_final_response()
    assert kinds[0] == "response.created" and kinds[-1] == "response.completed"
    assert final.status == "completed" and final.output_text == text and text.strip()
    response, raw_events = stream(http, body)  # the same request read byte for byte
    assert int(response.headers["x-superfluid-warm"]) >= 0
    assert output_text(raw_events[-1]["response"]) == text
    assert [e["type"] for e in raw_events] == kinds


def test_three_turns_chained_by_previous_response_id_are_served_warm(client: OpenAI, model: str) -> None:
    first = client.responses.create(model=model, input="What is the capital of France?", max_output_tokens=24,
                                    **GREEDY)
    second = client.responses.create(model=model, input="And of Germany?", previous_response_id=first.id,
                                     max_output_tokens=24, **GREEDY)
    third = client.responses.create(model=model, input="And of Italy?", previous_response_id=second.id,
                                    max_output_tokens=24, **GREEDY)
    assert first.usage and second.usage and third.usage
    # Each turn's prompt holds the previous one's prompt and reply.
    assert second.usage.input_tokens > first.usage.input_tokens + first.usage.output_tokens
    assert third.usage.input_tokens > second.usage.input_tokens + second.usage.output_tokens
    assert third.previous_response_id == second.id
    cached = third.usage.input_tokens_details.cached_tokens
    assert cached > 0
    assert cached >= second.usage.input_tokens, "the whole second turn's prompt should come from the prefix cache"


def test_retrieve_delete_and_input_item_pages(client: OpenAI, http: httpx.Client, model: str) -> None:
    first = client.responses.create(model=model, max_output_tokens=8, **GREEDY, input=[
        {"role": "developer", "content": "Answer in one word."},
        {"role": "user", "content": [{"type": "input_text", "text": "Name a colour."}]}])
    second = client.responses.create(model=model, input="Another?", previous_response_id=first.id,
                                     max_output_tokens=8, **GREEDY)
    got = client.responses.retrieve(second.id)
    assert got.model_dump() == second.model_dump()
    validate_openai("Response", http.get(f"/v1/responses/{second.id}").json())

    everything = http.get(f"/v1/responses/{second.id}/input_items", params={"limit": 100, "order": "asc"}).json()
    validate_openai("ResponseItemList", everything)
    assert [(i["type"], i.get("role")) for i in everything["data"]] == [
        ("message", "developer"), ("message", "user"), ("message", "assistant"), ("message", "user")]
    assert everything["data"][2]["id"] == first.output[0].id  # the earlier reply, as it was returned
    paged = list(client.responses.input_items.list(second.id, limit=2, order="asc"))  # the SDK follows `after`
    assert [item.id for item in paged] == [i["id"] for i in everything["data"]]
    newest = client.responses.input_items.list(second.id, limit=3)
    assert newest.has_more and [i.id for i in newest.data] == [i["id"] for i in everything["data"][::-1][:3]]
    assert newest.first_id == newest.data[0].id and newest.last_id == newest.data[-1].id

    client.responses.delete(first.id)
    with pytest.raises(openai.NotFoundError):
        client.responses.retrieve(first.id)
    with pytest.raises(openai.NotFoundError) as gone:
        client.responses.create(model=model, input="More?", previous_response_id=first.id, max_output_tokens=4)
    assert gone.value.body["param"] == "previous_response_id"  # type: ignore[index]
    # The later turn holds its whole conversation: it still continues.
    later = client.responses.create(model=model, input="More?", previous_response_id=second.id,
                                    max_output_tokens=4, **GREEDY)
    assert later.usage and later.usage.input_tokens > second.usage.input_tokens  # type: ignore[union-attr]


def test_store_false_is_served_but_not_kept(client: OpenAI, model: str) -> None:
    reply = client.responses.create(model=model, input="Say hi.", store=False, max_output_tokens=4, **GREEDY)
    assert reply.store is False and reply.output_text
    with pytest.raises(openai.NotFoundError):
        client.responses.retrieve(reply.id)
    with pytest.raises(openai.NotFoundError):
        client.responses.create(model=model, input="Again.", previous_response_id=reply.id, max_output_tokens=4)


def test_a_function_call_round_trip(client: OpenAI, http: httpx.Client, model: str) -> None:
    call_reply = client.responses.create(model=model, input="What is the weather in Paris?", tools=[WEATHER],
                                         tool_choice="required", parallel_tool_calls=False, **GREEDY)
    assert call_reply.status == "completed"
    [call] = [item for item in call_reply.output if item.type == "function_call"]
    assert call.name == "get_weather" and call.call_id and "city" in json.loads(call.arguments)
    answer = client.responses.create(
        model=model, previous_response_id=call_reply.id, tools=[WEATHER], tool_choice="none", max_output_tokens=48,
        input=[{"type": "function_call_output", "call_id": call.call_id, "output": json.dumps({"celsius": 21})}],
        **GREEDY)
    assert answer.output_text.strip() and not [i for i in answer.output if i.type == "function_call"]
    items = http.get(f"/v1/responses/{answer.id}/input_items", params={"order": "asc"}).json()
    validate_openai("ResponseItemList", items)
    assert [i["type"] for i in items["data"]] == ["message", "function_call", "function_call_output"]
    assert items["data"][1]["call_id"] == items["data"][2]["call_id"] == call.call_id
    # Streamed, the call arrives as arguments deltas closed by function_call_arguments.done.
    _, events = stream(http, {"model": model, "input": "What is the weather in Paris?", "tools": [WEATHER],
                              "tool_choice": "required", "parallel_tool_calls": False, **GREEDY})
    kinds = [e["type"] for e in events]
    assert "response.function_call_arguments.delta" in kinds
    done = next(e for e in events if e["type"] == "response.function_call_arguments.done")
    assert done["name"] == "get_weather" and json.loads(done["arguments"]) == json.loads(call.arguments)


def test_text_format_json_schema_is_enforced(client: OpenAI, model: str) -> None:
    reply = client.responses.create(model=model, input="Describe Paris as JSON.", max_output_tokens=256, **GREEDY,
                                    text={"format": {"type": "json_schema", "name": "city", "schema": CITY,
                                                     "strict": True}})
    assert reply.status == "completed", reply.output_text
    jsonschema.validate(json.loads(reply.output_text), CITY)
    assert reply.text and reply.text.format and reply.text.format.type == "json_schema"
    parsed = client.responses.parse(model=model, input="Name a city.", text_format=City, max_output_tokens=256,
                                    **GREEDY)
    assert isinstance(parsed.output_parsed, City)


def test_text_format_json_object(http: httpx.Client, model: str) -> None:
    reply = create(http, {"model": model, "input": "One key, ok.", "max_output_tokens": 48,
                          "text": {"format": {"type": "json_object"}}, **GREEDY})
    assert reply["status"] == "completed" and isinstance(json.loads(output_text(reply)), dict)


def test_log_probabilities_on_request(http: httpx.Client, model: str) -> None:
    body = {"model": model, "input": "Say hi.", "max_output_tokens": 4, "include": ["message.output_text.logprobs"],
            "top_logprobs": 2, **GREEDY}
    reply = create(http, body)
    part = reply["output"][0]["content"][0]
    assert len(part["logprobs"]) == reply["usage"]["output_tokens"]
    assert all(len(t["top_logprobs"]) == 2 for t in part["logprobs"])
    _, events = stream(http, body)
    assert sum(len(e["logprobs"]) for e in events if e["type"] == "response.output_text.delta") == 4


@pytest.mark.parametrize(("fields", "status", "param"), [
    ({"model": "no-such-model"}, 404, "model"),
    ({"model": None}, 400, "model"),  # None: leave the field out
    ({"input": [{"type": "computer_call_output", "call_id": "c"}]}, 400, "input[0].type"),
    ({"previous_response_id": "resp_unknown"}, 404, "previous_response_id"),
    ({"metadata": {str(i): "v" for i in range(17)}}, 400, "metadata"),
])
def test_errors_name_the_field(http: httpx.Client, model: str, fields: dict[str, Any], status: int,
                               param: str) -> None:
    body = {key: value for key, value in {"model": model, "input": "hi", **fields}.items() if value is not None}
    response = http.post("/v1/responses", json=body)
    assert response.status_code == status, response.text
    error = response.json()
    validate_openai("ErrorResponse", error)
    assert error["error"]["param"] == param


def test_unknown_ids_are_404s_through_the_sdk(client: OpenAI) -> None:
    for call in (lambda: client.responses.retrieve("resp_missing"), lambda: client.responses.delete("resp_missing"),
                 lambda: client.responses.input_items.list("resp_missing")):
        with pytest.raises(openai.NotFoundError):
            call()
