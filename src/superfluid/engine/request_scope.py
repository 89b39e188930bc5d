"""What one HTTP request may use of the engine, and what it used.

The HTTP layer (``superfluid.http.observe``) opens a RequestScope for every request and makes it current in a
context variable for the request's task and the tasks it starts. The engine reads it at two points every request
passes through:

* ``ModelRegistry`` checks a model name against the key's allow-list (a model outside it is unknown), and takes a
  lease on the model it hands out, so that an unload waits for the reply to be written; the HTTP layer runs the
  releases when the response is over.
* ``GenerationStream`` adds the request's token counts and time to first token, for the access log.

It also counts a request to a generation route among the ``ARRIVALS`` from the moment the HTTP layer starts on it
until it reaches a model (its jobs queued, or another kind of model taken), has to wait for its model to load, or ends.
An idle engine that is about to prefill its first request waits briefly for those (``Scheduler``,
docs/scheduling.md "Bursts").

A context variable rather than an argument because every handler, today's and later ones, reaches models through
the registry and generations through GenerationStream: the allow-list, the lease and the figures then hold on every
route without each handler passing them along. Work that is not an HTTP request (none yet) has no scope: no
allow-list, and it takes a lease with ``ModelRegistry.lease``.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, field

log = logging.getLogger(__name__)


@dataclass
class RequestScope:
    allowed_models: frozenset[str] | None = None
    """Model ids the request's key may use; None: every known model."""
    model: str | None = None
    """The model the request used (the last one it asked the registry for)."""
    prompt_tokens: int = 0
    cached_tokens: int = 0
    completion_tokens: int = 0
    ttft_s: float | None = None
    _releases: list[Callable[[], None]] = field(default_factory=list)
    _arrival: int = 0
    """0: never counted among the ARRIVALS; 1: counted; 2: landed after being counted; 3: landed uncounted."""

    def allows(self, model_id: str) -> bool:
        return self.allowed_models is None or model_id in self.allowed_models

    def hold(self, release: Callable[[], None]) -> None:
        """Run ``release`` when the request is over (its response written, or abandoned)."""
        self._releases.append(release)

    def arriving(self) -> None:
        """The request may queue a generation: count it among the ARRIVALS (once)."""
        if self._arrival == 0:
            self._arrival = 1
            ARRIVALS.begin()

    def landed(self, then: Callable[[], None] | None = None) -> None:
        """The request reached a model, or ended, or must wait for a model to load: it no longer counts among the
        ARRIVALS. ``then`` (queueing its jobs) runs as one step with that, so an engine never sees the request gone
        and its jobs not yet queued."""
        if self._arrival == 1:
            self._arrival = 2
            ARRIVALS.end(then)
            return
        if self._arrival == 0:
            self._arrival = 3
        if then is not None:
            then()

    def rearrive(self) -> None:
        """A counted request whose model has loaded is on its way again (it and the others that waited for the
        load reach the new engine together)."""
        if self._arrival == 2:
            self._arrival = 1
            ARRIVALS.begin()

    def release(self) -> None:
        """Run every release once; the HTTP layer calls this when the response is over."""
        releases, self._releases = self._releases, []
        for release in releases:
            try:
                release()
            except Exception:
                log.exception("releasing a model lease failed")


class Arrivals:
    """How many HTTP requests to generation routes are still on their way to a model (waiting for the event loop,
    read, validated, templated, tokenized). Written by the event loop, read and waited on by engine threads."""

    def __init__(self) -> None:
        self._count = 0
        self._changed = threading.Condition()

    @property
    def count(self) -> int:
        return self._count

    def begin(self) -> None:
        with self._changed:
            self._count += 1

    def end(self, then: Callable[[], None] | None = None) -> None:
        with self._changed:
            try:
                if then is not None:
                    then()
            finally:
                self._count -= 1
                if self._count <= 0:
                    self._changed.notify_all()

    def wait_quiet(self, timeout_s: float) -> bool:
        """Wait until no request is on its way, at most ``timeout_s``; True if none is."""
        with self._changed:
            return self._changed.wait_for(lambda: self._count <= 0, timeout_s)


ARRIVALS = Arrivals()
"""The process's requests on their way to a model (one HTTP server per process)."""

CURRENT: ContextVar[RequestScope | None] = ContextVar("superfluid_request_scope", default=None)
"""The scope of the request being served in this context (None outside a request)."""


def current() -> RequestScope | None:
    return CURRENT.get()
