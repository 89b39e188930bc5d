"""How faults of the storage reach a client: typed errors with their codes (state/errors.as_storage_error), and
a write that fails inside its transaction rolls back whole, with the fault, not the rollback, reported."""

from __future__ import annotations

import asyncio
import errno
import sqlite3
from pathlib import Path

import pytest

from superfluid.errors import StorageFull, StorageUnavailable
from superfluid.state import Database, as_storage_error


def _sqlite_error(code: int, message: str) -> sqlite3.Error:
    error = sqlite3.OperationalError(message)
    error.sqlite_errorcode = code  # type: ignore[attr-defined]
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
def test_storage_faults_are_typed(fault: BaseException, kind: type[Exception]) -> None:
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
