"""Driving the app without a server: response parts in order, and a consumer that leaves disconnects the app."""

from __future__ import annotations

import asyncio
from typing import Any

from superfluid.fleet.asgi import ForwardedRequest, Lifespan, ResponseHead, serve_request


async def _streaming_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] == "lifespan":
        await receive()
        scope["state"]["ready"] = True
        await send({"type": "lifespan.startup.complete"})
        await receive()
        await send({"type": "lifespan.shutdown.complete"})
        return
    body = (await receive())["body"]
    await send({"type": "http.response.start", "status": 201, "headers": [(b"x-state", str(scope["state"]).encode())]})
    for i in range(3):
        await send({"type": "http.response.body", "body": body + str(i).encode(), "more_body": True})
    await send({"type": "http.response.body", "body": b"", "more_body": False})


def test_a_request_comes_back_as_its_head_then_its_body_parts() -> None:
    async def run() -> list[Any]:
        lifespan = Lifespan(_streaming_app)
        await lifespan.start()
        parts = [p async for p in serve_request(_streaming_app, ForwardedRequest("POST", "/x", body=b"b"),
                                                lifespan.state)]
        await lifespan.stop()
        return parts

    head, *body = asyncio.run(run())
    assert isinstance(head, ResponseHead) and head.status == 201
    assert head.header(b"x-state") == b"{'ready': True}"
    assert body == [b"b0", b"b1", b"b2"]


def test_a_consumer_that_stops_listening_disconnects_the_app() -> None:
    seen: list[str] = []

    async def endless(scope: dict[str, Any], receive: Any, send: Any) -> None:
        await receive()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        waiter = asyncio.ensure_future(receive())
        while not waiter.done():
            await send({"type": "http.response.body", "body": b".", "more_body": True})
            await asyncio.sleep(0.01)
        seen.append(waiter.result()["type"])

    async def run() -> None:
        parts = serve_request(endless, ForwardedRequest("GET", "/"), {})
        assert isinstance(await parts.__anext__(), ResponseHead)
        assert await parts.__anext__() == b"."
        await parts.aclose()  # what Ray does when the head cancels the call

    asyncio.run(run())
    assert seen == ["http.disconnect"]
