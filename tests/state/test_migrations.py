"""The schema version row and the migration mechanism."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from superfluid.state.database import connect
from superfluid.state.errors import SchemaTooNew
from superfluid.state.migrations import MIGRATIONS, Migration, check_order, current_version, migrate

EXTRA = Migration(len(MIGRATIONS) + 1, "a later release's table",
                  ("CREATE TABLE later (id INTEGER PRIMARY KEY, owner TEXT)",))


def _tables(conn: sqlite3.Connection) -> set[str]:
    return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def test_a_new_database_gets_every_migration_and_records_the_version(tmp_path: Path) -> None:
    conn = connect(tmp_path / "db.sqlite3")
    assert current_version(conn) == 0
    assert migrate(conn) == MIGRATIONS[-1].version
    assert current_version(conn) == MIGRATIONS[-1].version
    assert {"schema_version", "responses", "response_input_items", "store_usage"} <= _tables(conn)
    assert conn.execute("SELECT count(*) FROM schema_version").fetchone()[0] == 1


def test_migrating_twice_changes_nothing(tmp_path: Path) -> None:
    conn = connect(tmp_path / "db.sqlite3")
    migrate(conn)
    before = conn.execute("SELECT version, migrated_at FROM schema_version").fetchone()
    assert migrate(conn) == before[0]
    assert conn.execute("SELECT version, migrated_at FROM schema_version").fetchone() == before


def test_a_later_release_adds_its_migration_on_top(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    migrate(connect(path))
    conn = connect(path)
    assert migrate(conn, (*MIGRATIONS, EXTRA)) == EXTRA.version
    assert "later" in _tables(conn)
    # Stored rows survive the upgrade.
    assert conn.execute("SELECT rows FROM store_usage WHERE kind = 'responses'").fetchone()[0] == 0


def test_a_failing_migration_leaves_the_database_at_the_previous_version(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    conn = connect(path)
    migrate(conn)
    broken = Migration(EXTRA.version, "half a migration", ("CREATE TABLE half (id INTEGER)", "NOT SQL"))
    with pytest.raises(sqlite3.OperationalError):
        migrate(conn, (*MIGRATIONS, broken))
    assert current_version(conn) == MIGRATIONS[-1].version
    assert "half" not in _tables(conn)


def test_a_database_from_a_newer_release_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    migrate(connect(path), (*MIGRATIONS, EXTRA))
    with pytest.raises(SchemaTooNew, match="newer than this release"):
        migrate(connect(path))


def test_versions_must_run_one_by_one() -> None:
    check_order(MIGRATIONS)
    with pytest.raises(ValueError, match="expected 2"):
        check_order((MIGRATIONS[0], Migration(3, "skips one", ())))


def test_the_store_runs_in_wal_mode_with_full_sync(tmp_path: Path) -> None:
    conn = connect(tmp_path / "db.sqlite3")
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    migrate(conn)
    assert conn.execute("PRAGMA auto_vacuum").fetchone()[0] == 2  # INCREMENTAL
