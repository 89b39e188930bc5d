"""Stored responses (the Responses API's ``store: true``): the response object and the items it was made from.

A row holds the response object as served and, in ``response_input_items``, every item its prompt was built
from: the earlier turns of its ``previous_response_id`` chain first, then the request's own input. So a
continuation needs one row, and deleting or pruning an earlier turn never breaks a later one.

Bounds (``--responses-max-age``, ``--responses-max-bytes``; 0 turns either off): a response older than the age
bound is gone at once (reads skip it) and its row is removed by the next write; when the stored bytes pass the
size bound, the responses stored first are removed until they fit, in the same transaction that stored the new
one, which itself is always kept. Rows carry an ``owner`` (NULL until API keys exist): a caller sees only its own.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from superfluid.errors import InvalidRequest
from superfluid.state.database import Database

_NO_CUTOFF = -(2**62)

_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True)
class Bounds:
    max_age_s: float = 0.0
    """Seconds a response is kept after its creation; 0 keeps it for ever."""
    max_bytes: int = 0
    """Most bytes of stored responses (objects and input items, as JSON); 0 means no bound."""


@dataclass(frozen=True)
class ItemPage:
    items: list[dict[str, Any]]
    has_more: bool


class ResponseStore:
    """Stored responses over the sessions database. Every method takes the caller's ``owner`` (None: no keys)."""

    def __init__(self, db: Database, bounds: Bounds, clock: Callable[[], float] = time.time) -> None:
        self._db = db
        self.bounds = bounds
        self._clock = clock

    def _cutoff(self) -> int:
        """Responses created before this are expired."""
        if self.bounds.max_age_s <= 0:
            return _NO_CUTOFF
        return int(self._clock() - self.bounds.max_age_s)

    async def put(self, response: dict[str, Any], input_items: Sequence[dict[str, Any]], *,
                  owner: str | None = None) -> None:
        """Store a finished response and its input items in one transaction (committed when this returns),
        then hold the store to its bounds."""
        body = _ENCODER.encode(response)
        items = [(str(item["id"]), _ENCODER.encode(item)) for item in input_items]
        size = len(body.encode()) + sum(len(text.encode()) for _, text in items)

        def work(conn: sqlite3.Connection) -> int:
            cursor = conn.execute(
                "INSERT INTO responses (id, owner, created_at, model, status, previous_response_id, body, bytes) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING seq",
                (response["id"], owner, int(response["created_at"]), response["model"], response["status"],
                 response.get("previous_response_id"), body, size))
            seq = int(cursor.fetchone()[0])  # RETURNING rather than lastrowid: PostgreSQL has no lastrowid
            rows = ((seq, position, item_id, text) for position, (item_id, text) in enumerate(items))
            conn.executemany("INSERT INTO response_input_items (response_seq, position, item_id, body) "
                             "VALUES (?, ?, ?, ?)", rows)
            return self._prune(conn, keep=seq)

        if await self._db.write(work):
            self._db.reclaim()

    async def prune(self) -> int:
        """Remove what the bounds no longer allow (the newest response stays, as after a write); returns how many
        responses went."""
        def work(conn: sqlite3.Connection) -> int:
            newest = conn.execute("SELECT max(seq) FROM responses").fetchone()[0]
            return self._prune(conn, keep=None if newest is None else int(newest))

        removed = await self._db.write(work)
        if removed:
            self._db.reclaim()
        return removed

    def _prune(self, conn: sqlite3.Connection, *, keep: int | None) -> int:
        keep_seq = -1 if keep is None else keep
        removed = 0
        if self.bounds.max_age_s > 0:
            removed += conn.execute("DELETE FROM responses WHERE created_at < ? AND seq != ?",
                                    (self._cutoff(), keep_seq)).rowcount
        if self.bounds.max_bytes > 0:
            total = int(conn.execute("SELECT bytes FROM store_usage WHERE kind = 'responses'").fetchone()[0])
            excess = total - self.bounds.max_bytes
            victims: list[tuple[int]] = []
            if excess > 0:
                for seq, size in conn.execute("SELECT seq, bytes FROM responses WHERE seq != ? ORDER BY seq",
                                              (keep_seq,)):
                    victims.append((seq,))
                    excess -= size
                    if excess <= 0:
                        break
            conn.executemany("DELETE FROM responses WHERE seq = ?", victims)
            removed += len(victims)
        return removed

    def _find(self, conn: sqlite3.Connection, response_id: str, owner: str | None) -> tuple[int, str] | None:
        row = conn.execute("SELECT seq, body FROM responses WHERE id = ? AND owner IS ? AND created_at >= ?",
                           (response_id, owner, self._cutoff())).fetchone()
        return None if row is None else (int(row[0]), str(row[1]))

    async def get(self, response_id: str, *, owner: str | None = None) -> str | None:
        """The stored response object as JSON text, or None (unknown, deleted, expired or someone else's)."""
        found = await self._db.read(lambda conn: self._find(conn, response_id, owner))
        return None if found is None else found[1]

    async def conversation(self, response_id: str, *, owner: str | None = None) -> list[dict[str, Any]] | None:
        """What a continuation of this response starts from: its input items, then its output; None if not
        stored."""

        def work(conn: sqlite3.Connection) -> tuple[list[str], str] | None:
            found = self._find(conn, response_id, owner)
            if found is None:
                return None
            rows = conn.execute("SELECT body FROM response_input_items WHERE response_seq = ? ORDER BY position",
                                (found[0],)).fetchall()
            return [str(r[0]) for r in rows], found[1]

        result = await self._db.read(work)
        if result is None:
            return None
        items, body = result
        return [json.loads(text) for text in items] + list(json.loads(body).get("output") or [])

    async def delete(self, response_id: str, *, owner: str | None = None) -> bool:
        """Remove a response for good (a later previous_response_id naming it is unknown); False if not there."""
        removed = await self._db.write(lambda conn: conn.execute(
            "DELETE FROM responses WHERE id = ? AND owner IS ? AND created_at >= ?",
            (response_id, owner, self._cutoff())).rowcount)
        if removed:
            self._db.reclaim()
        return bool(removed)

    async def input_items(self, response_id: str, *, limit: int, order: Literal["asc", "desc"],
                          after: str | None = None, owner: str | None = None) -> ItemPage | None:
        """One page of a response's input items; None if the response is not stored. ``after`` is an item id
        of the same response (400 naming ``after`` if it is not one)."""

        def work(conn: sqlite3.Connection) -> tuple[list[str], bool] | None:
            found = self._find(conn, response_id, owner)
            if found is None:
                return None
            seq = found[0]
            where, args = "response_seq = ?", [seq]
            if after is not None:
                row = conn.execute("SELECT min(position) FROM response_input_items "
                                   "WHERE response_seq = ? AND item_id = ?", (seq, after)).fetchone()
                if row is None or row[0] is None:
                    raise InvalidRequest(f"response '{response_id}' has no input item '{after}'", param="after")
                where += " AND position > ?" if order == "asc" else " AND position < ?"
                args.append(int(row[0]))
            direction = "ASC" if order == "asc" else "DESC"
            rows = conn.execute(f"SELECT body FROM response_input_items WHERE {where} "
                                f"ORDER BY position {direction} LIMIT ?", (*args, limit + 1)).fetchall()
            return [str(r[0]) for r in rows[:limit]], len(rows) > limit

        result = await self._db.read(work)
        if result is None:
            return None
        texts, has_more = result
        return ItemPage([json.loads(text) for text in texts], has_more)

    async def usage(self) -> tuple[int, int]:
        """(responses stored, their bytes), expired ones not yet removed included."""
        row = await self._db.read(lambda conn: conn.execute(
            "SELECT rows, bytes FROM store_usage WHERE kind = 'responses'").fetchone())
        return int(row[0]), int(row[1])
