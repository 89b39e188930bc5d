"""GET /metrics and GET /v1/metrics: Prometheus text (docs/metrics.md)."""

from __future__ import annotations

import asyncio
from typing import cast

from connexion import context
from starlette.responses import Response

from superfluid.http.metrics import CONTENT_TYPE, Metrics


async def metrics() -> Response:
    """Rendered on a worker thread: a scrape costs the event loop nothing and never waits on the engine."""
    registry = cast(Metrics, context.scope["state"]["metrics"])
    body = await asyncio.to_thread(registry.render)
    return Response(body, headers={"content-type": CONTENT_TYPE})
