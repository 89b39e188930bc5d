"""How faults of the storage reach a client: typed errors with their codes (state/errors.as_storage_error), and
a write that fails inside its transaction rolls back whole, with the fault, not the rollback, reported. The
SQLite store follows its path: a removed directory is made again with a new database, a file put in place is
opened, and a path that cannot be written refuses writes (docs/limits.md, "Storage faults")."""

from __future__ import annotations

import asyncio
import errno
import os
import shutil
import sqlite3
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from superfluid.errors import StorageFull, StorageUnavailable
from superfluid.state import Database, as_storage_error
from superfluid.state.migrations import Migration

TABLE = (Migration(1, "a table", ("CREATE TABLE t (x INTEGER)",)),)


def _sqlite_error(code: int, message: str) -> sqlite3.Error:
    error = sqlite3.OperationalError(message)
    error.sqlite_errorcode = code
    return error


@pytest.mark.parametrize(("fault", "kind"), [
    (_sqlite_error(13, "database or disk is full"), StorageFull),
    (OSError(errno.ENOSPC, "No space left on device"), StorageFull),
    (OSError(errno.EDQUOT, "Disk quota exceeded"), StorageFull),
    (_sqlite_error(8, "attempt to write a readonly database"), StorageUnavailable),
    (_sqlite_error(8 | (1 << 8), "attempt to write a readonly database"), StorageUnavailable),  # an extended code
    (_sqlite_error(10, "disk I/O error"), StorageUnavailable),
    (_sqlite_error(11, "database disk image is malformed"), StorageUnavailable),
    (_sqlite_error(26, "file is not a database"), StorageUnavailable),
    (OSError(errno.EROFS, "Read-only file system"), StorageUnavailable),
    (OSError(errno.ENOENT, "No such file or directory"), StorageUnavailable),
])
def test_storage_faults_are_typed(fault: BaseException, kind: type[StorageFull | StorageUnavailable]) -> None:
    told = as_storage_error(fault)
    assert isinstance(told, kind) and "nothing was stored" in told.message and str(fault) in told.message
    assert (told.status, told.code) == ((507, "storage_full") if kind is StorageFull else (503, "storage_unavailable"))


def test_other_errors_are_left_as_they_are() -> None:
    for error in (sqlite3.IntegrityError("UNIQUE constraint failed"), _sqlite_error(1, "no such table: x"),
                  ValueError("a bug")):
        assert as_storage_error(error) is error


def test_a_write_that_fails_rolls_back_and_reports_the_fault(tmp_path: Path) -> None:
    async def scenario() -> None:
        db = Database(tmp_path / "state.sqlite3")
        await db.open()
        await db.write(lambda conn: conn.execute("CREATE TABLE t (x INTEGER)"))

        def fails_after_a_row(conn: sqlite3.Connection) -> None:
            conn.execute("INSERT INTO t VALUES (1)")
            conn.execute("ROLLBACK")  # as SQLite does itself after some faults (a full disk)
            raise _sqlite_error(13, "database or disk is full")

        with pytest.raises(StorageFull):
            await db.write(fails_after_a_row)
        assert await db.read(lambda conn: conn.execute("SELECT count(*) FROM t").fetchone()[0]) == 0
        await db.write(lambda conn: conn.execute("INSERT INTO t VALUES (2)"))  # the connection is still good
        assert await db.read(lambda conn: conn.execute("SELECT x FROM t").fetchall()) == [(2,)]
        await db.close()

    asyncio.run(scenario())


def _psycopg_faults() -> list[tuple[BaseException, type[StorageFull | StorageUnavailable] | None]]:
    psycopg = pytest.importorskip("psycopg")
    return [
        (psycopg.OperationalError("connection failed: No such file or directory"), StorageUnavailable),
        (psycopg.errors.AdminShutdown("terminating connection due to administrator command"), StorageUnavailable),
        (psycopg.errors.CannotConnectNow("the database system is starting up"), StorageUnavailable),
        (psycopg.errors.ReadOnlySqlTransaction("cannot execute INSERT in a read-only transaction"),
         StorageUnavailable),
        (psycopg.errors.DiskFull("could not extend file: No space left on device"), StorageFull),
        (psycopg.errors.UniqueViolation("duplicate key value"), None),
        (psycopg.errors.UndefinedTable("relation \"x\" does not exist"), None),
    ]


def test_postgresql_faults_are_typed() -> None:
    for fault, kind in _psycopg_faults():
        told = as_storage_error(fault)
        if kind is None:
            assert told is fault
        else:
            assert isinstance(told, kind) and "nothing was stored" in told.message, fault


