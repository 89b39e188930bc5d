"""What the Responses conformance tests share: reading a typed event stream byte for byte, holding every body and
event to OpenAI's published schemas, and the promises a stream makes about its own order.
"""

from __future__ import annotations

import json
from typing import Any

import httpx

from conformance.reference import validate_openai

# Each event type we send, and the published schema that describes it exactly.
EVENT_SCHEMAS = {
    "response.created": "ResponseCreatedEvent",
    "response.in_progress": "ResponseInProgressEvent",
    "response.output_item.added": "ResponseOutputItemAddedEvent",
    "response.output_item.done": "ResponseOutputItemDoneEvent",
    "response.content_part.added": "ResponseContentPartAddedEvent",
    "response.content_part.done": "ResponseContentPartDoneEvent",
    "response.output_text.delta": "ResponseTextDeltaEvent",
    "response.output_text.done": "ResponseTextDoneEvent",
    "response.reasoning_summary_part.added": "ResponseReasoningSummaryPartAddedEvent",
    "response.reasoning_summary_part.done": "ResponseReasoningSummaryPartDoneEvent",
    "response.reasoning_summary_text.delta": "ResponseReasoningSummaryTextDeltaEvent",
    "response.reasoning_summary_text.done": "ResponseReasoningSummaryTextDoneEvent",
    "response.function_call_arguments.delta": "ResponseFunctionCallArgumentsDeltaEvent",
    "response.function_call_arguments.done": "ResponseFunctionCallArgumentsDoneEvent",
    "response.completed": "ResponseCompletedEvent",
    "response.incomplete": "ResponseIncompleteEvent",
    "response.failed": "ResponseFailedEvent",
    "error": "ResponseErrorEvent",
}
TERMINAL = ("response.completed", "response.incomplete", "response.failed")


def sse_events(raw: str) -> list[dict[str, Any]]:
    """The events of a raw body, checking the framing: each is an ``event:`` line naming the data's type and one
    ``data:`` line of JSON; comment lines are keep-alives; there is no ``[DONE]``."""
    assert raw.endswith("\n\n"), f"the stream does not end with a blank line: {raw[-80:]!r}"
    events = []
    for block in raw[:-2].split("\n\n"):
        lines = block.split("\n")
        if all(line.startswith(":") for line in lines):
            continue
        assert len(lines) == 2 and lines[0].startswith("event: ") and lines[1].startswith("data: "), block
        event = json.loads(lines[1][len("data: "):])
        assert lines[0] == f"event: {event['type']}", block
        events.append(event)
    return events


def stream(http: httpx.Client, body: dict[str, Any]) -> tuple[httpx.Response, list[dict[str, Any]]]:
    """POST a streaming request and return the response and its checked events."""
    with http.stream("POST", "/v1/responses", json={**body, "stream": True}) as response:
        raw = b"".join(response.iter_raw()).decode()
    assert response.status_code == 200, raw[:500]
    assert response.headers["content-type"].startswith("text/event-stream")
    events = sse_events(raw)
    check_stream(events)
    return response, events


def check_stream(events: list[dict[str, Any]]) -> None:
    """Every event validates against its published schema, numbers run 0, 1, 2, ..., the lifecycle frames the
    items, and every item's deltas add up to what its done events say."""
    for event in events:
        assert event["type"] in EVENT_SCHEMAS, event["type"]
        validate_openai(EVENT_SCHEMAS[event["type"]], event)
    assert [e["sequence_number"] for e in events] == list(range(len(events)))
    assert [e["type"] for e in events[:2]] == ["response.created", "response.in_progress"]
    assert events[-1]["type"] in TERMINAL and not any(e["type"] in TERMINAL for e in events[:-1])
    final = events[-1]["response"]
    assert {e["response"]["id"] for e in events if "response" in e} == {final["id"]}
    added = {e["output_index"]: e["item"] for e in events if e["type"] == "response.output_item.added"}
    done = {e["output_index"]: e["item"] for e in events if e["type"] == "response.output_item.done"}
    assert sorted(added) == list(range(len(added)))
    if final["status"] != "failed":
        assert sorted(done) == sorted(added) and [done[i] for i in sorted(done)] == final["output"]
    for index, item in done.items():
        assert item["id"] == added[index]["id"] and item["type"] == added[index]["type"]
        deltas = "".join(e["delta"] for e in events if e.get("output_index") == index and e["type"].endswith(".delta"))
        if item["type"] == "message":
            assert deltas == item["content"][0]["text"]
        elif item["type"] == "reasoning":
            assert deltas == item["summary"][0]["text"]
        elif item["type"] == "function_call":
            assert deltas == item["arguments"]


def create(http: httpx.Client, body: dict[str, Any]) -> dict[str, Any]:
    """POST a non-streaming request; the body validates against the published Response schema."""
    response = http.post("/v1/responses", json=body)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("application/json")
    reply = dict(response.json())
    validate_openai("Response", reply)
    assert response.headers["x-superfluid-warm"] == str(reply["usage"]["input_tokens_details"]["cached_tokens"])
    return reply


def output_text(response: dict[str, Any]) -> str:
    """What the SDK's ``output_text`` reads: every output_text part of every message, joined."""
    return "".join(part["text"] for item in response["output"] if item["type"] == "message"
                   for part in item["content"] if part["type"] == "output_text")
