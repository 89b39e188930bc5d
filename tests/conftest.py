"""Shared unit-test doubles."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from superfluid.app import create_app
from superfluid.errors import ModelNotFound
from superfluid.settings import Settings


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
