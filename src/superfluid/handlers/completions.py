"""POST /v1/completions: raw-text completion, and fill-in-the-middle when ``suffix`` is present."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from connexion import context
from starlette.responses import Response

from superfluid.engine.scheduling.stream import GenerationStream
from superfluid.engine.types import FimPrompt, GenerationRequest, GenerationResult, TextDelta, TextPrompt
from superfluid.errors import SuperfluidError, UnsupportedParameter
from superfluid.handlers import openai_params as params
from superfluid.handlers import openai_shapes as shapes
from superfluid.handlers.context import (
    admit_fim,
    admitted,
    json_reply,
    now,
    qos_and_invariance,
    request_body,
    services,
    start_generation,
)
from superfluid.http.direct import DeltaStream
from superfluid.http.streams import Frame, StreamItem, sse, sse_data

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
    qos, invariant = qos_and_invariance("completion" if is_fim else "interactive")
    if is_fim:
        admit_fim(model)
    stream = bool(body.get("stream"))
    echo = bool(body.get("echo")) and isinstance(prompt, TextPrompt)
    request = GenerationRequest(
        model=model.id,
        prompt=prompt,
        sampling=params.sampling(body, n_vocab=model.llama.meta.n_vocab, read_bias=False),
        max_tokens=body.get("max_tokens") or svc.settings.max_tokens or DEFAULT_MAX_TOKENS,
        logprobs=body.get("logprobs"),
        qos=qos,
        batch_invariant=invariant,
    )
    completion_id = svc.next_id("cmpl")
    created = now()
    prefix = body["prompt"] if echo else ""
    chunks = _Chunks(completion_id, created, model.id, len(prefix), logprobs=request.logprobs is not None)
    out = DeltaStream(context.scope, allowed=stream)

    def render(delta: TextDelta) -> bytes | None:
        frame = chunks.delta(delta)
        return sse_data(frame) if frame is not None else None

    generation = await start_generation(model, request, out.hook(render))
    if not stream:
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
                "superfluid": {"cached": result.cached_tokens, "expired": choice.expired, "served_by": model.id},
            }

        return await json_reply(generation, reply)
    warm = await admitted(generation)
    frames = sse(_frames(generation, chunks, svc.settings.keepalive_s), keepalive_s=None,
                 error_frame=SuperfluidError.openai_body)
    lead = sse_data(chunks.chunk(prefix)) if prefix else b""
    return out.response(lead, frames, cancel=generation.cancel, media_type="text/event-stream",
                        headers={"cache-control": "no-cache", "x-superfluid-warm": str(warm)})


class _Chunks:
    """The chunk objects of one streamed completion; ``delta`` keeps the text offset for log probabilities."""

    def __init__(self, completion_id: str, created: int, model_id: str, offset: int, *, logprobs: bool) -> None:
        self.completion_id, self.created, self.model_id = completion_id, created, model_id
        self.offset = offset
        self.logprobs = logprobs

    def chunk(self, text: str, finish: str | None = None) -> Frame:
        return {"id": self.completion_id, "object": "text_completion", "created": self.created,
                "model": self.model_id, "choices": [{"index": 0, "text": text, "logprobs": None,
                                                     "finish_reason": finish}]}

    def delta(self, event: TextDelta) -> Frame | None:
        """The chunk of one TextDelta, if it carries anything (called in order, on one thread at a time)."""
        if not (event.content or (self.logprobs and event.logprobs)):
            return None
        frame = self.chunk(event.content)
        if self.logprobs:
            frame["choices"][0]["logprobs"] = shapes.completion_logprobs(event.logprobs, self.offset)
        self.offset += len(event.content)
        return frame


async def _frames(generation: GenerationStream, chunks: _Chunks, keepalive_s: float) -> AsyncIterator[StreamItem]:
    async for event in generation.timed_events(keepalive_s):
        if event is None:
            yield None
        elif isinstance(event, TextDelta):
            frame = chunks.delta(event)
            if frame is not None:
                yield frame
        else:
            usage = event.usage
            final = chunks.chunk("", event.finish_reason)
            final["usage"] = params.usage_body(usage.prompt_tokens, usage.completion_tokens, usage.cached_tokens)
            final["superfluid"] = {"cached": usage.cached_tokens, "expired": event.expired,
                                   "served_by": chunks.model_id}
            yield final
