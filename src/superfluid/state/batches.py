"""Batches (``/v1/batches``): one row per batch, plus one ``batch_lines`` row per finished line until the batch
is finalized.

A finished line's result and the batch's counts change in one transaction (``record_line``), so a line is
counted exactly when its result is on disk, and a restarted server skips exactly the lines already recorded.
``finalize`` writes the output and error files' rows, the batch's end state and the removal of its line rows in
one transaction too. Rows carry an ``owner`` (NULL until API keys exist): a caller sees only its own.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from superfluid.errors import BatchQueueFull, InvalidRequest, NotFound
from superfluid.state.database import Database
from superfluid.state.errors import StateError
from superfluid.state.files import ACTIVE_BATCH, FileStore, StoredFile

BATCH_COLUMNS = ("id", "owner", "created_at", "status", "endpoint", "input_file_id", "completion_window",
                 "expires_at", "metadata", "errors", "output_file_id", "error_file_id", "in_progress_at",
                 "finalizing_at", "completed_at", "failed_at", "expired_at", "cancelling_at", "cancelled_at",
                 "total", "completed", "failed", "input_tokens", "output_tokens")
_SELECT = "SELECT " + ", ".join(BATCH_COLUMNS) + " FROM batches"
_TIMESTAMPS = ("created_at", "in_progress_at", "expires_at", "finalizing_at", "completed_at", "failed_at",
               "expired_at", "cancelling_at", "cancelled_at")
_QUEUE_RETRY_S = 30.0


class BatchTaken(StateError):
    """A runner's lease on a batch was taken by another runner (or the batch ended) while it ran a line."""


def new_batch_id() -> str:
    return "batch_" + secrets.token_hex(12)


@dataclass(frozen=True)
class LineResult:
    line: int
    ok: bool
    entry: str
    """The output-file entry as JSON text."""


def batch_object(row: dict[str, Any]) -> dict[str, Any]:
    """OpenAI's batch object from a row."""
    out: dict[str, Any] = {"id": row["id"], "object": "batch", "endpoint": row["endpoint"], "model": None,
                           "errors": None if row["errors"] is None else json.loads(row["errors"]),
                           "input_file_id": row["input_file_id"], "completion_window": row["completion_window"],
                           "status": row["status"], "output_file_id": row["output_file_id"],
                           "error_file_id": row["error_file_id"]}
    out.update({name: row[name] for name in _TIMESTAMPS})
    out["request_counts"] = {"total": row["total"], "completed": row["completed"], "failed": row["failed"]}
    out["usage"] = {"input_tokens": row["input_tokens"], "input_tokens_details": {"cached_tokens": 0},
                    "output_tokens": row["output_tokens"], "output_tokens_details": {"reasoning_tokens": 0},
                    "total_tokens": row["input_tokens"] + row["output_tokens"]}
    out["metadata"] = None if row["metadata"] is None else json.loads(row["metadata"])
    return out


def _fetch(conn: sqlite3.Connection, where: str, args: Sequence[Any]) -> list[dict[str, Any]]:
    rows = conn.execute(f"{_SELECT} WHERE {where}", tuple(args)).fetchall()
    return [dict(zip(BATCH_COLUMNS, row, strict=True)) for row in rows]


