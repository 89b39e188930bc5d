"""Engine results in OpenAI's wire shapes: log probabilities and tool calls."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from superfluid.engine.tool_calls import ToolCallDelta
from superfluid.engine.types import TokenLogprob


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

    A token's offset is where it starts in the text, counted in whole characters: a token that carries only part
    of a character (one byte of an emoji) starts where that character does."""
    out: dict[str, Any] = {"tokens": [], "token_logprobs": [], "top_logprobs": [], "text_offset": []}
    seen = b""
    for t in tokens:
        out["tokens"].append(t.token)
        out["token_logprobs"].append(t.logprob)
        out["top_logprobs"].append({a.token: a.logprob for a in t.top})
        out["text_offset"].append(start_offset + len(seen.decode("utf-8", errors="ignore")))
        seen += bytes(t.bytes)
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
