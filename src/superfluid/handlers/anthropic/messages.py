"""POST /v1/messages and /v1/messages/count_tokens: Anthropic's Messages API on the engine request the chat
handler builds (templates, grammar, tools, reasoning, prefix cache, QoS and direct streams alike)."""

from __future__ import annotations

from typing import Any

from starlette.responses import JSONResponse, Response

from superfluid.engine import GenerationRequest
from superfluid.handlers.anthropic import params, replies
from superfluid.handlers.context import built, generation_request, off_loop, request_body, request_class, services
from superfluid.handlers.generation import start_generation, stream_reply, whole_reply_of


async def create_message() -> Response:
    body = request_body()
    svc = services()
    model = await svc.models.get(body["model"])
    request = await generation_request(model.id, request_class(), lambda: params.request_fields(body, model))
    message_id = replies.new_message_id()
    show_thinking = params.shows_thinking(body)
    if body.get("stream"):
        return await stream_reply(model, request,
                                  replies.MessageEvents(message_id, model.id, show_thinking=show_thinking))
    generation = await start_generation(model, request, whole=True)

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
    return await whole_reply_of(generation, produce)


async def count_tokens() -> Response:
    """The rendered prompt's length (system, messages and tools, as the chat template writes them), counted
    even past the context window: a client asks in order to find out whether it fits. A big prompt is counted
    on a worker thread."""
    body = request_body()
    model = await services().models.get(body["model"])
    request = await built(lambda: GenerationRequest(
        model=model.id, prompt=params.prompt(body, model),
        tools=params.tool_policy(body.get("tools"), body.get("tool_choice"))))
    prepared = await off_loop(lambda: model.prepare(request, check_window=False), request=request)
    return JSONResponse({"input_tokens": len(prepared.tokens)})
