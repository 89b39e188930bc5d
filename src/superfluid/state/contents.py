"""Where a stored file's bytes live: the content store, chosen by the state backend (``Database.contents``).

Every upload and batch output is first written and fsynced to a temporary file in the local staging directory
(``<sessions>/files/``); ``place`` then stores it inside the write transaction that adds the file's row, so a row
and its bytes are committed together. Readers either stream the bytes (``open``) or get a local path to them
(``local_copy``, what the batch runner reads line by line).

- ``DiskContents`` (SQLite, one process or one machine): the bytes are ``files/<id>`` on local disk, renamed into
  place before the row commits; a crash leaves at most bytes without a row, which ``prepare`` removes at the
  next start. A download opens the file before the reply starts, so a delete meanwhile does not cut it short.
- ``TableContents`` (PostgreSQL, a fleet): the bytes are rows of ``file_contents`` (``CHUNK`` bytes each) in the
  same database, inserted in the row's transaction and removed with it (``ON DELETE CASCADE``), so every replica
  sees them and none holds them alone. The local directory only stages uploads. A download reads one chunk per
  read transaction (memory stays at one chunk, other reads interleave); a delete that commits mid-download ends
  that download short rather than serving bytes of a file that is gone.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import sqlite3
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Iterable
from contextlib import AbstractAsyncContextManager, asynccontextmanager, suppress
from pathlib import Path
from typing import IO, TYPE_CHECKING

from superfluid.state.errors import StateError, check_writable

if TYPE_CHECKING:
    from superfluid.state.database import Database

TEMP_PREFIX = ".upload-"
CHUNK = 1024 * 1024
"""Bytes per download chunk, and per ``file_contents`` row."""


def fsync_dir(directory: Path) -> None:
    """Make a rename in ``directory`` durable (where the platform can open a directory)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


async def _file_chunks(handle: IO[bytes]) -> AsyncIterator[bytes]:
    try:
        while chunk := await asyncio.to_thread(handle.read, CHUNK):
            yield chunk
    finally:
        handle.close()


class Contents(ABC):
    """The interface both content stores keep; ``directory`` stages uploads on local disk."""

    def __init__(self, db: Database, directory: Path) -> None:
        self._db = db
        self.directory = directory

    def temp_path(self) -> Path:
        """A fresh temporary path inside the staging directory (same file system as ``files/<id>``).
        StorageUnavailable (503) before anything is written when the directory cannot be written: it is made
        again if it was removed while serving (docs/limits.md, "Storage faults")."""
        with suppress(OSError):  # told below
            self.directory.mkdir(parents=True, exist_ok=True)
        check_writable(self.directory)
        return self.directory / f"{TEMP_PREFIX}{secrets.token_hex(8)}"

    @abstractmethod
    async def prepare(self) -> int:
        """Create the staging directory and remove what a crash left in it; returns how many files went."""

    @abstractmethod
    def place(self, conn: sqlite3.Connection, temp: Path, file_id: str) -> None:
        """Inside the write transaction that adds ``file_id``'s row: store the bytes staged at ``temp``. The
        caller removes ``temp`` after the transaction, whatever its outcome."""

    @abstractmethod
    def discard(self, file_ids: Iterable[str]) -> None:
        """After the deletion of these files' rows is committed: release their bytes."""

    @abstractmethod
    async def open(self, file_id: str) -> AsyncIterator[bytes] | None:
        """The file's bytes as chunks, or None when they are gone; opened before this returns."""

    @abstractmethod
    def local_copy(self, file_id: str) -> AbstractAsyncContextManager[Path]:
        """A path on local disk holding the file's bytes for as long as the context lasts."""


class DiskContents(Contents):
    """SQLite's content store: ``files/<id>`` on local disk."""

    def path_of(self, file_id: str) -> Path:
        return self.directory / file_id

    async def prepare(self) -> int:
        """Also remove bytes no row names (renamed into place by a write that never committed)."""
        self.directory.mkdir(parents=True, exist_ok=True)
        known = set(await self._db.read(lambda conn: [str(r[0]) for r in conn.execute("SELECT id FROM files")]))
        removed = 0
        for entry in self.directory.iterdir():
            if entry.is_file() and entry.name not in known:
                entry.unlink(missing_ok=True)
                removed += 1
        return removed

    def place(self, conn: sqlite3.Connection, temp: Path, file_id: str) -> None:
        os.replace(temp, self.path_of(file_id))
        fsync_dir(self.directory)

    def discard(self, file_ids: Iterable[str]) -> None:
        for file_id in file_ids:
            self.path_of(file_id).unlink(missing_ok=True)

    async def open(self, file_id: str) -> AsyncIterator[bytes] | None:
        try:
            handle = await asyncio.to_thread(self.path_of(file_id).open, "rb")
        except FileNotFoundError:
            return None
        return _file_chunks(handle)

    @asynccontextmanager
    async def local_copy(self, file_id: str) -> AsyncIterator[Path]:
        yield self.path_of(file_id)


def _chunk(conn: sqlite3.Connection, file_id: str, index: int) -> bytes | None:
    """Chunk ``index`` of a file; b"" past its end; None when the file's row is gone."""
    row = conn.execute("SELECT data FROM file_contents WHERE file_id = ? AND chunk = ?", (file_id, index)).fetchone()
    if row is not None:
        return bytes(row[0])
    return b"" if conn.execute("SELECT 1 FROM files WHERE id = ?", (file_id,)).fetchone() else None


class TableContents(Contents):
    """PostgreSQL's content store: the ``file_contents`` table, next to the rows every replica shares."""

    async def prepare(self) -> int:
        """Only staged uploads can be left behind here: the bytes themselves commit with their row."""
        self.directory.mkdir(parents=True, exist_ok=True)
        removed = 0
        for entry in self.directory.iterdir():
            if entry.is_file() and entry.name.startswith(TEMP_PREFIX):
                entry.unlink(missing_ok=True)
                removed += 1
        return removed

    def place(self, conn: sqlite3.Connection, temp: Path, file_id: str) -> None:
        with temp.open("rb") as source:
            index = 0
            while True:
                data = source.read(CHUNK)
                if not data and index:
                    return
                conn.execute("INSERT INTO file_contents (file_id, chunk, data) VALUES (?, ?, ?)",
                             (file_id, index, data))
                index += 1

    def discard(self, file_ids: Iterable[str]) -> None:
        """Nothing: the rows went with the file's row (ON DELETE CASCADE), in its transaction."""

    async def _read(self, file_id: str, index: int) -> bytes | None:
        return await self._db.read(lambda conn: _chunk(conn, file_id, index))

    async def open(self, file_id: str) -> AsyncIterator[bytes] | None:
        first = await self._read(file_id, 0)
        if first is None:
            return None

        async def chunks() -> AsyncIterator[bytes]:
            data: bytes | None = first
            index = 0
            while data:
                yield data
                index += 1
                data = await self._read(file_id, index)
                if data is None:
                    raise StateError(f"file '{file_id}' was deleted during its download")

        return chunks()

    @asynccontextmanager
    async def local_copy(self, file_id: str) -> AsyncIterator[Path]:
        temp = self.temp_path()
        try:
            with temp.open("wb") as out:
                chunks = await self.open(file_id)
                if chunks is None:
                    raise FileNotFoundError(f"no bytes stored for file '{file_id}'")
                async for data in chunks:
                    await asyncio.to_thread(out.write, data)
            yield temp
        finally:
            temp.unlink(missing_ok=True)
