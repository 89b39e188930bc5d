"""POST /api/generate: a templated prompt, a raw completion, or fill-in-the-middle with ``suffix``."""

from __future__ import annotations

import time
from dataclasses import replace

from starlette.responses import Response

from superfluid.engine import ChatPrompt, FimPrompt
from superfluid.handlers.context import admit_fim, generation_request, request_body, request_class, services
from superfluid.handlers.ollama import params, replies


async def generate() -> Response:
    body = request_body()
    started_ns = time.monotonic_ns()
    params.refuse_unknown(body, params.GENERATE_FIELDS)
    params.refuse_template(body.get("template"))
    params.refuse_with_plain_prompt(body)
    options = params.read_options(body.get("options"))
    constraint = params.format_constraint(body.get("format"))
    svc = services()
    model_id = params.model_id(body["model"], svc.models.sources)
    preload = params.is_generate_preload(body)
    prompt = None if preload else params.generate_prompt(body, model_id)
    model = await svc.models.get(model_id)
    options.check_window(model.id, model.n_ctx)
    stream = params.streams(body)
    if prompt is None:
        return replies.preloaded("generate", model.id, stream=stream)
    if isinstance(prompt, ChatPrompt):
        params.refuse_unsupported_think(body.get("think"), model.id, model.profile.dialect())
        prompt = replace(prompt, template_kwargs=params.think_kwargs(body.get("think"), model.template))
    is_fim = isinstance(prompt, FimPrompt)
    of = request_class("completion" if is_fim else "interactive")
    serving = await admit_fim(model) if is_fim else model
    request = await generation_request(serving.id, of, lambda: dict(
        prompt=prompt,
        sampling=options.sampling,
        max_tokens=options.max_tokens(model.n_ctx),
        stop=options.stop,
        constraint=constraint,
    ))
    return await replies.reply(serving, request, "generate", stream=stream, started_ns=started_ns, named=model.id)
