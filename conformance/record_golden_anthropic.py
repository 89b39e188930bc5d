"""Record golden transcripts of the Anthropic surface, one request/response pair per file.

Each goes to conformance/golden_anthropic/.
Run it by hand after a deliberate change to what the server says on /v1/messages, then review the diff:

    python -m conformance.record_golden_anthropic --base-url http://127.0.0.1:8453   # a server that is already up
    python -m conformance.record_golden_anthropic                                    # starts its own

The server must be started as conformance/conftest.py starts it (the two bundled models, --parallel 4).

Values that change from run to run are replaced by placeholders before writing, and test_golden_anthropic.py
normalizes the live answer the same way: message ids, tool-use ids, the prefix-cache split of the prompt
(``input_tokens`` and ``cache_read_input_tokens``, and the ``x-superfluid-warm`` header; their sum is checked
live instead), and ``ping`` keep-alive events (how many a stream holds depends on timing). A stream is kept as
its (event, data) pairs. Generated text is never normalized: every generating request is greedy.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import httpx

from conformance.golden_harness import CONFORMANCE_DIR, SPEC_DIR, Exchange, GoldenSuite
from conformance.server import DEFAULT_MODEL

KEPT_HEADERS = ("content-type", "cache-control", "x-superfluid-warm")
SSE = "text/event-stream"

MESSAGE_ID = "<message-id>"
TOOL_USE_ID = "<tool-use-id>"
CACHED = "<cached>"
UNCACHED = "<uncached>"

_VOLATILE_KEYS = {"cache_read_input_tokens": CACHED, "input_tokens": UNCACHED}

_GREEDY = {"temperature": 0}
_COLORS = [{"role": "user", "content": "Name three primary colors."}]
_WEATHER_TOOL = {"name": "get_weather", "description": "Get the current weather for a city",
                 "input_schema": {"type": "object", "properties": {"city": {"type": "string"}},
                                  "required": ["city"]}}
_IMAGE = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}


def _message(stream: bool = False, **extra: Any) -> dict[str, Any]:
    body = {"model": DEFAULT_MODEL, "max_tokens": 16, "messages": _COLORS, **_GREEDY, **extra}
    return {**body, "stream": True} if stream else body


_TOOLS = {"messages": [{"role": "user", "content": "Call get_weather with city Paris."}], "tools": [_WEATHER_TOOL],
          "tool_choice": {"type": "any", "disable_parallel_tool_use": True}, "max_tokens": 48}

EXCHANGES: tuple[Exchange, ...] = (
    Exchange("message", "Greedy message, cut by max_tokens.", "POST", "/v1/messages", _message()),
    Exchange("message_stream", "The same message as Anthropic's SSE event sequence.", "POST", "/v1/messages",
             _message(True)),
    Exchange("message_system", "A system prompt as text blocks.", "POST", "/v1/messages",
             _message(system=[{"type": "text", "text": "Answer in one word."}])),
    Exchange("message_stop_sequence", "A stop sequence ends the reply, is left out, and is named.", "POST",
             "/v1/messages", _message(max_tokens=24, stop_sequences=["Blue"])),
    Exchange("message_tools", "A forced call comes back as one tool_use block, its input an object.", "POST",
             "/v1/messages", _message(**_TOOLS)),
    Exchange("message_tools_stream", "Streamed, the call is a tool_use block filled by input_json_delta.",
             "POST", "/v1/messages", _message(True, **_TOOLS)),
    Exchange("count_tokens", "The rendered prompt's length, tools included.", "POST", "/v1/messages/count_tokens",
             {"model": DEFAULT_MODEL, "messages": _COLORS, "tools": [_WEATHER_TOOL]}),
    Exchange("error_unknown_model", "An unknown model is a 404 not_found_error.", "POST", "/v1/messages",
             _message(model="no-such-model")),
    Exchange("error_missing_max_tokens", "max_tokens is required: a 400 naming it.", "POST", "/v1/messages",
             {"model": DEFAULT_MODEL, "messages": _COLORS}),
    Exchange("error_image", "An image on a text-only model is a 400 naming the block.", "POST", "/v1/messages",
             _message(messages=[{"role": "user", "content": [{"type": "text", "text": "What is this?"}, _IMAGE]}])),
    Exchange("message_thinking_ignored", "Thinking on a template without a thinking switch is accepted and has no "
             "effect: the reply is the one without it.", "POST", "/v1/messages",
             _message(thinking={"type": "enabled", "budget_tokens": 1024})),
)


# ---- normalization -------------------------------------------------------------------------------------------
def normalize(value: Any, *, usage: bool = False) -> Any:
    """A copy of a decoded body with every run-dependent value replaced by its placeholder (the cache split
    only inside ``usage``: count_tokens' input_tokens is the whole prompt, and stable)."""
    if isinstance(value, list):
        return [normalize(item) for item in value]
    if not isinstance(value, dict):
        return value
    out: dict[str, Any] = {}
    for key, item in value.items():
        if key == "usage" and isinstance(item, dict):
            out[key] = normalize(item, usage=True)
        elif usage and key in _VOLATILE_KEYS and isinstance(item, int):
            out[key] = _VOLATILE_KEYS[key]
        elif key == "id" and isinstance(item, str) and item.startswith("msg_"):
            out[key] = MESSAGE_ID
        elif key == "id" and isinstance(item, str) and item.startswith("toolu_"):
            out[key] = TOOL_USE_ID
        else:
            out[key] = normalize(item)
    return out


def kept_headers(headers: httpx.Headers) -> dict[str, str]:
    out = {name: headers[name] for name in KEPT_HEADERS if name in headers}
    if "x-superfluid-warm" in out:
        out["x-superfluid-warm"] = CACHED
    return out


def sse_events(text: str) -> list[list[Any]]:
    """[event, data] of each event of an SSE body, in order."""
    events: list[list[Any]] = []
    for block in text.split("\n\n"):
        lines = block.split("\n")
        name = next((line[len("event: "):] for line in lines if line.startswith("event: ")), None)
        data = next((line[len("data: "):] for line in lines if line.startswith("data: ")), None)
        if name is not None and data is not None:
            events.append([name, json.loads(data)])
    return events


def streamed_text(events: list[list[Any]]) -> str:
    """The text a client assembles from the text deltas."""
    return "".join(data["delta"].get("text", "") for name, data in events if name == "content_block_delta")


def read_body(response: httpx.Response, exchange: Exchange) -> tuple[Any, dict[str, Any]]:
    """A stream's events (pings left out) and the text they carry, or a JSON body."""
    if response.headers.get("content-type", "").startswith(SSE):
        events = sse_events(response.text)
        kept = [event for event in events if event[0] != "ping"]
        return events, {"events": normalize(kept), "text": streamed_text(events)}
    body = response.json()
    return body, {"body": normalize(body)}


SUITE = GoldenSuite("conformance.record_golden_anthropic", CONFORMANCE_DIR / "golden_anthropic",
                    SPEC_DIR / "anthropic.yaml", EXCHANGES, kept_headers, read_body,
                    description=__doc__.split("\n")[0])

if __name__ == "__main__":
    sys.exit(SUITE.main())
