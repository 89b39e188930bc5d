"""What one HTTP request may use of the engine, and what it used.

The HTTP layer (``superfluid.http.observe``) opens a RequestScope for every request and makes it current in a
context variable for the request's task and the tasks it starts. The engine reads it at two points every request
passes through:

* ``ModelRegistry`` checks a model name against the key's allow-list (a model outside it is unknown), and takes a
  lease on the model it hands out, so that an unload waits for the reply to be written; the HTTP layer runs the
  releases when the response is over.
* ``GenerationStream`` adds the request's token counts and time to first token, for the access log.

A context variable rather than an argument because every handler, today's and later ones, reaches models through
the registry and generations through GenerationStream: the allow-list, the lease and the figures then hold on every
route without each handler passing them along. Work that is not an HTTP request (none yet) has no scope: no
allow-list, and it takes a lease with ``ModelRegistry.lease``.
"""

from __future__ import annotations

import logging
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

    def allows(self, model_id: str) -> bool:
        return self.allowed_models is None or model_id in self.allowed_models

    def hold(self, release: Callable[[], None]) -> None:
        """Run ``release`` when the request is over (its response written, or abandoned)."""
        self._releases.append(release)

    def release(self) -> None:
        """Run every release once; the HTTP layer calls this when the response is over."""
        releases, self._releases = self._releases, []
        for release in releases:
            try:
                release()
            except Exception:
                log.exception("releasing a model lease failed")


CURRENT: ContextVar[RequestScope | None] = ContextVar("superfluid_request_scope", default=None)
"""The scope of the request being served in this context (None outside a request)."""


def current() -> RequestScope | None:
    return CURRENT.get()
