"""What a handler reads of its request and of the running server: the services, the parsed body, headers,
the API key, the request's class settings, and the one builder of the engine request every dialect uses.
Running a generation and answering with it is handlers/generation.py."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar, cast

from connexion import context

from superfluid.batches.runner import BatchRunner
from superfluid.engine import LIGHT_PROMPT_CHARS, QOS_CLASSES, GenerationRequest, ModelRegistry, ServedModel, is_light
from superfluid.errors import InvalidRequest
from superfluid.http import observe
from superfluid.http.offload import offload_of
from superfluid.http.rate_limit import TokenBuckets, charge_completion
from superfluid.http.validation import BIG_BODY, PARSED_BODY
from superfluid.settings import Settings
from superfluid.state import State

T = TypeVar("T")


class Services(Protocol):
    """What a handler uses of the running server's long-lived objects (superfluid/services.py builds them, and the
    lifespan puts them in the ASGI state): handlers reach them through their request, never by importing the
    module that makes them."""

    @property
    def settings(self) -> Settings: ...
    @property
    def models(self) -> ModelRegistry: ...
    @property
    def fim_buckets(self) -> TokenBuckets: ...
    @property
    def state(self) -> State: ...
    @property
    def batches(self) -> BatchRunner | None: ...
    @property
    def started_at(self) -> float: ...

    def next_id(self, prefix: str) -> str: ...


def services() -> Services:
    """The services the lifespan put into this request's ASGI state."""
    return cast(Services, context.scope["state"]["services"])


def request_body() -> dict[str, Any]:
    """The JSON body as the validator parsed it (on a worker thread when big): handlers that carry prompts read
    it from here rather than take a ``body`` argument, which Connexion would parse a second time, on the loop."""
    return cast(dict[str, Any], context.scope[PARSED_BODY])


async def off_loop(work: Callable[[], T], *, request: GenerationRequest | None = None,
                   chars: int | None = None) -> T:
    """``work()`` on the preparation pool (http/offload.py) when it is heavy, else here on the event loop: the one
    rule every handler's work goes by. Heavy is a body that was big (parsed off the loop), an engine request
    whose preparation is not light (``is_light``: a long prompt, many messages, a grammar, tools), or a text of
    more than LIGHT_PROMPT_CHARS characters; for small work the hop to a thread costs more than the work."""
    pool = offload_of(context.scope)
    heavy = (bool(context.scope.get(BIG_BODY)) or (request is not None and not is_light(request))
             or (chars is not None and chars > LIGHT_PROMPT_CHARS))
    if pool is None or not heavy:
        return work()
    return await pool.run(work)


async def built(make: Callable[[], T]) -> T:
    """``make()``, a handler turning its body into engine types (off the loop when the body was big: converting
    20,000 messages is ~90 ms of Python, taken from every other client's first byte on the loop)."""
    return await off_loop(make)


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


async def admit_fim(model: ServedModel) -> ServedModel:
    """The model that answers a fill-in-the-middle request sent to ``model``: itself, or its --fim-model where it
    has no FIM tokens (FimUnsupported when neither has them). FIM is completion-class work: each request spends
    from its client's token bucket (on /v1/completions and /api/generate alike), whatever its outcome."""
    svc = services()
    charge_completion(context.scope, svc.fim_buckets)
    target = model.profile.fim_model
    if target is None:
        model.require_fim()
        return model
    serving = await svc.models.get(target)
    serving.require_fim(asked=model.id)
    return serving


def in_batch_line() -> bool:
    """Whether this request is a line of a /v1/batches batch (dispatched in process; no client can say so)."""
    return observe.BATCH_OWNER in context.scope


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


@dataclass(frozen=True)
class RequestClass:
    """What this request asks of the scheduler beyond its body, read from the request scope once: the
    x-superfluid-qos class, the x-superfluid-batch-invariant flag and whether it is a line of a batch."""

    qos: str
    batch_invariant: bool
    batch_line: bool


def request_class(default_qos: str = "interactive") -> RequestClass:
    """This request's class settings (``default_qos`` when it sends no x-superfluid-qos); an invalid header is a
    400 here, where the handler reads them."""
    qos, invariant = qos_and_invariance(default_qos)
    return RequestClass(qos, invariant, in_batch_line())


async def generation_request(model_id: str, of: RequestClass,
                             fields: Callable[[], dict[str, Any]]) -> GenerationRequest:
    """The engine request, built the same way for every dialect: ``fields()`` is the dialect's reading of its body
    into engine types (prompt, sampling, limits, tools...), run where ``built`` puts it (a worker thread for a big
    body); the class settings come from ``of``."""
    return await built(lambda: GenerationRequest(model=model_id, qos=of.qos, batch_invariant=of.batch_invariant,
                                                 batch_line=of.batch_line, **fields()))
