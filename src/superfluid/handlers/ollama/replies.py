"""Engine results in Ollama's wire shapes: chat and generate records, streamed as NDJSON or whole.

A chat record carries its text in ``message`` (``content``, ``thinking``, ``tool_calls``); a generate record in
``response`` and ``thinking``. Tool calls are gathered while the reply streams and sent whole, arguments as
objects, on one record with ``done: false`` right before the terminal record, which carries the counters.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any, Literal

from starlette.responses import JSONResponse, Response

from superfluid.engine import (
    Finished,
    FinishReason,
    GenerationRequest,
    GenerationResult,
    ServedModel,
    TextDelta,
    TokenLogprob,
    ToolCallDelta,
)
from superfluid.handlers.conversation import parsed_calls
from superfluid.handlers.generation import StreamRenderer, start_generation, stream_reply, whole_reply
from superfluid.http.dialect import Dialect
from superfluid.http.streams import Frame, ndjson_line

Kind = Literal["chat", "generate"]


def rfc3339(at: float | None = None) -> str:
    """A UTC timestamp the way Ollama writes ``created_at``: RFC 3339 with a Z."""
    moment = datetime.now(UTC) if at is None else datetime.fromtimestamp(at, UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def done_reason(finish: FinishReason) -> str:
    """Ollama knows stop and length; a reply that ended in tool calls stopped."""
    return "length" if finish == "length" else "stop"


def record(kind: Kind, model: str, content: str = "", reasoning: str = "", *, done: bool = False,
           tool_calls: list[dict[str, Any]] | None = None) -> Frame:
    """One record; ``thinking`` and ``tool_calls`` appear only when there are some."""
    text: dict[str, Any]
    if kind == "chat":
        message: dict[str, Any] = {"role": "assistant", "content": content}
        if reasoning:
            message["thinking"] = reasoning
        if tool_calls:
            message["tool_calls"] = tool_calls
        text = {"message": message}
    else:
        text = {"response": content}
        if reasoning:
            text["thinking"] = reasoning
    return {"model": model, "created_at": rfc3339(), **text, "done": done}


def totals(finish: FinishReason, *, prompt: int, cached: int, completion: int, started_ns: int) -> dict[str, Any]:
    return {
        "done_reason": done_reason(finish),
        "total_duration": time.monotonic_ns() - started_ns,
        "prompt_eval_count": prompt,
        "prompt_eval_cached_count": cached,
        "eval_count": completion,
    }


def logprobs_body(tokens: Iterable[TokenLogprob]) -> list[dict[str, Any]]:
    return [
        {"token": t.token, "logprob": t.logprob, "bytes": list(t.bytes),
         "top_logprobs": [{"token": a.token, "logprob": a.logprob, "bytes": list(a.bytes)} for a in t.top]}
        for t in tokens
    ]


def whole_calls(calls: Iterable[dict[str, Any]], finish: FinishReason) -> list[dict[str, Any]]:
    """Finished calls ({"id", "name", "arguments" as JSON text}) in Ollama's shape, arguments parsed (a call
    cut off by the token budget keeps what was written, closed: see ``parsed_calls``)."""
    return [{"id": call["id"], "function": {"index": i, "name": call["name"], "arguments": arguments}}
            for i, (call, arguments) in enumerate(parsed_calls(calls, finish))]


class CallCollector:
    """Gathers streamed tool-call pieces until the reply ends."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def add(self, pieces: Iterable[ToolCallDelta]) -> None:
        for piece in pieces:
            if piece.name is not None:
                self.calls.append({"id": piece.id, "name": piece.name, "arguments": ""})
            if self.calls:
                self.calls[-1]["arguments"] += piece.arguments


class Records(StreamRenderer):
    """The records of one streamed reply as NDJSON lines (a StreamRenderer, handlers/generation.py): one per
    piece of text, the tool calls whole, then the terminal record. ``delta`` gathers tool-call pieces (called in
    order, one thread at a time: the engine thread when the stream is direct, else the loop)."""

    dialect = Dialect.OLLAMA

    def __init__(self, kind: Kind, model: str, *, logprobs: bool, started_ns: int) -> None:
        self.kind, self.model, self.logprobs = kind, model, logprobs
        self.started_ns = started_ns
        self.calls = CallCollector()

    def delta(self, event: TextDelta) -> bytes | None:
        self.calls.add(event.tool_calls)
        if not (event.content or event.reasoning or (self.logprobs and event.logprobs)):
            return None
        frame = record(self.kind, self.model, event.content, event.reasoning)
        if self.logprobs:
            frame["logprobs"] = logprobs_body(event.logprobs)
        return ndjson_line(frame)

    def keepalive(self) -> bytes:
        """An empty record: Ollama's clients parse every line as JSON, so an empty line would not do."""
        return ndjson_line(record(self.kind, self.model))

    async def finish(self, finished: Finished) -> bytes:
        out = b""
        whole = whole_calls(self.calls.calls, finished.finish_reason)
        if whole:
            out = ndjson_line(record(self.kind, self.model, tool_calls=whole))
        usage = finished.usage
        return out + ndjson_line({
            **record(self.kind, self.model, done=True),
            **totals(finished.finish_reason, prompt=usage.prompt_tokens, cached=usage.cached_tokens,
                     completion=usage.completion_tokens, started_ns=self.started_ns)})



async def reply(model: ServedModel, request: GenerationRequest, kind: Kind, *, stream: bool,
                started_ns: int, named: str | None = None) -> Response:
    """Run a request on ``model`` and answer it: one JSON record, or an NDJSON stream once a lane has taken it
    (so errors before that keep their HTTP status). ``named``: the model the reply names, where the request's
    own model sent it to another (--fim-model)."""
    logprobs = request.logprobs is not None
    name = named or model.id
    if stream:
        return await stream_reply(model, request, Records(kind, name, logprobs=logprobs, started_ns=started_ns))

    def whole(result: GenerationResult) -> dict[str, Any]:
        choice = result.choices[0]
        body = {
            **record(kind, name, choice.content, choice.reasoning, done=True,
                     tool_calls=whole_calls(choice.tool_calls, choice.finish_reason)),
            **totals(choice.finish_reason, prompt=result.prompt_tokens, cached=result.cached_tokens,
                     completion=result.completion_tokens, started_ns=started_ns),
        }
        if logprobs:
            body["logprobs"] = logprobs_body(choice.logprobs)
        return body

    return await whole_reply(await start_generation(model, request, whole=True), whole)


def preloaded(kind: Kind, model: str, *, stream: bool) -> Response:
    """The answer to a request that only loads its model."""
    body = {**record(kind, model, done=True), "done_reason": "load"}
    if stream:
        return Response(ndjson_line(body), media_type=Dialect.OLLAMA.media_type)
    return JSONResponse(body)
