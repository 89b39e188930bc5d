"""POST /v1/responses: one response, streamed as typed events or not, stored unless ``store`` is false.

The request becomes the same GenerationRequest chat builds (responses_input); the previous response's items, when
``previous_response_id`` names one, come first, so the prompt repeats the earlier turn and the prefix cache
serves it warm. A stored response is committed before the client hears it ended: before the JSON body, or
before the stream's ``response.completed`` (``incomplete``, ``failed``) event.
"""

from __future__ import annotations

import dataclasses
import logging
from typing import Any

from starlette.responses import Response

from superfluid.engine import (
    ChatMessage,
    ChatPrompt,
    Finished,
    GenerationRequest,
    GenerationStream,
    PreparedPrompt,
    ServedModel,
    TextDelta,
)
from superfluid.errors import ContextLengthExceeded, InvalidRequest, NotFound, SuperfluidError, UnsupportedParameter
from superfluid.handlers.context import (
    generation_request,
    key_id,
    now,
    off_loop,
    request_body,
    request_class,
    services,
)
from superfluid.handlers.generation import StreamRenderer, start_generation, stream_reply, whole_reply_of
from superfluid.handlers.openai import params
from superfluid.handlers.openai.responses import input as rin
from superfluid.handlers.openai.responses import shapes
from superfluid.handlers.openai.responses.render import ResponseRender
from superfluid.http.dialect import Dialect
from superfluid.state import ResponseStore

log = logging.getLogger(__name__)

_NOT_SERVED = {
    "background": "background responses are not served; the request runs in the foreground",
    "conversation": "the Conversations API is not served; chain responses with previous_response_id",
    "prompt": "stored prompt templates are not served; send instructions and input",
}


@dataclasses.dataclass(frozen=True)
class _Saver:
    """Where a finished response goes: the store with its input items, owned by the request's API key, or nowhere
    (``store: false``)."""

    store: ResponseStore | None
    items: list[dict[str, Any]]
    owner: str | None

    async def save(self, response: dict[str, Any]) -> None:
        if self.store is not None:
            await self.store.put(response, self.items, owner=self.owner)


async def create_response() -> Response:
    body = request_body()
    svc = services()
    for name, why in _NOT_SERVED.items():
        if body.get(name):
            raise UnsupportedParameter(why, param=name)
    model = await svc.models.get(body["model"])
    of = request_class()
    items, history = await _conversation(body, svc.state.responses, key_id())
    request = await generation_request(model.id, of, lambda: dict(
        prompt=ChatPrompt(messages=rin.chat_messages(items, instructions=body.get("instructions"),
                                                     model_id=model.id, history=history),
                          template_kwargs=rin.template_kwargs(body, model.template)),
        sampling=params.sampling(body, n_vocab=model.n_vocab),
        max_tokens=body.get("max_output_tokens"),
        constraint=rin.text_constraint(body),
        tools=rin.tool_policy(body),
        logprobs=rin.logprobs_request(body),
    ))
    request, prepared = await _prepare(model, request, auto_truncate=body.get("truncation") == "auto")
    base = shapes.base_response(body, response_id=rin.new_id("resp"), created_at=now(), model=model.id)
    saver = _Saver(svc.state.responses if body.get("store", True) is not False else None, items, key_id())
    stream = bool(body.get("stream"))
    render = ResponseRender(base, stream=stream, logprobs=request.logprobs is not None,
                            namespaces=rin.tool_namespaces(body))
    if stream:
        return await stream_reply(model, request, ResponseStream(render, saver), prepared=prepared)
    generation = await start_generation(model, request, prepared=prepared, whole=True)

    async def produce() -> tuple[dict[str, Any], int]:
        final = await _collect(generation, render)
        await saver.save(final)  # committed before the body goes out
        return final, int(final["usage"]["input_tokens_details"]["cached_tokens"])

    return await whole_reply_of(generation, produce)


