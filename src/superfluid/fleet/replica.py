"""A fleet replica: one Ray Serve replica running the whole `superfluid serve` app on its own engine.

The replica is the same Connexion app (app.py) with the same services, so the head needs no copy of the
documents, the validation or the error shapes: a request the head forwards is answered exactly as a direct
server would answer it, down to the bytes of its SSE frames and keep-alives.
"""

from __future__ import annotations

import logging
import os
from collections.abc import AsyncIterator
from typing import Any

from superfluid.fleet.asgi import ForwardedRequest, Lifespan, ResponseHead, serve_request
from superfluid.settings import Settings

log = logging.getLogger(__name__)

REPLICA_HEADER = b"x-superfluid-replica"
"""Response header naming the replica that served a request (Ray's replica id)."""


def replica_id() -> str:
    """This replica's Ray Serve id, or the process id outside Ray."""
    try:
        from ray import serve

        return str(serve.get_replica_context().replica_id.unique_id)
    except Exception:
        return f"pid-{os.getpid()}"


class EngineReplica:
    """Ray Serve deployment class (fleet/deploy.py wraps it): start the app, then forward requests into it."""

    async def __init__(self, settings: Settings) -> None:  # type: ignore[misc]  # Ray awaits it
        from superfluid.app import create_app

        self._app = create_app(settings)
        self._lifespan = Lifespan(self._app)
        await self._lifespan.start()  # models load here; Ray reports the replica healthy only after it
        self._id = replica_id().encode()
        log.info("fleet replica %s ready (pid %d)", self._id.decode(), os.getpid())

    async def forward(self, request: ForwardedRequest, prefix: tuple[int, ...] = ()) -> AsyncIterator[Any]:
        """Answer one request: its ``ResponseHead`` (naming this replica), then body bytes. ``prefix`` is the
        request's block hashes, read by the head's router (fleet/router.py), not here."""
        async for part in serve_request(self._app, request, self._lifespan.state):
            if isinstance(part, ResponseHead):
                part = ResponseHead(part.status, (*part.headers, (REPLICA_HEADER, self._id)))
            yield part

    def pid(self) -> int:
        return os.getpid()

    async def __del__(self) -> None:
        await self._lifespan.stop()
