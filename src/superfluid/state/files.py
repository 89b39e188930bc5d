"""Uploaded files (``/v1/files``): metadata rows in the state database, bytes in the backend's content store
(state/contents.py: ``<sessions>/files/`` on SQLite, the ``file_contents`` table on PostgreSQL).

An upload is streamed into a temporary file in the staging directory and fsynced; ``add`` then checks the quota
and, in one write transaction, adds the row and has the content store place the bytes, so a committed row always
has its bytes. Deleting removes the row, then (after the commit) whatever bytes the content store keeps apart.

Bounds: ``--files-max-bytes`` (0: none) is checked inside the transaction that stores a file, so concurrent
uploads cannot pass it together; batch output files are stored past it rather than lose a finished batch's
results. ``--files-expiry`` (0: never) is the default lifetime, ``expires_after`` an upload's own; an expired
file is gone at once (reads skip it) and its row and bytes go at the next prune, unless a batch that has not
ended still reads it. Rows carry an ``owner`` (NULL until API keys exist): a caller sees only its own.
"""

from __future__ import annotations

import secrets
import sqlite3
import time
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from superfluid.errors import FileInUse, FilesQuotaExceeded
from superfluid.state.contents import Contents
from superfluid.state.database import Database

FILES_DIR = "files"
ACTIVE_BATCH = ("validating", "in_progress", "finalizing", "cancelling")
"""Statuses of a batch that still reads its input file."""

_FIELDS = "id, owner, created_at, expires_at, filename, purpose, bytes"


@dataclass(frozen=True)
class FileBounds:
    max_bytes: int = 0
    """Most bytes of stored files; 0 means no bound."""
    expiry_s: float = 0.0
    """Seconds a file is kept after its upload unless it says otherwise; 0 keeps it until deleted."""


@dataclass(frozen=True)
class StoredFile:
    id: str
    owner: str | None
    created_at: int
    expires_at: int | None
    filename: str
    purpose: str
    bytes: int

    def to_object(self) -> dict[str, Any]:
        """OpenAI's file object."""
        return {"id": self.id, "object": "file", "bytes": self.bytes, "created_at": self.created_at,
                "expires_at": self.expires_at, "filename": self.filename, "purpose": self.purpose,
                "status": "processed", "status_details": None}


def new_file_id() -> str:
    return "file-" + secrets.token_hex(12)


def _row(row: tuple[Any, ...]) -> StoredFile:
    return StoredFile(str(row[0]), row[1], int(row[2]), None if row[3] is None else int(row[3]), str(row[4]),
                      str(row[5]), int(row[6]))


