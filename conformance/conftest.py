"""One real server on the real bundled model for the whole conformance session."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from conformance.server import DEFAULT_MODEL, SECOND_MODEL, RunningServer, start_server, stop_server


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    log_path = tmp_path_factory.mktemp("server") / "serve.log"
    running = start_server([DEFAULT_MODEL, SECOND_MODEL, "--parallel", "4", "--http-allow-batch-invariant"], log_path)
    yield running
    stop_server(running)


@pytest.fixture(scope="session")
def base_url(server: RunningServer) -> str:
    return server.base_url


@pytest.fixture
def http(base_url: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=base_url, timeout=120) as client:
        yield client


@pytest.fixture(scope="session")
def model() -> str:
    return DEFAULT_MODEL


@pytest.fixture(scope="session")
def second_model() -> str:
    return SECOND_MODEL
