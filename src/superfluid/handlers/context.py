"""Access to the running server's services from inside a handler."""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar, cast

from connexion import context
from starlette.responses import JSONResponse, Response

from superfluid.engine.models.served_model import ServedModel, is_light
from superfluid.engine.scheduling.job import QOS_CLASSES
from superfluid.engine.scheduling.stream import GenerationStream
from superfluid.engine.types import GenerationRequest, GenerationResult, TextDelta
from superfluid.errors import InvalidRequest, RateLimited
from superfluid.http import observe
from superfluid.http.keepalive import PaddedJSONResponse
from superfluid.http.offload import offload_of
from superfluid.http.validation import BIG_BODY, PARSED_BODY
from superfluid.services import Services

T = TypeVar("T")


def services() -> Services:
    """The Services the lifespan put into this request's ASGI state."""
    return cast(Services, context.scope["state"]["services"])


def request_body() -> dict[str, Any]:
    """The JSON body as the validator parsed it (on a worker thread when big): handlers that carry prompts read
    it from here rather than take a ``body`` argument, which Connexion would parse a second time, on the loop."""
    return cast(dict[str, Any], context.scope[PARSED_BODY])


async def built(make: Callable[[], T]) -> T:
    """``make()``, a handler turning its body into engine types, on a preparation thread when the body was big
    (parsed off the loop). Converting 20,000 messages is ~90 ms of Python; on the loop that time is taken from
    every other client's first byte, and a 100 MiB body of tiny messages would hold them for seconds."""
    pool = offload_of(context.scope)
    if pool is None or not context.scope.get(BIG_BODY):
        return make()
    return await pool.run(make)


async def start_generation(model: ServedModel, request: GenerationRequest,
                           direct: Callable[[TextDelta], None] | None = None) -> GenerationStream:
    """Queue a request's generation. Templating, tokenizing and grammar work run on a worker thread unless the
    request is light (http/offload.py says why small ones stay on the loop)."""
    pool = offload_of(context.scope)
    if pool is None or is_light(request):
        return model.generate(request, direct=direct)
    prepared = await pool.run(model.prepare, request)
    return model.generate(request, prepared, direct=direct)


def now() -> int:
    return int(time.time())


def header(name: str) -> str | None:
    """A request header (lower-case name), or None."""
    wanted = name.encode()
    for key, value in context.scope.get("headers", ()):
        if key == wanted:
            return bytes(value).decode("latin-1")
    return None


def key_id() -> str | None:
    """The id of the API key that authenticated this request; None when the server asks for no key."""
    return observe.key_id(context.scope)


def client_identity() -> str:
    """Who a per-client limit counts against: the authenticated key; on a server that asks for no key, the key a
    client presents anyway (by its digest); else the client address."""
    key = key_id()
    if key is not None:
        return "key:" + key
    auth = header("authorization")
    presented = auth[7:].strip() if auth and auth.lower().startswith("bearer ") else header("x-api-key")
    if presented:
        return "key:" + hashlib.sha256(presented.strip().encode()).hexdigest()[:16]
    client = context.scope.get("client")
    return "ip:" + (client[0] if client else "unknown")


def admit_fim(model: ServedModel) -> None:
    """Fill-in-the-middle is completion-class work, on /v1/completions and /api/generate alike: each request
    spends from its client's token bucket, whatever its outcome, and needs a model with FIM tokens."""
    svc = services()
    wait = svc.fim_buckets.take(client_identity())
    if wait:
        raise RateLimited("fill-in-the-middle requests are over this client's rate "
                          f"({svc.settings.completion_rate:g}/s, burst {svc.settings.completion_burst})",
                          retry_after_s=wait, code="completion_rate_limited")
    model.require_fim()


def qos_and_invariance(default_qos: str = "interactive") -> tuple[str, bool]:
    """The x-superfluid-qos class and x-superfluid-batch-invariant flag of this request."""
    qos = (header("x-superfluid-qos") or default_qos).strip().lower()
    if qos not in QOS_CLASSES:
        raise InvalidRequest(f"x-superfluid-qos must be one of {', '.join(QOS_CLASSES)}; got '{qos}'",
                             param="x-superfluid-qos")
    raw = (header("x-superfluid-batch-invariant") or "").strip().lower()
    invariant = raw in ("1", "true", "yes", "on")
    if invariant and not services().settings.allow_batch_invariant:
        raise InvalidRequest("x-superfluid-batch-invariant needs the server started with "
                             "--http-allow-batch-invariant", param="x-superfluid-batch-invariant")
    return qos, invariant


async def _client_gone() -> None:
    """Return when the client closes the connection (the request body is already read by now)."""
    receive = context.receive
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return


async def unless_client_leaves(work: Coroutine[Any, Any, T], generation: GenerationStream | None = None) -> T:
    """``work``'s result; if the client closes the connection first, or anything fails, ``work`` and the
    generation are cancelled (a client that leaves raises ClientDisconnected). Handlers that read a generation
    their own way (the Responses API's render object), or run work that is no generation (a transcription), race
    it through here too."""
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


async def admitted(generation: GenerationStream) -> int:
    """Wait for a streamed request's first lane (returns its prompt tokens already cached); a client that leaves
    while the request waits in the queue takes it out of the queue at once."""
    return await unless_client_leaves(generation.admitted(), generation)


async def collect(generation: GenerationStream) -> GenerationResult:
    """Run a non-streaming generation to the end, cancelling it if the client goes away first."""
    return await unless_client_leaves(generation.collect(), generation)


async def json_reply(generation: GenerationStream, render: Callable[[GenerationResult], dict[str, Any]], *,
                     warm_header: bool = True) -> Response:
    """A non-streaming generation's reply: ``render(result)`` as JSON once it is done; or, under
    --nonstream-keepalive, 200 committed at admission and spaces until that JSON (http/keepalive.py). With
    ``warm_header`` the reply carries x-superfluid-warm (prompt tokens served from the prefix cache)."""

    async def produce() -> tuple[dict[str, Any], int]:
        result = await generation.collect()
        return render(result), result.cached_tokens

    return await json_reply_of(generation, produce, warm_header=warm_header)


async def json_reply_of(generation: GenerationStream,
                        produce: Callable[[], Coroutine[Any, Any, tuple[dict[str, Any], int]]], *,
                        warm_header: bool = True) -> Response:
    """``json_reply`` for a handler that reads the generation its own way: ``produce()`` runs it to the end and
    returns the body and the prompt tokens served from the prefix cache."""
    interval = services().settings.nonstream_keepalive_s
    if not interval:
        body, cached = await unless_client_leaves(produce(), generation)
        return JSONResponse(body, headers={"x-superfluid-warm": str(cached)} if warm_header else None)
    warm = await admitted(generation)

    async def padded() -> dict[str, Any]:
        return (await produce())[0]

    return PaddedJSONResponse(padded(), interval_s=interval, on_abandon=generation.cancel,
                              headers={"x-superfluid-warm": str(warm)} if warm_header else None)


class ClientDisconnected(Exception):
    """The client left before its reply was ready; nothing is sent."""
