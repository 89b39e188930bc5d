"""The database's threads and transactions."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from pathlib import Path

import pytest

from superfluid.state.database import Database
from superfluid.state.errors import StateError
from superfluid.state.migrations import Migration

TABLE = (Migration(1, "a counter", ("CREATE TABLE counter (n INTEGER NOT NULL)", "INSERT INTO counter VALUES (0)")),)


def _run(coro):  # type: ignore[no-untyped-def]
    return asyncio.run(coro)


async def _count(db: Database) -> int:
    return int(await db.read(lambda conn: conn.execute("SELECT n FROM counter").fetchone()[0]))


def test_open_creates_the_directory_and_migrates(tmp_path: Path) -> None:
    async def scenario() -> tuple[int, int]:
        db = Database(tmp_path / "deep" / "er" / "state.sqlite3", TABLE)
        version = await db.open()
        try:
            return version, await _count(db)
        finally:
            await db.close()

    assert _run(scenario()) == (1, 0)


def test_a_write_commits_and_a_failing_write_rolls_back_whole(tmp_path: Path) -> None:
    def bump_then_fail(conn: sqlite3.Connection) -> None:
        conn.execute("UPDATE counter SET n = n + 100")
        raise RuntimeError("half-way")

    async def scenario() -> int:
        db = Database(tmp_path / "s.sqlite3", TABLE)
        await db.open()
        try:
            await db.write(lambda conn: conn.execute("UPDATE counter SET n = n + 1"))
            with pytest.raises(RuntimeError, match="half-way"):
                await db.write(bump_then_fail)
            return await _count(db)
        finally:
            await db.close()

    assert _run(scenario()) == 1


def test_work_runs_off_the_event_loop_thread(tmp_path: Path) -> None:
    async def scenario() -> tuple[str, str]:
        db = Database(tmp_path / "s.sqlite3", TABLE)
        await db.open()
        try:
            writer = await db.write(lambda conn: threading.current_thread().name)
            reader = await db.read(lambda conn: threading.current_thread().name)
            return writer, reader
        finally:
            await db.close()

    writer, reader = _run(scenario())
    assert writer != threading.current_thread().name and reader != writer


def test_writes_queue_on_one_writer_and_all_land(tmp_path: Path) -> None:
    async def scenario() -> int:
        db = Database(tmp_path / "s.sqlite3", TABLE)
        await db.open()
        try:
            await asyncio.gather(*(db.write(lambda conn: conn.execute("UPDATE counter SET n = n + 1"))
                                   for _ in range(50)))
            return await _count(db)
        finally:
            await db.close()

    assert _run(scenario()) == 50


def test_a_cancelled_caller_does_not_undo_its_write(tmp_path: Path) -> None:
    gate = threading.Event()

    def slow_bump(conn: sqlite3.Connection) -> None:
        gate.wait(5)
        conn.execute("UPDATE counter SET n = n + 1")

    async def scenario() -> int:
        db = Database(tmp_path / "s.sqlite3", TABLE)
        await db.open()
        try:
            task = asyncio.ensure_future(db.write(slow_bump))
            await asyncio.sleep(0.01)
            task.cancel()
            gate.set()
            with pytest.raises(asyncio.CancelledError):
                await task
            await db.write(lambda conn: None)  # queued behind it
            return await _count(db)
        finally:
            await db.close()

    assert _run(scenario()) == 1


def test_a_directory_that_cannot_be_made_is_a_state_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")

    async def scenario() -> None:
        await Database(blocker / "sessions" / "s.sqlite3", TABLE).open()

    with pytest.raises(StateError, match="cannot create the sessions directory"):
        _run(scenario())


def test_a_file_that_is_not_a_database_is_a_state_error(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite3"
    path.write_bytes(b"this is not SQLite" * 100)

    async def scenario() -> None:
        await Database(path, TABLE).open()

    with pytest.raises(StateError):
        _run(scenario())


def test_using_a_closed_database_is_a_state_error(tmp_path: Path) -> None:
    async def scenario() -> None:
        db = Database(tmp_path / "s.sqlite3", TABLE)
        await db.open()
        await db.close()
        await db.read(lambda conn: None)

    with pytest.raises(StateError, match="not open"):
        _run(scenario())
