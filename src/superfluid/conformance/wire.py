"""Reading streamed bodies as a strict client would: SSE events and NDJSON records, framing checked."""

from __future__ import annotations

import json
from typing import Any

import httpx

SSE_FIELDS = frozenset({"data", "event", "id", "retry"})


def content_type(response: httpx.Response) -> str:
    return str(response.headers.get("content-type", "")).split(";")[0].strip().lower()


def sse_events(response: httpx.Response) -> list[str]:
    """The ``data`` of every event of a streamed SSE response, in order (comment lines skipped)."""
    assert content_type(response) == "text/event-stream", f"content-type {content_type(response)!r}"
    events: list[str] = []
    data: list[str] = []
    for line in response.iter_lines():
        if line == "":
            if data:
                events.append("\n".join(data))
                data = []
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        assert name in SSE_FIELDS, f"not an SSE line: {line[:120]!r}"
        if name == "data":
            data.append(value.removeprefix(" "))
    assert not data, "the stream ended inside an event (no blank line after its data)"
    return events


def sse_chunks(response: httpx.Response) -> list[dict[str, Any]]:
    """The JSON chunks of an OpenAI stream, which must end with exactly one ``data: [DONE]``."""
    events = sse_events(response)
    assert events, "an SSE stream with no event"
    assert events[-1] == "[DONE]", f"the last event is {events[-1][:120]!r}, not [DONE]"
    assert "[DONE]" not in events[:-1], "[DONE] before the end of the stream"
    chunks = [json.loads(event) for event in events[:-1]]
    assert all(isinstance(chunk, dict) for chunk in chunks), "an SSE chunk that is not a JSON object"
    return chunks


def ndjson_records(response: httpx.Response) -> list[dict[str, Any]]:
    """Every line of a streamed NDJSON response, each one JSON object."""
    assert content_type(response) == "application/x-ndjson", f"content-type {content_type(response)!r}"
    records = []
    for line in response.iter_lines():
        if not line.strip():
            continue
        record = json.loads(line)
        assert isinstance(record, dict), f"an NDJSON line that is not an object: {line[:120]!r}"
        records.append(record)
    assert records, "an NDJSON stream with no record"
    return records
