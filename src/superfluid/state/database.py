"""One SQLite database, reached from the event loop without blocking it.

Two threads own the two connections: the *writer* runs every change, one at a time, each inside an explicit
``BEGIN IMMEDIATE ... COMMIT``; the *reader* runs queries inside a deferred transaction, so a query that reads
several tables sees one snapshot. In WAL mode readers never wait for the writer, so a retrieval does not queue
behind a commit's fsync. Callers ``await`` the work; the loop only waits on a future.

``synchronous=FULL``: a transaction is on disk (the WAL fsynced) when ``write`` returns, so whatever a handler
acknowledged after awaiting it survives a crash of the process or of the machine. A caller that is cancelled
while its write runs does not undo it: the write finishes or rolls back on the writer thread, whole.

The path decides, not the open file (docs/limits.md, "Storage faults"). Before each transaction a thread checks
that the file at the path is still the one its connection opened: when the file or its directory was removed or
replaced, it opens what the path holds now (a removed directory is made again, with a new database). A write
checks again just before its COMMIT and fails (503) if the file went meanwhile, so nothing is acknowledged that
went into an unlinked file. Before each write the thread also checks that the path may be written: a file
system made read-only under the open file (a read-only bind mount) refuses the write (503) though the open
descriptors could still write.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import os
import queue
import sqlite3
import threading
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path
from typing import Any, TypeVar

from superfluid.errors import StorageFull, StorageUnavailable
from superfluid.state.contents import Contents, DiskContents
from superfluid.state.errors import SchemaTooNew, StateError, as_storage_error, check_writable, unavailable
from superfluid.state.migrations import MIGRATIONS, Migration, migrate

log = logging.getLogger(__name__)

T = TypeVar("T")
Work = Callable[[sqlite3.Connection], T]

BUSY_TIMEOUT_MS = 10_000
"""How long a statement waits for another process's lock (a second server on the same directory)."""


JOURNAL_SUFFIXES = ("-wal", "-shm")


class StoreConnection(sqlite3.Connection):
    """A connection that knows which file it opened (the path's st_dev and st_ino then; None once closed) and
    the files of its write-ahead log."""

    opened: tuple[int, int] | None = None
    journal: frozenset[tuple[int, int]] = frozenset()


def identity(path: Path) -> tuple[int, int] | None:
    """The (st_dev, st_ino) of the file at ``path``, or None when there is none. Another failure (the directory
    cannot be searched, an I/O error) is raised: the store cannot be used now."""
    try:
        found = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    return found.st_dev, found.st_ino


def journal(path: Path) -> frozenset[tuple[int, int]]:
    """The identities of the write-ahead log's files beside ``path`` (``-wal``, ``-shm``) that exist."""
    found = (identity(path.with_name(path.name + suffix)) for suffix in JOURNAL_SUFFIXES)
    return frozenset(f for f in found if f is not None)


def connect(path: Path) -> StoreConnection:
    """A connection with the store's settings: autocommit (transactions are explicit), WAL, full sync."""
    before = identity(path)
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=True, factory=StoreConnection)
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    # Only takes effect on a database with no tables yet; freed pages are returned by incremental_vacuum.
    conn.execute("PRAGMA auto_vacuum = INCREMENTAL")
    mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
    if str(mode).lower() != "wal":
        conn.close()
        raise StateError(f"{path}: SQLite would not use WAL mode here (journal_mode={mode})")
    conn.execute("PRAGMA synchronous = FULL")
    conn.execute("PRAGMA foreign_keys = ON")
    after = identity(path)
    # Which file SQLite opened is only known when the path held the same one before and after (or held none
    # before: it made the file); otherwise the first check opens the path again.
    conn.opened = after if before in (None, after) else None
    conn.journal = journal(path) if conn.opened else frozenset()
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
    """One thread, one connection: runs the functions handed to it in order. ``check``, when given, runs before
    each of them and returns the connection to use: the same one, or one it opened in its place (it is handed
    None when there is none yet). Without it, a connection that could not be opened is tried again at the next
    function."""

    def __init__(self, name: str, path: Path, opener: Callable[[], Any] | None = None,
                 check: Callable[[Any], Any] | None = None) -> None:
        self._opener = opener or (lambda: connect(path))
        self._check = check
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
        conn: Any = None
        with suppress(Exception):  # when the first try fails, each job tries again and hears why
            conn = self._opener()
        while (job := self._jobs.get()) is not None:
            work, future = job
            if not future.set_running_or_notify_cancel():
                continue
            try:
                if self._check is not None:
                    conn = self._check(conn)
                elif conn is None:
                    conn = self._open_again()
                future.set_result(work(conn))
            except BaseException as exc:  # handed to the caller, whatever it is; storage faults typed
                future.set_exception(as_storage_error(exc))
        if conn is not None:
            conn.close()

    def _open_again(self) -> Any:
        try:
            return self._opener()
        except Exception as exc:  # sqlite3.Error, StateError, or another backend's connection error
            raise unavailable(exc) from exc


