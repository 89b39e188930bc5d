"""Shared unit-test doubles."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from starlette.testclient import TestClient

from superfluid.app import create_app
from superfluid.engine.scheduling.stream import _fold
from superfluid.engine.types import ChoiceResult, Finished, GenerationResult, TextDelta, Usage
from superfluid.errors import ModelNotFound
from superfluid.http.direct import expose_connection
from superfluid.settings import Settings


class FakeModel:
    """What every fake model shares: a prompt prepared from nothing, and no disk tier (served_model.py)."""

    def prepare(self, request: Any, **_: Any) -> Any:
        from superfluid.engine import PreparedPrompt

        return PreparedPrompt(tokens=())

    async def from_disk(self, request: Any, prepared: Any) -> None:
        return None


class FakeServices:
    """Stands in for superfluid.services.Services: nothing to start, and no engine behind it.

    Any handler that reaches for a model gets a 404 for it, which tells a test that the request made it
    through routing and validation to the handler.
    """

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.started = False
        self.closed = False

    async def start(self) -> None:
        self.started = True

    async def close(self) -> None:
        self.closed = True

    @property
    def models(self) -> Any:
        raise ModelNotFound("no-engine-in-unit-tests")


def app_client(settings: Settings) -> Iterator[TestClient]:
    app = create_app(settings, services=FakeServices(settings))  # type: ignore[arg-type]
    with TestClient(app, raise_server_exceptions=False) as client:
        yield client


@pytest.fixture(scope="session")
def app_settings() -> Settings:
    return Settings(max_body_bytes=4096)


@pytest.fixture(scope="session")
def fake_app(app_settings: Settings) -> Iterator[TestClient]:
    """The real Connexion app (both specs, validators, guards, error handlers) over FakeServices."""
    yield from app_client(app_settings)


@contextmanager
def served_by_uvicorn(settings: Settings, services: Any) -> Iterator[str]:
    """The app as ``superfluid serve`` runs it (uvicorn with the connection-limited httptools protocol, the
    connection exposed for direct streams) over ``services``, in a thread; yields its base URL."""
    import uvicorn

    from superfluid.http.connections import ConnectionLimits, protocol_class

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    app = expose_connection(create_app(settings, services=services))
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning",
                                           http=protocol_class(ConnectionLimits())))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "uvicorn did not start"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


class ScriptedStream:
    """Stands in for GenerationStream, playing ``deltas`` then ``finished``. With a direct hook the deltas go to
    it from another thread, as the engine thread sends them, and start before the response head is out; the
    terminal event comes through the loop after them."""

    prompt_tokens = 3

    def __init__(self, deltas: list[TextDelta], direct: Any, *, finished: Finished | None = None,
                 cached_tokens: int = 0, admit_delay_s: float = 0.0) -> None:
        loop = asyncio.get_running_loop()
        self._deltas = deltas
        self._direct = direct
        self._finished = finished or Finished(0, "length", Usage(3, len(deltas), cached_tokens))
        self.cached_tokens = cached_tokens
        self.restored_tokens = 0
        self._admit_delay_s = admit_delay_s
        self.cancelled = False
        self._done: asyncio.Future[None] = loop.create_future()
        if direct is None:
            self._done.set_result(None)
            return

        def produce() -> None:
            for delta in deltas:
                direct(delta)
            loop.call_soon_threadsafe(self._done.set_result, None)

        threading.Thread(target=produce, daemon=True).start()

    async def admitted(self) -> int:
        await asyncio.sleep(self._admit_delay_s)
        return self.cached_tokens

    async def timed_events(self, keepalive_s: float | None) -> AsyncIterator[TextDelta | Finished | None]:
        if self._direct is None:
            for delta in self._deltas:
                yield delta
        await self._done
        yield self._finished

    async def events(self) -> AsyncIterator[TextDelta | Finished]:
        async for event in self.timed_events(None):
            if event is not None:
                yield event

    async def collect(self, *, deltas: bool = False) -> GenerationResult:
        """The whole reply, folded by the engine's own fold (as GenerationStream.collect does)."""
        choice = ChoiceResult(index=0)
        pieces = [event async for event in self.events() if isinstance(event, TextDelta)]
        _fold(choice, pieces)
        choice.finish_reason, choice.usage = self._finished.finish_reason, self._finished.usage
        if deltas:
            choice.deltas = pieces
        usage = self._finished.usage
        return GenerationResult(choices=[choice], prompt_tokens=usage.prompt_tokens,
                                completion_tokens=usage.completion_tokens, cached_tokens=self.cached_tokens)

    def cancel(self) -> None:
        self.cancelled = True
