"""Holding Anthropic bodies and events to the official SDK's own types (strictly) and to openapi/anthropic.yaml,
and reading SSE byte for byte.

The SDK's pydantic models accept (and keep) keys they do not declare; ``strict`` validates a value into a model
and then fails on any such key anywhere inside it, so a body passes only with every required field present and
no field the SDK does not know.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any, TypeVar

import jsonschema
import pydantic
import yaml
from anthropic.types import Message, MessageTokensCount, RawMessageStreamEvent
from anthropic.types.shared import ErrorResponse

from superfluid.conformance.published import nullable_as_null_type

T = TypeVar("T")

STREAM_EVENT_TYPES = ("message_start", "content_block_start", "content_block_delta", "content_block_stop",
                      "message_delta", "message_stop")


def _no_extra_keys(value: Any, path: str) -> None:
    if isinstance(value, pydantic.BaseModel):
        extra = value.model_extra or {}
        assert not extra, f"{path}: keys the anthropic SDK does not declare: {sorted(extra)}"
        for name in type(value).model_fields:
            _no_extra_keys(getattr(value, name), f"{path}.{name}")
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            _no_extra_keys(item, f"{path}[{i}]")
    elif isinstance(value, dict):
        for key, item in value.items():
            _no_extra_keys(item, f"{path}.{key}")


def strict(kind: Any, data: Any) -> Any:
    """``data`` validated as ``kind`` (an SDK model or union), with no key the SDK does not declare."""
    parsed = pydantic.TypeAdapter(kind).validate_python(data)
    _no_extra_keys(parsed, getattr(kind, "__name__", "value"))
    return parsed


def strict_message(data: Any) -> Message:
    return strict(Message, data)  # type: ignore[no-any-return]


def strict_count(data: Any) -> MessageTokensCount:
    return strict(MessageTokensCount, data)  # type: ignore[no-any-return]


def strict_error(data: Any) -> ErrorResponse:
    """An error body. The SDK's error union lacks ``request_too_large`` (413), which Anthropic's API reference
    documents; that one type is checked by hand."""
    if data.get("error", {}).get("type") == "request_too_large":
        assert set(data) == {"type", "error"} and data["type"] == "error"
        assert set(data["error"]) == {"type", "message"} and isinstance(data["error"]["message"], str)
        data = {**data, "error": {**data["error"], "type": "invalid_request_error"}}
    return strict(ErrorResponse, data)  # type: ignore[no-any-return]


def sse_events(raw: bytes) -> list[tuple[str, dict[str, Any]]]:
    """(event name, data) of each event of a raw Anthropic SSE body, its framing checked byte for byte: every
    event is exactly ``event: <type>\\n`` then ``data: <one JSON object>\\n`` then a blank line, and the name
    is the object's ``type``."""
    text = raw.decode("utf-8")
    assert text.endswith("\n\n"), f"the stream does not end with a blank line: {text[-80:]!r}"
    out = []
    for block in text[:-2].split("\n\n"):
        lines = block.split("\n")
        assert len(lines) == 2, f"an event is not one event line and one data line: {block!r}"
        assert lines[0].startswith("event: ") and lines[1].startswith("data: "), block
        name, data = lines[0][len("event: "):], json.loads(lines[1][len("data: "):])
        assert isinstance(data, dict) and data.get("type") == name, f"event {name!r} carries {data!r}"
        out.append((name, data))
    return out


def strict_stream(events: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    """Every event but pings as the SDK's RawMessageStreamEvent; pings must be exactly ``{"type": "ping"}``,
    and an ``error`` event is an error body."""
    parsed = []
    for name, data in events:
        if name == "ping":
            assert data == {"type": "ping"}
        elif name == "error":
            strict_error(data)
        else:
            assert name in STREAM_EVENT_TYPES, name
            parsed.append(strict(RawMessageStreamEvent, data))
    return parsed


def check_sequence(events: list[tuple[str, dict[str, Any]]]) -> None:
    """Anthropic's order: message_start; per block start, deltas, stop (indices 0, 1, ...; one block open at a
    time, deltas of the type the block takes); message_delta; message_stop. Pings may come anywhere."""
    names = [name for name, _ in events if name != "ping"]
    frames = [data for name, data in events if name != "ping"]
    assert names[0] == "message_start" and names[-2:] == ["message_delta", "message_stop"], names
    open_block: dict[str, Any] | None = None
    expected_index = 0
    takes = {"text": {"text_delta"}, "thinking": {"thinking_delta", "signature_delta"},
             "tool_use": {"input_json_delta"}}
    for frame in frames[1:-2]:
        if frame["type"] == "content_block_start":
            assert open_block is None, "a block opened before the last one closed"
            assert frame["index"] == expected_index
            open_block = frame
        elif frame["type"] == "content_block_delta":
            assert open_block is not None and frame["index"] == open_block["index"]
            assert frame["delta"]["type"] in takes[open_block["content_block"]["type"]], frame
        else:
            assert frame["type"] == "content_block_stop", frame
            assert open_block is not None and frame["index"] == open_block["index"]
            open_block = None
            expected_index += 1
    assert open_block is None, "the message ended with a block open"


# ---- our own document -----------------------------------------------------------------------------------------
DOCUMENT = Path(__file__).resolve().parents[1] / "openapi" / "anthropic.yaml"


@functools.cache
def _document() -> dict[str, Any]:
    with DOCUMENT.open() as fh:
        return dict(nullable_as_null_type(yaml.safe_load(fh)))


def validate_anthropic(schema_name: str, instance: Any) -> None:
    """Raise jsonschema.ValidationError when ``instance`` does not match openapi/anthropic.yaml's schema."""
    schema = {"$ref": f"#/components/schemas/{schema_name}", "components": _document()["components"]}
    jsonschema.Draft202012Validator(schema).validate(instance)
