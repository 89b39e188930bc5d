"""One SQLite database, reached from the event loop without blocking it.

Two threads own the two connections: the *writer* runs every change, one at a time, each inside an explicit
``BEGIN IMMEDIATE ... COMMIT``; the *reader* runs queries inside a deferred transaction, so a query that reads
several tables sees one snapshot. In WAL mode readers never wait for the writer, so a retrieval does not queue
behind a commit's fsync. Callers ``await`` the work; the loop only waits on a future.

``synchronous=FULL``: a transaction is on disk (the WAL fsynced) when ``write`` returns, so whatever a handler
acknowledged after awaiting it survives a crash of the process or of the machine. A caller that is cancelled
while its write runs does not undo it: the write finishes or rolls back on the writer thread, whole.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import queue
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from superfluid.errors import StorageFull, StorageUnavailable
from superfluid.state.contents import Contents, DiskContents
from superfluid.state.errors import SchemaTooNew, StateError, as_storage_error
from superfluid.state.migrations import MIGRATIONS, Migration, migrate

log = logging.getLogger(__name__)

T = TypeVar("T")
Work = Callable[[sqlite3.Connection], T]

BUSY_TIMEOUT_MS = 10_000
"""How long a statement waits for another process's lock (a second server on the same directory)."""


def connect(path: Path) -> sqlite3.Connection:
    """A connection with the store's settings: autocommit (transactions are explicit), WAL, full sync."""
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=True)
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    # Only takes effect on a database with no tables yet; freed pages are returned by incremental_vacuum.
    conn.execute("PRAGMA auto_vacuum = INCREMENTAL")
    mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
    if str(mode).lower() != "wal":
        conn.close()
        raise StateError(f"{path}: SQLite would not use WAL mode here (journal_mode={mode})")
    conn.execute("PRAGMA synchronous = FULL")
    conn.execute("PRAGMA foreign_keys = ON")
    return conn


def in_transaction(conn: sqlite3.Connection, work: Work[T], *, begin: str) -> T:
    """Run ``work`` inside ``begin`` ... COMMIT; anything it raises rolls the transaction back."""
    conn.execute(begin)
    try:
        result = work(conn)
        conn.execute("COMMIT")
    except BaseException:
        _roll_back(conn)
        raise
    return result


def _roll_back(conn: Any) -> None:
    """Undo an open transaction. SQLite has already rolled back after some failures (a full disk) and refuses a
    second rollback: what the caller hears of is the failure, not that."""
    if not getattr(conn, "in_transaction", True):  # SQLite tells; another backend's connection is asked anyway
        return
    try:
        conn.execute("ROLLBACK")
    except Exception as exc:  # any backend's: the failure that led here is what the caller must hear of
        log.warning("rollback failed after an error: %s", exc)


class _Worker:
    """One thread, one connection: runs the functions handed to it in order."""

    def __init__(self, name: str, path: Path, opener: Callable[[], Any] | None = None) -> None:
        self._path = path
        self._opener = opener or (lambda: connect(path))
        self._jobs: queue.SimpleQueue[tuple[Work[object], concurrent.futures.Future[object]] | None] = (
            queue.SimpleQueue())
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def submit(self, work: Work[T]) -> concurrent.futures.Future[T]:
        future: concurrent.futures.Future[T] = concurrent.futures.Future()
        self._jobs.put((work, future))  # type: ignore[arg-type]
        return future

    def stop(self) -> None:
        self._jobs.put(None)
        self._thread.join()

    def _run(self) -> None:
        conn: sqlite3.Connection | None = None
        failure: BaseException | None = None
        try:
            conn = self._opener()
        except Exception as exc:  # sqlite3.Error, StateError, or another backend's connection error
            failure = exc
        while (job := self._jobs.get()) is not None:
            work, future = job
            if not future.set_running_or_notify_cancel():
                continue
            if conn is None:
                assert failure is not None
                refused = StateError(f"cannot open {self._path}: {failure}")
                refused.__cause__ = failure
                future.set_exception(refused)
                continue
            try:
                future.set_result(work(conn))
            except BaseException as exc:  # handed to the caller, whatever it is; storage faults typed
                future.set_exception(as_storage_error(exc))
        if conn is not None:
            conn.close()


class Database:
    """The sessions database: ``open`` it (migrating it to this release's schema), then ``write`` and ``read``."""

    WRITE_BEGIN = "BEGIN IMMEDIATE"
    READ_BEGIN = "BEGIN"

    def __init__(self, path: Path, migrations: tuple[Migration, ...] = MIGRATIONS) -> None:
        self.path = path
        self._migrations = migrations
        self._writer: _Worker | None = None
        self._reader: _Worker | None = None

    async def open(self) -> int:
        """Create the directory and the file if needed and bring the schema up to date; returns its version."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StateError(f"cannot create the sessions directory {self.path.parent}: {exc}") from exc
        self._writer = _Worker("superfluid-state-writer", self.path)
        try:
            version = await asyncio.wrap_future(self._writer.submit(
                lambda conn: migrate(conn, self._migrations, where=str(self.path))))
        except SchemaTooNew:
            await self.close()
            raise
        except (sqlite3.Error, StateError, StorageFull, StorageUnavailable) as exc:
            await self.close()
            fault = exc.__cause__ or exc
            raise StateError(f"cannot open the sessions database {self.path}: {fault} (superfluid never "
                             "rewrites a database it cannot read: move the file aside to start afresh)") from exc
        except BaseException:
            await self.close()
            raise
        self._reader = _Worker("superfluid-state-reader", self.path)
        return version

    async def write(self, work: Work[T]) -> T:
        """Run ``work`` in one write transaction on the writer thread; returns once it is committed."""
        if self._writer is None:
            raise StateError("the sessions database is not open")
        return await asyncio.wrap_future(
            self._writer.submit(lambda conn: in_transaction(conn, work, begin=self.WRITE_BEGIN)))

    async def read(self, work: Work[T]) -> T:
        """Run ``work`` in one read transaction (one snapshot) on the reader thread."""
        if self._reader is None:
            raise StateError("the sessions database is not open")
        return await asyncio.wrap_future(
            self._reader.submit(lambda conn: in_transaction(conn, work, begin=self.READ_BEGIN)))

    def contents(self, directory: Path) -> Contents:
        """Where this backend keeps stored files' bytes (state/contents.py): on SQLite, files on local disk
        under ``directory``, beside the database file."""
        return DiskContents(self, directory)

    def reclaim(self) -> None:
        """Return freed pages to the file system, after the writes queued so far; nobody waits for it."""
        if self._writer is not None:
            self._writer.submit(_incremental_vacuum)

    async def close(self) -> None:
        """Finish the queued work and close both connections."""
        workers = [w for w in (self._reader, self._writer) if w is not None]
        self._reader = self._writer = None
        for worker in workers:
            await asyncio.to_thread(worker.stop)


def _incremental_vacuum(conn: sqlite3.Connection) -> None:
    try:
        conn.execute("PRAGMA incremental_vacuum").fetchall()
    except sqlite3.Error as exc:  # space is only returned later, nothing is lost
        log.warning("incremental vacuum failed: %s", exc)