class FileStore:
    """Stored files over the sessions database. Every method takes the caller's ``owner`` (None: no keys)."""

    def __init__(self, db: Database, contents: Contents, bounds: FileBounds,
                 clock: Callable[[], float] = time.time) -> None:
        self._db = db
        self.contents = contents
        self.directory = contents.directory
        self.bounds = bounds
        self._clock = clock

    def temp_path(self) -> Path:
        """A fresh temporary path in the staging directory, for an upload before ``add``."""
        return self.contents.temp_path()

    def now(self) -> int:
        return int(self._clock())

    async def prepare(self) -> int:
        """Create the staging directory, remove what a crash left behind (content store), then prune; returns
        how many files on disk went."""
        removed = await self.contents.prepare()
        await self.prune()
        return removed

    async def open(self, file_id: str) -> AsyncIterator[bytes] | None:
        """A file's bytes as chunks (opened before this returns), or None when they are gone. Callers check the
        file is theirs and visible first (``get``)."""
        return await self.contents.open(file_id)

    def local_copy(self, file_id: str) -> AbstractAsyncContextManager[Path]:
        """A local path holding a file's bytes while the context lasts (the batch runner reads its input so)."""
        return self.contents.local_copy(file_id)

    def expires_at(self, created_at: int, expires_after_s: int | None) -> int | None:
        if expires_after_s is not None:
            return created_at + expires_after_s
        return created_at + int(self.bounds.expiry_s) if self.bounds.expiry_s > 0 else None

    def insert(self, conn: sqlite3.Connection, temp: Path, record: StoredFile, *, quota: bool = True) -> None:
        """Inside a write transaction: check the quota, add the row and place the bytes staged at ``temp``."""
        if quota and self.bounds.max_bytes > 0:
            used = int(conn.execute("SELECT bytes FROM store_usage WHERE kind = 'files'").fetchone()[0])
            if used + record.bytes > self.bounds.max_bytes:
                raise FilesQuotaExceeded(
                    f"the file store holds {used} of its {self.bounds.max_bytes} bytes (--files-max-bytes); "
                    f"a file of {record.bytes} bytes does not fit. Delete files to make room.")
        conn.execute(f"INSERT INTO files ({_FIELDS}) VALUES (?, ?, ?, ?, ?, ?, ?)",
                     (record.id, record.owner, record.created_at, record.expires_at, record.filename,
                      record.purpose, record.bytes))
        self.contents.place(conn, temp, record.id)

    async def add(self, temp: Path, *, filename: str, purpose: str, size: int, owner: str | None,
                  expires_after_s: int | None = None) -> StoredFile:
        """Store the fsynced upload at ``temp`` (committed when this returns); FilesQuotaExceeded if it does not
        fit. ``temp`` is gone afterwards either way."""
        created = self.now()
        record = StoredFile(new_file_id(), owner, created, self.expires_at(created, expires_after_s), filename,
                            purpose, size)
        try:
            await self._db.write(lambda conn: self.insert(conn, temp, record))
        finally:
            with suppress(OSError):  # a read-only directory: the write's own failure is what the caller hears
                temp.unlink(missing_ok=True)
        await self.prune()
        return record

    def _visible(self) -> tuple[str, int]:
        return "owner IS ? AND (expires_at IS NULL OR expires_at > ?)", self.now()

    def find(self, conn: sqlite3.Connection, file_id: str, owner: str | None) -> StoredFile | None:
        where, now = self._visible()
        row = conn.execute(f"SELECT {_FIELDS} FROM files WHERE id = ? AND {where}", (file_id, owner, now)).fetchone()
        return None if row is None else _row(row)

    async def get(self, file_id: str, *, owner: str | None = None) -> StoredFile | None:
        """The file, or None (unknown, deleted, expired or someone else's)."""
        return await self._db.read(lambda conn: self.find(conn, file_id, owner))

    async def page(self, *, owner: str | None = None, purpose: str | None = None, limit: int = 10000,
                   order: str = "desc", after: str | None = None) -> tuple[list[StoredFile], bool]:
        """A page of the caller's files by upload order, and whether more follow."""

        def work(conn: sqlite3.Connection) -> tuple[list[StoredFile], bool]:
            where, now = self._visible()
            args: list[Any] = [owner, now]
            if purpose is not None:
                where += " AND purpose = ?"
                args.append(purpose)
            if after is not None:
                row = conn.execute("SELECT seq FROM files WHERE id = ?", (after,)).fetchone()
                if row is not None:
                    where += " AND seq < ?" if order == "desc" else " AND seq > ?"
                    args.append(int(row[0]))
            direction = "DESC" if order == "desc" else "ASC"
            rows = conn.execute(f"SELECT {_FIELDS} FROM files WHERE {where} ORDER BY seq {direction} LIMIT ?",
                                (*args, limit + 1)).fetchall()
            return [_row(r) for r in rows[:limit]], len(rows) > limit

        return await self._db.read(work)

    async def delete(self, file_id: str, *, owner: str | None = None) -> bool:
        """Remove a file (its row, and its bytes with or after it); False if the caller has no such file;
        Conflict while a batch that has not ended reads it."""

        def work(conn: sqlite3.Connection) -> bool:
            if self.find(conn, file_id, owner) is None:
                return False
            marks = ", ".join("?" for _ in ACTIVE_BATCH)
            user = conn.execute(f"SELECT id FROM batches WHERE input_file_id = ? AND status IN ({marks}) "
                                "ORDER BY seq LIMIT 1", (file_id, *ACTIVE_BATCH)).fetchone()
            if user is not None:
                raise FileInUse(f"file '{file_id}' is the input of batch '{user[0]}', which has not ended; cancel "
                               "the batch or wait for it to end first", param="file_id")
            conn.execute("DELETE FROM files WHERE id = ?", (file_id,))
            return True

        removed = await self._db.write(work)
        if removed:
            self.contents.discard([file_id])
        return removed

    async def prune(self) -> int:
        """Remove expired files that no unfinished batch reads; returns how many went."""
        now = self.now()
        marks = ", ".join("?" for _ in ACTIVE_BATCH)

        def work(conn: sqlite3.Connection) -> list[str]:
            ids = [str(r[0]) for r in conn.execute(
                "SELECT id FROM files WHERE expires_at IS NOT NULL AND expires_at <= ? AND id NOT IN "
                f"(SELECT input_file_id FROM batches WHERE status IN ({marks}))", (now, *ACTIVE_BATCH))]
            conn.executemany("DELETE FROM files WHERE id = ?", [(i,) for i in ids])
            return ids

        gone = await self._db.write(work)
        self.contents.discard(gone)
        return len(gone)

    async def usage(self) -> tuple[int, int]:
        """(files stored, their bytes)."""
        row = await self._db.read(lambda conn: conn.execute(
            "SELECT rows, bytes FROM store_usage WHERE kind = 'files'").fetchone())
        return int(row[0]), int(row[1])
