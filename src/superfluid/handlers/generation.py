"""Running one generation and answering with it, for every dialect: the one stream driver and the whole-reply
path.

A dialect says how its reply looks by one small ``StreamRenderer`` next to its handler, which spells only what
differs per reply (``lead``, ``delta``, ``finish``); what is the dialect's (media type, keep-alive, end marker,
the frame of a failure after the first byte) comes from its ``Dialect`` (http/dialect.py), which the audio
stream and the fleet head use too. ``stream_reply`` owns everything else, the same for all of them: the direct
hook (http/direct.py), admission, keep-alives, the client leaving, an error after the first byte, and the
response. So the dialects cannot drift in how a stream starts, stays alive, fails or ends.

A renderer's ``delta`` may run on the engine thread (a direct stream) or on the loop; ``lead``, ``finish``
and ``error`` always run on the loop, after every delta the engine handed over was rendered (a choice's
deltas come before its Finished event). The stream is: ``lead``, the deltas, then ``finish`` (or ``error``
when the generation failed), then ``end``.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Coroutine
from typing import Any, TypeVar

from connexion import context
from starlette.responses import JSONResponse, Response

from superfluid.engine import (
    Finished,
    GenerationRequest,
    GenerationResult,
    GenerationStream,
    PreparedPrompt,
    ServedModel,
    TextDelta,
)
from superfluid.errors import SuperfluidError, as_superfluid_error
from superfluid.handlers.context import off_loop, services
from superfluid.http.dialect import SSE, Dialect
from superfluid.http.direct import DeltaStream
from superfluid.http.keepalive import PaddedJSONResponse

T = TypeVar("T")

WARM = "x-superfluid-warm"
"""The header that says how many prompt tokens the prefix cache served."""
WARM_DISK = "x-superfluid-warm-disk"
"""Of the warm tokens, those loaded from the prefix cache's tiers, RAM or disk (sent only when there are some)."""
WARM_FROM = "x-superfluid-warm-from"
"""Beside x-superfluid-warm-disk: ``ram`` when the RAM tier gave those tokens back, ``disk`` when a file did."""


class StreamRenderer:
    """How one dialect spells one streamed reply (see the module). A renderer names its ``dialect`` and writes
    ``delta`` and ``finish``; the rest has the dialect's defaults."""

    dialect: Dialect
    direct = True
    """Whether ``delta`` may run on the engine thread: it reads only state fixed before the start."""

    def lead(self, generation: GenerationStream, warm: int) -> bytes:
        """What precedes every delta, once a lane took the request (``warm``: prompt tokens already cached)."""
        return b""

    def delta(self, event: TextDelta) -> bytes | None:
        """The frames of one delta; None when it shows nothing."""
        raise NotImplementedError

    def keepalive(self) -> bytes:
        """What a quiet stream sends every --keepalive seconds: the dialect's."""
        return self.dialect.keepalive

    async def finish(self, finished: Finished) -> bytes:
        """The frames that close the reply."""
        raise NotImplementedError

    async def error(self, error: SuperfluidError) -> bytes:
        """The frames that end a reply whose generation failed after the first byte: the dialect's error frame
        (the dialect's end marker follows)."""
        return self.dialect.error_frame(error)


async def start_generation(model: ServedModel, request: GenerationRequest,
                           direct: Callable[[TextDelta], None] | None = None, *,
                           prepared: PreparedPrompt | None = None, whole: bool = False) -> GenerationStream:
    """Queue a request's generation. Templating, tokenizing and grammar work run on a worker thread unless the
    request is light (http/offload.py says why small ones stay on the loop) or was prepared already. ``whole``:
    the reply is read with ``collect`` (the engine gathers its text without waking the loop per token)."""
    if prepared is None:
        prepared = await off_loop(lambda: model.prepare(request), request=request)
    disk = await model.from_disk(request, prepared)
    return model.generate(request, prepared, direct=direct, disk=disk, whole=whole)


