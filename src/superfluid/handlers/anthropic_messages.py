"""POST /v1/messages and /v1/messages/count_tokens: Anthropic's Messages API on the engine request the chat
handler builds (templates, grammar, tools, reasoning, prefix cache, QoS and direct streams alike)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from connexion import context
from starlette.responses import JSONResponse, Response

from superfluid.engine.models.served_model import is_light
from superfluid.engine.scheduling.stream import GenerationStream
from superfluid.engine.types import GenerationRequest, TextDelta
from superfluid.handlers import anthropic_params as params
from superfluid.handlers import anthropic_replies as replies
from superfluid.handlers.context import (
    admitted,
    built,
    json_reply_of,
    qos_and_invariance,
    request_body,
    services,
    start_generation,
)
from superfluid.http.direct import DeltaStream
from superfluid.http.offload import offload_of
from superfluid.http.streams import StreamItem, sse

WARM = "x-superfluid-warm"


async def create_message() -> Response:
    body = request_body()
    svc = services()
    model = await svc.models.get(body["model"])
    qos, invariant = qos_and_invariance()
    request = await built(lambda: params.generation_request(body, model, qos=qos, invariant=invariant))
    stream = bool(body.get("stream"))
    message_id = replies.new_message_id()
    show_thinking = params.shows_thinking(body)
    events = replies.MessageEvents(message_id, model.id, show_thinking=show_thinking)
    out = DeltaStream(context.scope, allowed=stream)
    generation = await start_generation(model, request, out.hook(events.delta))
    if not stream:

        async def produce() -> tuple[dict[str, Any], int]:
            result = await generation.collect()
            choice = result.choices[0]
            reply = replies.message(
                message_id, model.id, replies.content_blocks(choice, show_thinking=show_thinking),
                stop=replies.stop_reason(choice.finish_reason, choice.stop_sequence),
                stop_sequence=choice.stop_sequence,
                usage_body=replies.usage(result.prompt_tokens, result.completion_tokens, result.cached_tokens))
            return reply, result.cached_tokens

        # Under --nonstream-keepalive, 200 goes out at admission and spaces pad until the message, as for chat.
        return await json_reply_of(generation, produce)
    warm = await admitted(generation)
    frames = sse(_events(generation, events, svc.settings.keepalive_s), keepalive_s=None,
                 error_frame=replies.error_event, event_name=lambda frame: str(frame["type"]), done_marker=False,
                 keepalive=replies.PING)
    return out.response(events.start(generation.prompt_tokens, warm), frames, cancel=generation.cancel,
                        media_type="text/event-stream", headers={"cache-control": "no-cache", WARM: str(warm)})


async def _events(generation: GenerationStream, events: replies.MessageEvents,
                  keepalive_s: float) -> AsyncIterator[StreamItem]:
    """What the loop writes: deltas when the stream is not direct, keep-alives, and the closing events."""
    async for event in generation.timed_events(keepalive_s):
        if event is None:
            yield None
        elif isinstance(event, TextDelta):
            frames = events.delta(event)
            if frames is not None:
                yield frames
        else:
            yield events.finish(event)


async def count_tokens() -> Response:
    """The rendered prompt's length (system, messages and tools, as the chat template writes them), counted
    even past the context window: a client asks in order to find out whether it fits. A big prompt is counted
    on a worker thread."""
    body = request_body()
    model = await services().models.get(body["model"])
    request = await built(lambda: GenerationRequest(
        model=model.id, prompt=params.prompt(body, model),
        tools=params.tool_policy(body.get("tools"), body.get("tool_choice"))))
    pool = offload_of(context.scope)
    if pool is not None and not is_light(request):
        prepared = await pool.run(lambda: model.prepare(request, check_window=False))
    else:
        prepared = model.prepare(request, check_window=False)
    return JSONResponse({"input_tokens": len(prepared.tokens)})