class ResponseStream(StreamRenderer):
    """A streamed response's events (a StreamRenderer over the response's ResponseRender): the stored response
    is committed before ``response.completed`` (or ``incomplete``) goes out. A generation that fails ends with
    an ``error`` event and ``response.failed``, stored too."""

    dialect = Dialect.RESPONSES

    def __init__(self, render: ResponseRender, saver: _Saver) -> None:
        self.render, self.saver = render, saver
        self._lead = render.lead()  # numbered before the engine can render the first delta

    def lead(self, generation: GenerationStream, warm: int) -> bytes:
        return self._lead

    def delta(self, event: TextDelta) -> bytes | None:
        return self.render.delta(event)

    async def finish(self, finished: Finished) -> bytes:
        closing, final = self.render.close(finished.usage, truncated=finished.finish_reason == "length")
        await self.saver.save(final)
        return closing + self.render.terminal(final)

    async def error(self, error: SuperfluidError) -> bytes:
        final = self.render.fail(error)
        try:
            await self.saver.save(final)
        except Exception:  # the store failing too: the client still hears how its stream ended
            log.exception("storing the failed response %s failed", final.get("id"))
        frame = self.dialect.error_frame(error, sequence_number=self.render.next_sequence())
        return frame + self.render.terminal(final)


async def _conversation(body: dict[str, Any], store: ResponseStore, owner: str | None
                        ) -> tuple[list[dict[str, Any]], int]:
    """The items the prompt is built from (the previous response's, then the input), and how many came first. A
    previous response is found only by the key that stored it."""
    history: list[dict[str, Any]] = []
    previous = body.get("previous_response_id")
    if previous:
        found = await store.conversation(previous, owner=owner)
        if found is None:
            raise NotFound(f"no stored response '{previous}': it is unknown, deleted, expired, or was created "
                           "with store: false", param="previous_response_id")
        history = found
    new = rin.input_items(body.get("input"))
    rin.check_unique_ids(history, new)
    if not history and not new and not body.get("instructions"):
        raise InvalidRequest("nothing to respond to: send input (or instructions)", param="input")
    return history + new, len(history)


async def _prepare(model: ServedModel, request: GenerationRequest, *, auto_truncate: bool
                   ) -> tuple[GenerationRequest, PreparedPrompt]:
    """Template and tokenize, on a preparation worker unless the request is light (as start_generation does)."""
    return await off_loop(lambda: _fit(model, request, auto_truncate), request=request)


def _fit(model: ServedModel, request: GenerationRequest, auto_truncate: bool
         ) -> tuple[GenerationRequest, PreparedPrompt]:
    """The prepared prompt. ``truncation: auto`` drops the oldest turns (never the instructions or the last
    user turn) until the prompt fits the context window; otherwise a prompt that does not fit is a 400."""
    while True:
        try:
            return request, model.prepare(request)
        except ContextLengthExceeded as exc:
            assert isinstance(request.prompt, ChatPrompt)
            shorter = _without_oldest_turn(request.prompt.messages) if auto_truncate else None
            if shorter is None:
                raise ContextLengthExceeded(exc.message, param="input") from None
            request = dataclasses.replace(request, prompt=dataclasses.replace(request.prompt, messages=shorter))


def _without_oldest_turn(messages: tuple[ChatMessage, ...]) -> tuple[ChatMessage, ...] | None:
    """The messages without the first turn after the system messages (up to the next user message); None when
    only one turn is left."""
    start = next((i for i, m in enumerate(messages) if m.role != "system"), len(messages))
    nxt = next((i for i in range(start + 1, len(messages)) if messages[i].role == "user"), None)
    return None if nxt is None else messages[:start] + messages[nxt:]


async def _collect(generation: GenerationStream, render: ResponseRender) -> dict[str, Any]:
    """The response of a reply read whole: the one collector every dialect uses, its deltas replayed through the
    renderer a stream would use, so a response reads the same streamed or not."""
    result = await generation.collect(deltas=True)
    choice = result.choices[0]
    for delta in choice.deltas:
        render.delta(delta)
    assert choice.usage is not None  # a finished choice carries its usage
    return render.close(choice.usage, truncated=choice.finish_reason == "length")[1]
