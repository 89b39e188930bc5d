"""Access to the running server's services from inside a handler."""

from __future__ import annotations

import asyncio
import time
from typing import cast

from connexion import context

from superfluid.engine.stream import GenerationStream
from superfluid.engine.types import GenerationResult
from superfluid.services import Services


def services() -> Services:
    """The Services the lifespan put into this request's ASGI state."""
    return cast(Services, context.scope["state"]["services"])


def now() -> int:
    return int(time.time())


async def _client_gone() -> None:
    """Return when the client closes the connection (the request body is already read by now)."""
    receive = context.receive
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return


async def collect(generation: GenerationStream) -> GenerationResult:
    """Run a non-streaming generation to the end, cancelling it if the client goes away first."""
    result = asyncio.ensure_future(generation.collect())
    gone = asyncio.ensure_future(_client_gone())
    try:
        await asyncio.wait({result, gone}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        gone.cancel()
    if not result.done():
        generation.cancel()
        result.cancel()
        raise ClientDisconnected()
    return result.result()


class ClientDisconnected(Exception):
    """The client left before its reply was ready; nothing is sent."""