async def stream_reply(model: ServedModel, request: GenerationRequest, renderer: StreamRenderer, *,
                       prepared: PreparedPrompt | None = None) -> Response:
    """Run ``request`` and answer with its stream, once a lane has taken it: an error before that (a full queue,
    a prompt that does not fit) keeps its HTTP status; a client that leaves while it waits takes it out of the
    queue."""
    out = DeltaStream(context.scope, allowed=renderer.direct)
    generation = await start_generation(model, request, out.hook(renderer.delta), prepared=prepared)
    warm = await unless_client_leaves(generation.admitted(), generation)
    lead = renderer.lead(generation, warm)
    headers = _warm_headers(warm, generation)
    media_type = renderer.dialect.media_type
    if media_type == SSE:
        headers["cache-control"] = "no-cache"
    body = stream_frames(generation, renderer, services().settings.keepalive_s)
    return out.response(lead, body, cancel=generation.cancel, media_type=media_type, headers=headers)


async def stream_frames(generation: GenerationStream, renderer: StreamRenderer,
                        keepalive_s: float) -> AsyncIterator[bytes]:
    """What the loop writes: deltas when the stream is not direct, keep-alives, and the end."""
    try:
        async for event in generation.timed_events(keepalive_s):
            if event is None:
                yield renderer.keepalive()
            elif isinstance(event, TextDelta):
                frames = renderer.delta(event)
                if frames:
                    yield frames
            else:
                yield await renderer.finish(event)
    except Exception as exc:  # after the first byte, an error is the stream's last frame
        yield await renderer.error(as_superfluid_error(exc))
    if renderer.dialect.end:
        yield renderer.dialect.end


async def whole_reply(generation: GenerationStream, render: Callable[[GenerationResult], dict[str, Any]]
                      ) -> Response:
    """A non-streaming generation's reply: ``render(result)`` as JSON once it is done."""

    async def produce() -> tuple[dict[str, Any], int]:
        result = await generation.collect()
        return render(result), result.cached_tokens

    return await whole_reply_of(generation, produce)


async def whole_reply_of(generation: GenerationStream,
                         produce: Callable[[], Coroutine[Any, Any, tuple[dict[str, Any], int]]]) -> Response:
    """``whole_reply`` for a handler that reads the generation its own way: ``produce()`` runs it to the end and
    returns the body and the prompt tokens served from the prefix cache. Under --nonstream-keepalive, 200 is
    committed at admission and spaces pad the wait (http/keepalive.py). The reply carries x-superfluid-warm."""
    interval = services().settings.nonstream_keepalive_s
    if not interval:
        body, cached = await unless_client_leaves(produce(), generation)
        return JSONResponse(body, headers=_warm_headers(cached, generation))
    warm = await unless_client_leaves(generation.admitted(), generation)

    async def padded() -> dict[str, Any]:
        return (await produce())[0]

    return PaddedJSONResponse(padded(), interval_s=interval, on_abandon=generation.cancel,
                              headers=_warm_headers(warm, generation))


def _warm_headers(warm: int, generation: GenerationStream) -> dict[str, str]:
    headers = {WARM: str(warm)}
    if generation.restored_tokens:
        headers[WARM_DISK] = str(generation.restored_tokens)
        headers[WARM_FROM] = generation.restored_from
    return headers


async def _client_gone() -> None:
    """Return when the client closes the connection (the request body is already read by now)."""
    receive = context.receive
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return


async def unless_client_leaves(work: Coroutine[Any, Any, T], generation: GenerationStream | None = None) -> T:
    """``work``'s result; if the client closes the connection first, or anything fails, ``work`` and the
    generation are cancelled (a client that leaves raises ClientDisconnected). Work that is no generation (a
    transcription) races the client through here too."""
    task = asyncio.ensure_future(work)
    gone = asyncio.ensure_future(_client_gone())
    try:
        await asyncio.wait({task, gone}, return_when=asyncio.FIRST_COMPLETED)
        if not task.done():
            raise ClientDisconnected()
        return task.result()
    except BaseException:
        task.cancel()
        if generation is not None:
            generation.cancel()
        raise
    finally:
        gone.cancel()


class ClientDisconnected(Exception):
    """The client left before its reply was ready; nothing is sent."""
