"""The fleet head: Ray Serve's ingress, forwarding each request to an engine replica chosen by prefix.

The head validates nothing itself: replicas run the whole `superfluid serve` app, so documents, validation and
error shapes are theirs, byte for byte. The head reads the body once to hash the conversation's prefix
(fleet/prefix.py), hands the request to Ray with those hashes (the router in fleet/router.py picks the replica),
and relays the response parts as they come. What only the head can know, it answers itself:

- ``/metrics``: routing decisions and prefix hits (fleet/metrics.py); replicas keep their own engine metrics.
- Ollama routes: 501 ``route_not_served`` (docs/fleet.md says why).
- A replica that fails before its response began: the request is tried once more on another replica, then 503.
- A replica that fails mid-stream: the stream ends with its dialect's error frame (and ``[DONE]`` where the
  dialect has one), never a hang: Ray reports a dead replica's actor at once.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator
from typing import Any

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from superfluid.errors import FleetUnavailable, ReplicaFailed, RouteNotServed, SuperfluidError
from superfluid.fleet.asgi import ForwardedRequest, ResponseHead
from superfluid.fleet.metrics import routing_metrics
from superfluid.fleet.prefix import PREFIX_KWARG, block_hashes, conversation_text
from superfluid.http.dialect import Dialect, error_body
from superfluid.http.metrics import CONTENT_TYPE
from superfluid.http.streams import dumps

log = logging.getLogger(__name__)

METRICS_PATHS = ("/metrics", "/v1/metrics")
ATTEMPTS = 2
"""Replicas tried for a request whose replica fails before answering."""


def error_response(path: str, error: SuperfluidError) -> Response:
    body = dumps(error_body(Dialect.for_path(path), error)).encode()
    return Response(body, status_code=error.status, media_type="application/json", headers=error.headers)


def stream_error_frame(path: str, error: SuperfluidError, events_sent: int) -> bytes:
    """What ends a stream whose replica failed mid-way, in the dialect of ``path``: the error frame and end
    marker a replica writes itself (http/dialect.py), a Responses error numbered after the events sent."""
    dialect = Dialect.for_path(path)
    return dialect.error_frame(error, sequence_number=events_sent) + dialect.end


def _events(part: bytes) -> int:
    return sum(1 for line in part.split(b"\n") if line.startswith(b"data:"))


def prompt_blocks(path: str, body: bytes) -> tuple[int, ...]:
    """The request's block hashes; none for a body that is not a JSON object (the replica will say why)."""
    try:
        parsed: Any = json.loads(body) if body else None
    except ValueError:
        return ()
    return block_hashes(conversation_text(path, parsed))


class FleetHead:
    """Ray Serve ingress deployment class (fleet/deploy.py wraps it)."""

    def __init__(self, engines: Any) -> None:
        import prometheus_client

        prometheus_client.disable_created_metrics()  # type: ignore[no-untyped-call]  # as `superfluid serve` does
        self._engines = engines.options(stream=True)
        self._metrics = routing_metrics()

    async def __call__(self, request: Request) -> Response:
        path = request.url.path
        if path in METRICS_PATHS and request.method == "GET":
            return Response(self._metrics.render(), media_type=CONTENT_TYPE)
        if Dialect.for_path(path) is Dialect.OLLAMA:
            return error_response(path, RouteNotServed(
                "the fleet head serves the OpenAI and Anthropic APIs; the Ollama API is served by `superfluid "
                "serve`"))
        body = await request.body()
        client = (request.client.host, request.client.port) if request.client else None
        forwarded = ForwardedRequest(request.method, path, request.url.query.encode(),
                                     tuple(request.headers.raw), body, client)
        blocks = prompt_blocks(path, body) if request.method == "POST" else ()
        return await self._relay(forwarded, blocks)

    async def _relay(self, forwarded: ForwardedRequest, blocks: tuple[int, ...]) -> Response:
        for attempt in range(1, ATTEMPTS + 1):
            stream = self._engines.forward.remote(forwarded, **{PREFIX_KWARG: blocks})
            try:
                head = await stream.__anext__()
            except asyncio.CancelledError:
                stream.cancel()
                raise
            except Exception as exc:  # the replica died or was unreachable before answering
                stream.cancel()
                self._metrics.stream_failures.labels("before").inc()
                log.warning("replica failed before answering %s (attempt %d): %r", forwarded.path, attempt, exc)
                continue
            assert isinstance(head, ResponseHead)
            response = StreamingResponse(self._body(forwarded.path, head, stream), status_code=head.status)
            response.raw_headers = list(head.headers)
            return response
        return error_response(forwarded.path, FleetUnavailable("no fleet replica could answer; try again"))

    async def _body(self, path: str, head: ResponseHead, stream: Any) -> AsyncIterator[bytes]:
        media_type = (head.header(b"content-type") or b"").split(b";")[0].strip().decode("latin-1")
        dialect = Dialect.for_path(path)
        is_stream = media_type == dialect.media_type
        events = 0
        try:
            async for part in stream:
                events += _events(part) if is_stream else 0
                yield part
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self._metrics.stream_failures.labels("during").inc()
            log.warning("replica failed during %s: %r", path, exc)
            if is_stream:
                error = ReplicaFailed("the fleet replica serving this stream failed; the reply is incomplete")
                yield stream_error_frame(path, error, events)
        finally:
            stream.cancel()  # a client that went away cancels the generation on its replica
