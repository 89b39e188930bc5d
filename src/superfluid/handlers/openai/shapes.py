"""Engine results in OpenAI's wire shapes: log probabilities and tool calls."""

from __future__ import annotations

import codecs
from collections.abc import Iterable
from typing import Any

from superfluid.engine import TokenLogprob, ToolCallDelta


def chat_logprobs(tokens: Iterable[TokenLogprob]) -> dict[str, Any]:
    return {
        "content": [
            {"token": t.token, "logprob": t.logprob, "bytes": list(t.bytes),
             "top_logprobs": [{"token": a.token, "logprob": a.logprob, "bytes": list(a.bytes)} for a in t.top]}
            for t in tokens
        ],
        "refusal": None,
    }


def completion_logprobs(tokens: Iterable[TokenLogprob], start_offset: int) -> dict[str, Any]:
    """The legacy completions shape: parallel lists, text offsets counted from ``start_offset``.

    Each token is listed as the text it adds: a token carrying only the first bytes of a character (part of an
    emoji) adds "", and the token that completes the character adds all of it. So the tokens join to the text
    and every offset points into it."""
    out: dict[str, Any] = {"tokens": [], "token_logprobs": [], "top_logprobs": [], "text_offset": []}
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    offset = start_offset
    for t in tokens:
        piece = decoder.decode(bytes(t.bytes))
        out["tokens"].append(piece)
        out["token_logprobs"].append(t.logprob)
        out["top_logprobs"].append({a.token: a.logprob for a in t.top})
        out["text_offset"].append(offset)
        offset += len(piece)
    return out


def tool_calls_message(calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"id": c["id"], "type": "function", "function": {"name": c["name"], "arguments": c["arguments"]}}
            for c in calls]


def tool_call_deltas(calls: Iterable[ToolCallDelta]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for call in calls:
        if call.name is not None:
            out.append({"index": call.index, "id": call.id, "type": "function",
                        "function": {"name": call.name, "arguments": call.arguments}})
        elif out and out[-1]["index"] == call.index:
            out[-1]["function"]["arguments"] += call.arguments
        else:
            out.append({"index": call.index, "function": {"arguments": call.arguments}})
    return out
