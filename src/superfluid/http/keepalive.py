"""``--nonstream-keepalive SEC``: a non-streaming reply that commits 200 early and pads its body with spaces.

A proxy that drops connections idle for N seconds would drop a long prefill's JSON reply. With the flag, the
response head (200, ``x-superfluid-keepalive: whitespace``) goes out when the request is admitted, then one space
every SEC seconds, then the JSON body; leading whitespace is valid JSON, so clients parse it as usual. An error
after the head is out can no longer change the status: it is written as the JSON error body of the route's
dialect, after the spaces. A client that leaves stops the work (``on_abandon``).

Any handler adopts it through ``superfluid.handlers.context.json_reply``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from superfluid.errors import EngineFailure, SuperfluidError
from superfluid.http.dialect import Dialect, error_body
from superfluid.http.observe import note_error
from superfluid.http.streams import dumps

log = logging.getLogger(__name__)

HEADER = "x-superfluid-keepalive"


async def _disconnected(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


class PaddedJSONResponse(Response):
    """200 now, a space every ``interval_s`` while ``body`` runs, then its JSON (see the module)."""

    media_type = "application/json"

    def __init__(self, body: Awaitable[Any], *, interval_s: float, headers: Mapping[str, str] | None = None,
                 on_abandon: Callable[[], None] | None = None) -> None:
        super().__init__(status_code=200, headers={**(headers or {}), HEADER: "whitespace"},
                         media_type=self.media_type)
        # The body's length is unknown when the head goes out: the server chunks it.
        self.raw_headers = [(k, v) for k, v in self.raw_headers if k != b"content-length"]
        self._body = body
        self._interval_s = interval_s
        self._on_abandon = on_abandon

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        work = asyncio.ensure_future(self._body)
        gone = asyncio.ensure_future(_disconnected(receive))
        try:
            await send({"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers})
            while not work.done():
                await asyncio.wait({work, gone}, timeout=self._interval_s, return_when=asyncio.FIRST_COMPLETED)
                if work.done():
                    break
                if gone.done():
                    self._abandon(work)
                    return
                await send({"type": "http.response.body", "body": b" ", "more_body": True})
            await send({"type": "http.response.body", "body": self._payload(scope, work).encode()})
        except OSError:  # the connection broke under a write
            self._abandon(work)
        finally:
            gone.cancel()
            if not work.done():
                work.cancel()
                with contextlib.suppress(BaseException):
                    await work

    def _abandon(self, work: asyncio.Future[Any]) -> None:
        work.cancel()
        if self._on_abandon is not None:
            self._on_abandon()

    @staticmethod
    def _payload(scope: Scope, work: asyncio.Future[Any]) -> str:
        try:
            return dumps(work.result())
        except SuperfluidError as exc:
            error = exc
        except Exception as exc:
            log.exception("a padded reply failed", exc_info=exc)
            error = EngineFailure("internal error; see the server log")
        note_error(scope, error)
        return dumps(error_body(Dialect.for_path(scope.get("path", "")), error))
