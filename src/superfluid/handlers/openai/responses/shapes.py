"""The Responses API's objects in OpenAI's shapes: the response (with the request fields it echoes), its usage,
the deletion receipt and the input-item list."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from superfluid.engine import Usage
from superfluid.errors import SuperfluidError


def echoed_tools(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The request's tools as a response lists them: a function tool with ``strict`` true (the engine's tool
    grammar holds every call's arguments to the function's schema whatever the request said); any other tool (a
    namespace, a hosted tool left out of the prompt) as it was sent."""
    return [{"type": "function", "name": t.get("name"), "description": t.get("description"),
             "parameters": t.get("parameters"), "strict": True} if t.get("type") == "function" else dict(t)
            for t in body.get("tools") or ()]


def base_response(body: dict[str, Any], *, response_id: str, created_at: int, model: str) -> dict[str, Any]:
    """The response object before any output: status in_progress, and every request field it echoes. ``usage``
    arrives when the response ends (OpenAI's schema has no null for it)."""
    reasoning = body.get("reasoning") or {}
    parallel = body.get("parallel_tool_calls")
    store = body.get("store")
    out: dict[str, Any] = {
        "id": response_id,
        "object": "response",
        "created_at": created_at,
        "status": "in_progress",
        "background": False,
        "completed_at": None,
        "error": None,
        "incomplete_details": None,
        "instructions": body.get("instructions"),
        "max_output_tokens": body.get("max_output_tokens"),
        "max_tool_calls": None,
        "model": model,
        "output": [],
        "parallel_tool_calls": True if parallel is None else bool(parallel),
        "previous_response_id": body.get("previous_response_id"),
        "reasoning": {"effort": reasoning.get("effort"), "summary": None},
        "service_tier": "default",
        "store": True if store is None else bool(store),
        "temperature": body.get("temperature"),
        "text": {"format": (body.get("text") or {}).get("format") or {"type": "text"}},
        "tool_choice": body.get("tool_choice") or "auto",
        "tools": echoed_tools(body),
        "top_logprobs": body.get("top_logprobs"),
        "top_p": body.get("top_p"),
        "truncation": body.get("truncation") or "disabled",
        "metadata": body.get("metadata") or {},
    }
    if isinstance(body.get("user"), str):
        out["user"] = body["user"]
    return out


def usage(u: Usage) -> dict[str, Any]:
    """``cache_write_tokens``: the prompt tokens this request prefilled, which stay in the lane's KV for the next
    request that shares the prefix."""
    return {
        "input_tokens": u.prompt_tokens,
        "input_tokens_details": {"cached_tokens": u.cached_tokens,
                                 "cache_write_tokens": max(0, u.prompt_tokens - u.cached_tokens)},
        "output_tokens": u.completion_tokens,
        "output_tokens_details": {"reasoning_tokens": u.reasoning_tokens},
        "total_tokens": u.total_tokens,
    }


def finished(base: dict[str, Any], output: list[dict[str, Any]], used: Usage, *, truncated: bool) -> dict[str, Any]:
    """The response once generation ended: completed, or incomplete when max_output_tokens (or the context
    window) cut it."""
    out = {**base, "output": output, "usage": usage(used)}
    if truncated:
        out["status"] = "incomplete"
        out["incomplete_details"] = {"reason": "max_output_tokens"}
    else:
        out["status"] = "completed"
        out["completed_at"] = int(time.time())
    return out


def failed(base: dict[str, Any], output: list[dict[str, Any]], error: SuperfluidError) -> dict[str, Any]:
    """The response when generation failed after it began: code ``server_error`` for the engine's failures,
    ``invalid_prompt`` for the request's own (an output grammar that gave up mid-reply), with the message."""
    code = "server_error" if error.status >= 500 else "invalid_prompt"
    return {**base, "status": "failed", "output": output, "error": {"code": code, "message": error.message}}


def deleted(response_id: str) -> dict[str, Any]:
    return {"id": response_id, "object": "response", "deleted": True}


def item_list(items: Sequence[dict[str, Any]], has_more: bool) -> dict[str, Any]:
    """A page of input items. ``first_id``/``last_id`` are null on an empty page (after the last item)."""
    return {"object": "list", "data": list(items), "has_more": has_more,
            "first_id": items[0]["id"] if items else None, "last_id": items[-1]["id"] if items else None}
