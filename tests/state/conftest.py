"""The state tests run against both backends: SQLite in a temporary directory, and a real PostgreSQL server
(started once per session by tests/state/postgres_server.py; one fresh database per test)."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from conformance.server import free_port

from tests.state.postgres_server import fresh_database, running


@dataclass(frozen=True)
class Where:
    """Where a test's state lives: a sessions directory, and the PostgreSQL URL when that is the backend."""

    sessions: Path
    url: str | None = None


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    pytest.importorskip("psycopg", reason="the PostgreSQL backend needs the fleet extra: pip install -e '.[fleet]'")
    # Not under pytest's own temporary directory: that one is private to this user, and the server runs as
    # postgres when the tests run as root.
    base = Path(tempfile.mkdtemp(prefix="superfluid-postgres-"))
    try:
        with running(base, free_port()) as url:
            yield url
    finally:
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(params=["sqlite", "postgresql"])
def where(request: pytest.FixtureRequest, tmp_path: Path) -> Where:
    if request.param == "sqlite":
        return Where(tmp_path / "sessions")
    return Where(tmp_path / "sessions", fresh_database(request.getfixturevalue("postgres_server")))