class BatchStore:
    """Batches over the sessions database."""

    def __init__(self, db: Database, files: FileStore) -> None:
        self._db = db
        self._files = files

    async def create(self, row: dict[str, Any], *, max_waiting: int) -> dict[str, Any]:
        """Add a batch in ``validating`` (its input file must be the owner's, purpose batch); 429
        batch_queue_full when ``max_waiting`` batches already wait."""

        def work(conn: sqlite3.Connection) -> dict[str, Any]:
            found = self._files.find(conn, row["input_file_id"], row["owner"])
            if found is None:
                raise NotFound(f"no file '{row['input_file_id']}'; upload the input with POST /v1/files",
                               param="input_file_id")
            if found.purpose != "batch":
                raise InvalidRequest(f"file '{found.id}' was uploaded with purpose '{found.purpose}'; a batch's "
                                     "input needs purpose 'batch'", param="input_file_id")
            waiting = int(conn.execute("SELECT count(*) FROM batches WHERE status = 'validating'").fetchone()[0])
            if waiting >= max_waiting:
                raise BatchQueueFull(f"{waiting} batches are already waiting to run (the queue holds {max_waiting}); "
                                  "try again when some have started", retry_after_s=_QUEUE_RETRY_S)
            names = [name for name in BATCH_COLUMNS if name in row]
            conn.execute(f"INSERT INTO batches ({', '.join(names)}) VALUES ({', '.join('?' for _ in names)})",
                         [row[name] for name in names])
            return _fetch(conn, "id = ?", (row["id"],))[0]

        return await self._db.write(work)

    async def get(self, batch_id: str, *, owner: str | None = None, any_owner: bool = False) -> dict[str, Any] | None:
        def work(conn: sqlite3.Connection) -> list[dict[str, Any]]:
            if any_owner:
                return _fetch(conn, "id = ?", (batch_id,))
            return _fetch(conn, "id = ? AND owner IS ?", (batch_id, owner))

        rows = await self._db.read(work)
        return rows[0] if rows else None

    async def page(self, *, owner: str | None = None, limit: int = 20,
                   after: str | None = None) -> tuple[list[dict[str, Any]], bool]:
        """The caller's batches, newest first, and whether more follow."""

        def work(conn: sqlite3.Connection) -> list[dict[str, Any]]:
            where = "owner IS ?"
            args: list[Any] = [owner]
            if after is not None:
                row = conn.execute("SELECT seq FROM batches WHERE id = ?", (after,)).fetchone()
                if row is not None:
                    where += " AND seq < ?"
                    args.append(int(row[0]))
            return _fetch(conn, f"{where} ORDER BY seq DESC LIMIT ?", (*args, limit + 1))

        rows = await self._db.read(work)
        return rows[:limit], len(rows) > limit

    async def unfinished(self) -> list[dict[str, Any]]:
        """Every batch that has not ended, in creation order (what a starting server picks up)."""
        marks = ", ".join("?" for _ in ACTIVE_BATCH)
        return await self._db.read(lambda conn: _fetch(conn, f"status IN ({marks}) ORDER BY seq", ACTIVE_BATCH))

    async def claimable(self, runner: str, *, now: int) -> list[str]:
        """Batches that have not ended and that ``runner`` may pick up: never claimed, or another runner's
        whose lease lapsed or was released. (One ``runner`` itself gave up on waits for another runner.)"""
        marks = ", ".join("?" for _ in ACTIVE_BATCH)
        rows = await self._db.read(lambda conn: conn.execute(
            f"SELECT id FROM batches WHERE status IN ({marks}) AND (runner IS NULL OR (runner <> ? AND "
            "(lease_until IS NULL OR lease_until <= ?))) ORDER BY seq", (*ACTIVE_BATCH, runner, now)).fetchall())
        return [str(r[0]) for r in rows]

    async def claim(self, batch_id: str, runner: str, *, now: int, until: int) -> bool:
        """Take the lease of a batch that has not ended for ``runner`` until ``until``; False when another
        runner's lease still holds it (or it ended)."""
        marks = ", ".join("?" for _ in ACTIVE_BATCH)
        return await self._db.write(lambda conn: conn.execute(
            f"UPDATE batches SET runner = ?, lease_until = ? WHERE id = ? AND status IN ({marks}) AND "
            "(runner IS NULL OR runner = ? OR lease_until IS NULL OR lease_until <= ?)",
            (runner, until, batch_id, *ACTIVE_BATCH, runner, now)).rowcount == 1)

    async def renew(self, runner: str, batch_ids: Sequence[str], *, until: int) -> dict[str, str]:
        """Extend ``runner``'s leases on ``batch_ids``; returns the status of each it still holds."""
        if not batch_ids:
            return {}
        marks = ", ".join("?" for _ in batch_ids)

        def work(conn: sqlite3.Connection) -> dict[str, str]:
            conn.execute(f"UPDATE batches SET lease_until = ? WHERE runner = ? AND id IN ({marks})",
                         (until, runner, *batch_ids))
            rows = conn.execute(f"SELECT id, status FROM batches WHERE runner = ? AND id IN ({marks})",
                                (runner, *batch_ids))
            return {str(r[0]): str(r[1]) for r in rows}

        return await self._db.write(work)

    async def release(self, runner: str) -> None:
        """Give up ``runner``'s leases (a server that stops cleanly): another runner may take them at once."""
        await self._db.write(lambda conn: conn.execute(
            "UPDATE batches SET lease_until = NULL WHERE runner = ?", (runner,)))

    async def update(self, batch_id: str, *, when_status: Sequence[str] = (), **fields: Any) -> dict[str, Any] | None:
        """Set columns of a batch (only while its status is one of ``when_status``, if given); returns the row
        after, or None when the status did not allow it."""
        names = list(fields)
        for name in names:
            if name not in BATCH_COLUMNS:
                raise ValueError(f"no batch column {name}")

        def work(conn: sqlite3.Connection) -> dict[str, Any] | None:
            where, args = "id = ?", [batch_id]
            if when_status:
                where += f" AND status IN ({', '.join('?' for _ in when_status)})"
                args.extend(when_status)
            changed = conn.execute(f"UPDATE batches SET {', '.join(f'{n} = ?' for n in names)} WHERE {where}",
                                   [fields[n] for n in names] + args).rowcount
            return _fetch(conn, "id = ?", (batch_id,))[0] if changed else None

        return await self._db.write(work)

    async def record_line(self, batch_id: str, result: LineResult, *, input_tokens: int = 0,
                          output_tokens: int = 0, runner: str | None = None) -> None:
        """Commit one finished line and count it, together; with ``runner``, only while that runner holds the
        batch and it has not ended (BatchTaken otherwise: a stalled server whose lease another one took)."""

        def work(conn: sqlite3.Connection) -> None:
            if runner is not None:
                row = conn.execute("SELECT runner, status FROM batches WHERE id = ?", (batch_id,)).fetchone()
                if row is None or row[0] != runner or row[1] not in ACTIVE_BATCH:
                    raise BatchTaken(f"batch {batch_id} is no longer held by {runner}")
            conn.execute("INSERT INTO batch_lines (batch_id, line, ok, result) VALUES (?, ?, ?, ?)",
                         (batch_id, result.line, 1 if result.ok else 0, result.entry))
            column = "completed" if result.ok else "failed"
            conn.execute(f"UPDATE batches SET {column} = {column} + 1, input_tokens = input_tokens + ?, "
                         "output_tokens = output_tokens + ? WHERE id = ?", (input_tokens, output_tokens, batch_id))

        await self._db.write(work)

    async def done_lines(self, batch_id: str) -> set[int]:
        """The lines of a batch already recorded."""
        rows = await self._db.read(lambda conn: conn.execute(
            "SELECT line FROM batch_lines WHERE batch_id = ?", (batch_id,)).fetchall())
        return {int(r[0]) for r in rows}

    async def line_page(self, batch_id: str, *, after: int, limit: int = 500) -> list[LineResult]:
        """Recorded lines after line number ``after``, in input order."""
        rows = await self._db.read(lambda conn: conn.execute(
            "SELECT line, ok, result FROM batch_lines WHERE batch_id = ? AND line > ? ORDER BY line LIMIT ?",
            (batch_id, after, limit)).fetchall())
        return [LineResult(int(r[0]), bool(r[1]), str(r[2])) for r in rows]

    async def finalize(self, batch_id: str, outputs: Sequence[tuple[Path, StoredFile, str]],
                       **fields: Any) -> dict[str, Any]:
        """End a batch in one transaction: store each (temp, file record, batch column) in the file store (past
        the quota), set ``fields`` and the file ids on the batch, and drop its line rows; a batch that already
        ended stays as it is. The temps are gone afterwards."""

        def work(conn: sqlite3.Connection) -> dict[str, Any]:
            current = _fetch(conn, "id = ?", (batch_id,))[0]
            if current["status"] not in ACTIVE_BATCH:  # another runner ended it first: keep its files
                return current
            values = dict(fields)
            for temp, record, column in outputs:
                self._files.insert(conn, temp, record, quota=False)
                values[column] = record.id
            names = list(values)
            conn.execute(f"UPDATE batches SET {', '.join(f'{n} = ?' for n in names)} WHERE id = ?",
                         [values[n] for n in names] + [batch_id])
            conn.execute("DELETE FROM batch_lines WHERE batch_id = ?", (batch_id,))
            return _fetch(conn, "id = ?", (batch_id,))[0]

        try:
            return await self._db.write(work)
        finally:
            for temp, _record, _column in outputs:
                temp.unlink(missing_ok=True)
