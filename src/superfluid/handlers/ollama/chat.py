"""POST /api/chat: Ollama's chat, on the same engine request the OpenAI chat handler builds."""

from __future__ import annotations

import time

from starlette.responses import Response

from superfluid.engine import ChatPrompt
from superfluid.errors import UnsupportedParameter
from superfluid.handlers.context import built, generation_request, request_body, request_class, services
from superfluid.handlers.ollama import params, replies


async def chat() -> Response:
    body = request_body()
    started_ns = time.monotonic_ns()
    params.refuse_unknown(body, params.CHAT_FIELDS)
    options = params.read_options(body.get("options"))
    constraint = params.format_constraint(body.get("format"))
    tools = params.tool_policy(body.get("tools"))
    if constraint is not None and tools is not None:
        raise UnsupportedParameter("format cannot be combined with tools", param="format")
    logprobs = params.logprobs_request(body)
    svc = services()
    model_id = params.model_id(body["model"], svc.models.sources)
    messages = await built(lambda: params.convert_messages(body.get("messages") or [], model_id))
    model = await svc.models.get(model_id)
    options.check_window(model.id, model.n_ctx)
    stream = params.streams(body)
    if not messages:
        return replies.preloaded("chat", model.id, stream=stream)
    think = body.get("think")
    params.refuse_unsupported_think(think, model.id, model.profile.dialect())
    request = await generation_request(model.id, request_class(), lambda: dict(
        prompt=ChatPrompt(messages=messages, template_kwargs=params.think_kwargs(think, model.template)),
        sampling=options.sampling,
        max_tokens=options.max_tokens(model.n_ctx),
        stop=options.stop,
        constraint=constraint,
        tools=tools,
        logprobs=logprobs,
    ))
    return await replies.reply(model, request, "chat", stream=stream, started_ns=started_ns)