def _scenario(path: Path, steps: Callable[[Database], Awaitable[None]]) -> None:
    async def run() -> None:
        db = Database(path, TABLE)
        await db.open()
        try:
            await steps(db)
        finally:
            await db.close()

    asyncio.run(run())


async def _rows(db: Database) -> list[Any]:
    return await db.read(lambda conn: conn.execute("SELECT x FROM t ORDER BY x").fetchall())


async def _insert(db: Database, x: int) -> None:
    await db.write(lambda conn: conn.execute("INSERT INTO t VALUES (?)", (x,)))


def _on_disk(path: Path) -> list[Any]:
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT x FROM t ORDER BY x").fetchall()


def test_a_removed_directory_is_made_again_with_a_new_database(tmp_path: Path) -> None:
    path = tmp_path / "sessions" / "state.sqlite3"

    async def steps(db: Database) -> None:
        await _insert(db, 1)
        shutil.rmtree(path.parent)
        await _insert(db, 2)  # into a new database at the path, not into the removed file
        assert await _rows(db) == [(2,)]
        shutil.rmtree(path.parent)
        assert await _rows(db) == []  # a read finds the new database too
        await _insert(db, 3)
        assert _on_disk(path) == [(3,)]

    _scenario(path, steps)
    assert _on_disk(path) == [(3,)]


def test_a_write_during_which_the_directory_is_removed_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "sessions" / "state.sqlite3"

    def removed_midway(conn: sqlite3.Connection) -> None:
        conn.execute("INSERT INTO t VALUES (1)")
        shutil.rmtree(path.parent)  # as if while the write waited for another process's lock

    async def steps(db: Database) -> None:
        with pytest.raises(StorageUnavailable, match="while this write ran"):
            await db.write(removed_midway)
        await _insert(db, 2)
        assert await _rows(db) == [(2,)]

    _scenario(path, steps)
    assert _on_disk(path) == [(2,)]


def test_a_database_put_in_its_place_is_opened_without_the_old_log(tmp_path: Path) -> None:
    path = tmp_path / "sessions" / "state.sqlite3"
    other = tmp_path / "backup" / "state.sqlite3"

    async def backup(db: Database) -> None:
        await _insert(db, 7)

    _scenario(other, backup)

    async def steps(db: Database) -> None:
        await _insert(db, 1)
        assert await _rows(db) == [(1,)]
        os.replace(other, path)  # an operator restores a copy, and leaves the removed file's log beside it
        with pytest.raises(StorageUnavailable, match="write-ahead log of the removed one"):
            await _rows(db)
        with pytest.raises(StorageUnavailable, match="write-ahead log of the removed one"):
            await _insert(db, 2)
        for suffix in ("-wal", "-shm"):
            path.with_name(path.name + suffix).unlink()
        assert await _rows(db) == [(7,)]
        await _insert(db, 8)
        assert _on_disk(path) == [(7,), (8,)]

    _scenario(path, steps)


def test_a_directory_that_cannot_be_made_again_refuses_until_it_can(tmp_path: Path) -> None:
    path = tmp_path / "sessions" / "state.sqlite3"

    async def steps(db: Database) -> None:
        await _insert(db, 1)
        assert await _rows(db) == [(1,)]
        shutil.rmtree(path.parent)
        path.parent.write_bytes(b"a file where the directory was")
        with pytest.raises(StorageUnavailable, match="nothing was stored"):
            await _insert(db, 2)
        with pytest.raises(StorageUnavailable):
            await _rows(db)
        path.parent.unlink()
        await _insert(db, 3)
        assert await _rows(db) == [(3,)]

    _scenario(path, steps)


def test_a_path_that_cannot_be_written_refuses_writes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "sessions" / "state.sqlite3"
    real_access = os.access

    def no_writes(target: Any, mode: int, **kwargs: Any) -> bool:  # as on a read-only mount, root included
        return False if Path(target) == path and mode & os.W_OK else real_access(target, mode, **kwargs)

    async def steps(db: Database) -> None:
        await _insert(db, 1)
        monkeypatch.setattr(os, "access", no_writes)
        with pytest.raises(StorageUnavailable, match="cannot be written"):
            await _insert(db, 2)
        assert await _rows(db) == [(1,)]  # reads go on
        monkeypatch.setattr(os, "access", real_access)
        await _insert(db, 3)
        assert await _rows(db) == [(1,), (3,)]

    _scenario(path, steps)
