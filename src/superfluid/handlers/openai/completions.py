"""POST /v1/completions: raw-text completion, and fill-in-the-middle when ``suffix`` is present."""

from __future__ import annotations

from typing import Any

from starlette.responses import Response

from superfluid.engine import (
    FimPrompt,
    Finished,
    GenerationResult,
    GenerationStream,
    TextDelta,
    TextPrompt,
)
from superfluid.errors import UnsupportedParameter
from superfluid.handlers.context import admit_fim, generation_request, now, request_body, request_class, services
from superfluid.handlers.generation import StreamRenderer, start_generation, stream_reply, whole_reply
from superfluid.handlers.openai import params, shapes
from superfluid.http.dialect import Dialect
from superfluid.http.streams import Frame, sse_data

DEFAULT_MAX_TOKENS = 128


def _prompt(body: dict[str, Any]) -> TextPrompt | FimPrompt:
    suffix = body.get("suffix")
    if suffix is None:
        return TextPrompt(body["prompt"])
    for name in ("echo", "logprobs"):
        if body.get(name):
            raise UnsupportedParameter(f"'{name}' cannot be used with fill-in-the-middle (suffix)", param=name)
    return FimPrompt(prefix=body["prompt"], suffix=suffix, mode=body.get("fim_mode") or "psm")


async def create_completion() -> Response:
    body = request_body()
    svc = services()
    model = await svc.models.get(body["model"])
    prompt = _prompt(body)
    is_fim = isinstance(prompt, FimPrompt)
    of = request_class("completion" if is_fim else "interactive")
    # A model without FIM tokens hands FIM to its --fim-model: the reply names the model asked for, and its
    # superfluid.served_by the one that wrote it.
    serving = await admit_fim(model) if is_fim else model
    stream = bool(body.get("stream"))
    echo = bool(body.get("echo")) and isinstance(prompt, TextPrompt)
    request = await generation_request(serving.id, of, lambda: dict(
        prompt=prompt,
        sampling=params.sampling(body, n_vocab=serving.n_vocab, read_bias=False),
        max_tokens=body.get("max_tokens") or svc.settings.max_tokens or DEFAULT_MAX_TOKENS,
        logprobs=body.get("logprobs"),
    ))
    completion_id = svc.next_id("cmpl")
    created = now()
    prefix = body["prompt"] if echo else ""
    if stream:
        renderer = CompletionStream(completion_id, created, model.id, prefix, logprobs=request.logprobs is not None,
                                    served_by=serving.id)
        return await stream_reply(serving, request, renderer)

    def reply(result: GenerationResult) -> dict[str, Any]:
        choice = result.choices[0]
        return {
            "id": completion_id,
            "object": "text_completion",
            "created": created,
            "model": model.id,
            "choices": [{"index": 0, "text": prefix + choice.content,
                         "logprobs": (shapes.completion_logprobs(choice.logprobs, len(prefix))
                                      if request.logprobs is not None else None),
                         "finish_reason": choice.finish_reason}],
            "usage": params.usage_body(result.prompt_tokens, result.completion_tokens, result.cached_tokens),
            "superfluid": _extension(serving.id, result.cached_tokens, choice.expired),
        }

    return await whole_reply(await start_generation(serving, request, whole=True), reply)


def _extension(model_id: str, cached: int, expired: bool) -> dict[str, Any]:
    return {"cached": cached, "expired": expired, "served_by": model_id}


class CompletionStream(StreamRenderer):
    """One streamed completion as SSE messages (a StreamRenderer); an echoed prompt is the lead, and ``delta``
    keeps the text offset for log probabilities (called in order, on one thread at a time)."""

    dialect = Dialect.OPENAI

    def __init__(self, completion_id: str, created: int, model_id: str, prefix: str, *, logprobs: bool,
                 served_by: str | None = None) -> None:
        self.completion_id, self.created, self.model_id = completion_id, created, model_id
        self.served_by = served_by or model_id
        self.prefix = prefix
        self.offset = len(prefix)
        self.logprobs = logprobs

    def chunk(self, text: str, finish: str | None = None) -> Frame:
        return {"id": self.completion_id, "object": "text_completion", "created": self.created,
                "model": self.model_id, "choices": [{"index": 0, "text": text, "logprobs": None,
                                                     "finish_reason": finish}]}

    def lead(self, generation: GenerationStream, warm: int) -> bytes:
        return sse_data(self.chunk(self.prefix)) if self.prefix else b""

    def delta(self, event: TextDelta) -> bytes | None:
        if not (event.content or (self.logprobs and event.logprobs)):
            return None
        frame = self.chunk(event.content)
        if self.logprobs:
            frame["choices"][0]["logprobs"] = shapes.completion_logprobs(event.logprobs, self.offset)
        self.offset += len(event.content)
        return sse_data(frame)

    async def finish(self, finished: Finished) -> bytes:
        usage = finished.usage
        final = self.chunk("", finished.finish_reason)
        final["usage"] = params.usage_body(usage.prompt_tokens, usage.completion_tokens, usage.cached_tokens)
        final["superfluid"] = _extension(self.served_by, usage.cached_tokens, finished.expired)
        return sse_data(final)