class Database:
    """The sessions database: ``open`` it (migrating it to this release's schema), then ``write`` and ``read``."""

    WRITE_BEGIN = "BEGIN IMMEDIATE"
    READ_BEGIN = "BEGIN"

    def __init__(self, path: Path, migrations: tuple[Migration, ...] = MIGRATIONS) -> None:
        self.path = path
        self._migrations = migrations
        self._writer: _Worker | None = None
        self._reader: _Worker | None = None
        self._reopening = threading.Lock()
        self._left_behind: frozenset[tuple[int, int]] = frozenset()

    async def open(self) -> int:
        """Create the directory and the file if needed and bring the schema up to date; returns its version."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StateError(f"cannot create the sessions directory {self.path.parent}: {exc}") from exc
        self._writer = _Worker("superfluid-state-writer", self.path, check=self._writable)
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
        self._reader = _Worker("superfluid-state-reader", self.path, check=self._current)
        return version

    def _current(self, conn: StoreConnection | None) -> StoreConnection:
        """``conn`` while the file at the path is the one it opened; otherwise a connection to what the path holds
        now, as ``serve`` would open it: a removed directory made again, a missing database created and migrated
        (docs/limits.md, "Storage faults"). SQLite closes ``conn`` without touching the path's files, its own
        being gone from there."""
        if conn is not None and conn.opened is not None and identity(self.path) == conn.opened:
            if len(conn.journal) < len(JOURNAL_SUFFIXES):  # noted once they exist (after the first transaction)
                conn.journal = journal(self.path)
            return conn
        with self._reopening:  # one thread at a time: the writer and the reader may both have noticed
            return self._reopen(conn)

    def _reopen(self, conn: StoreConnection | None) -> StoreConnection:
        """The removed file's write-ahead log, left beside the path, would be joined to whatever file is there
        now: until it goes too, the store is unavailable. What of it was seen gone is forgotten, since a new
        file may then take its inode number."""
        if conn is not None and conn.opened is not None:
            log.warning("the sessions database %s was removed or replaced while serving; opening what the path "
                        "holds now (a new database if there is none)", self.path)
            self._left_behind |= conn.journal
            conn.opened, conn.journal = None, frozenset()
            conn.close()
        self._left_behind &= journal(self.path)
        if self._left_behind:
            raise StorageUnavailable(
                f"the sessions database {self.path} was replaced while serving, and the write-ahead log of the "
                f"removed one is still beside it: remove {self.path.name}-wal and {self.path.name}-shm (then the "
                "new file is opened); nothing was stored")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fresh = connect(self.path)
        except Exception as exc:  # the directory cannot be made, the file cannot be opened
            raise unavailable(exc) from exc
        try:
            migrate(fresh, self._migrations, where=str(self.path))
        except Exception as exc:  # a file put there that is not a database, or of a newer schema
            fresh.close()
            raise unavailable(exc) from exc
        return fresh

    def _writable(self, conn: StoreConnection | None) -> StoreConnection:
        """The writer's check: ``_current``, then the path may be written."""
        conn = self._current(conn)
        check_writable(self.path)
        return conn

    async def write(self, work: Work[T]) -> T:
        """Run ``work`` in one write transaction on the writer thread; returns once it is committed."""
        if self._writer is None:
            raise StateError("the sessions database is not open")
        return await asyncio.wrap_future(self._writer.submit(
            lambda conn: in_transaction(conn, lambda c: self._unmoved(c, work(c)), begin=self.WRITE_BEGIN)))

    def _unmoved(self, conn: Any, result: T) -> T:
        """``result``, once the file at the path is checked to be still the one this write goes to, just before
        its COMMIT: the directory may have been removed while the transaction waited for a lock or ran."""
        if identity(self.path) != conn.opened:
            raise StorageUnavailable(f"the sessions database {self.path} was removed or replaced while this write "
                                     "ran; nothing was stored")
        return result

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
