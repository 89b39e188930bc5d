"""POST /v1/completions: raw-text completion, and fill-in-the-middle when ``suffix`` is present."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from starlette.responses import JSONResponse, Response, StreamingResponse

from superfluid.engine.stream import GenerationStream
from superfluid.engine.types import FimPrompt, GenerationRequest, TextDelta, TextPrompt
from superfluid.errors import SuperfluidError, UnsupportedParameter
from superfluid.handlers import openai_params as params
from superfluid.handlers import openai_shapes as shapes
from superfluid.handlers.context import admit_fim, collect, now, qos_and_invariance, services
from superfluid.http.streams import Frame, StreamItem, sse

DEFAULT_MAX_TOKENS = 128


def _prompt(body: dict[str, Any]) -> TextPrompt | FimPrompt:
    suffix = body.get("suffix")
    if suffix is None:
        return TextPrompt(body["prompt"])
    for name in ("echo", "logprobs"):
        if body.get(name):
            raise UnsupportedParameter(f"'{name}' cannot be used with fill-in-the-middle (suffix)", param=name)
    return FimPrompt(prefix=body["prompt"], suffix=suffix, mode=body.get("fim_mode") or "psm")


async def create_completion(body: dict[str, Any]) -> Response:
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
    generation = model.generate(request)
    completion_id = svc.next_id("cmpl")
    created = now()
    prefix = body["prompt"] if echo else ""
    if not stream:
        result = await collect(generation)
        choice = result.choices[0]
        return JSONResponse(
            {
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
            },
            headers={"x-superfluid-warm": str(result.cached_tokens)},
        )
    try:
        warm = await generation.admitted()
    except BaseException:
        generation.cancel()
        raise
    return StreamingResponse(
        sse(_chunks(generation, completion_id, created, model.id, prefix, request.logprobs is not None,
                    svc.settings.keepalive_s),
            keepalive_s=None,
            error_frame=SuperfluidError.openai_body),
        media_type="text/event-stream",
        headers={"cache-control": "no-cache", "x-superfluid-warm": str(warm)},
    )


async def _chunks(generation: GenerationStream, completion_id: str, created: int, model_id: str,
                  prefix: str, logprobs: bool, keepalive_s: float) -> AsyncIterator[StreamItem]:
    def chunk(text: str, finish: str | None = None) -> Frame:
        return {"id": completion_id, "object": "text_completion", "created": created, "model": model_id,
                "choices": [{"index": 0, "text": text, "logprobs": None, "finish_reason": finish}]}

    if prefix:
        yield chunk(prefix)
    offset = len(prefix)
    async for event in generation.timed_events(keepalive_s):
        if event is None:
            yield None
            continue
        if isinstance(event, TextDelta):
            if event.content or (logprobs and event.logprobs):
                frame = chunk(event.content)
                if logprobs:
                    frame["choices"][0]["logprobs"] = shapes.completion_logprobs(event.logprobs, offset)
                offset += len(event.content)
                yield frame
            continue
        usage = event.usage
        final = chunk("", event.finish_reason)
        final["usage"] = params.usage_body(usage.prompt_tokens, usage.completion_tokens, usage.cached_tokens)
        final["superfluid"] = {"cached": usage.cached_tokens, "expired": event.expired, "served_by": model_id}
        yield final
