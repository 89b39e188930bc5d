"""The web listener's chat sessions (docs/web.md): a session is a titled conversation, its messages in order.

Every method takes the caller's ``owner`` (the key --web-key names; None without keys): a caller sees only its
own sessions. A reply being written is stored at once with ``state = 'streaming'`` and a lease that its writer
renews while it writes (``save_reply``); the server that wrote it may die, so a streaming message whose lease has
lapsed is read as ``cut`` (and stored so by the next write that finds it). Its text up to the last save is kept.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from superfluid.state.database import Database

LEASE_S = 10
"""How long a streaming message stays ``streaming`` without its writer renewing it."""

_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
_SESSION_COLUMNS = "id, title, model, system, created_at, updated_at"
_MESSAGE_COLUMNS = "id, session_id, role, content, state, lease_until, body, created_at"


def new_id(prefix: str) -> str:
    return f"{prefix}_{secrets.token_hex(12)}"


@dataclass
class Reply:
    """What an assistant message holds besides its text; saved whole on every ``save_reply``."""

    content: str = ""
    reasoning: str = ""
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    state: str = "streaming"
    finish_reason: str | None = None
    error: dict[str, Any] | None = None
    usage: dict[str, int] | None = None
    tokens_per_second: float | None = None
    model: str | None = None

    def body(self) -> str:
        return _ENCODER.encode({"reasoning": self.reasoning, "tool_calls": self.tool_calls,
                                "finish_reason": self.finish_reason, "error": self.error, "usage": self.usage,
                                "tokens_per_second": self.tokens_per_second, "model": self.model})


def _session(row: tuple[Any, ...]) -> dict[str, Any]:
    return dict(zip(("id", "title", "model", "system", "created_at", "updated_at"), row, strict=True))


def _message(row: tuple[Any, ...], now: int) -> dict[str, Any]:
    message_id, session_id, role, content, state, lease_until, body, created_at = row
    if state == "streaming" and (lease_until is None or lease_until < now):
        state = "cut"
    extra = json.loads(body)
    return {"id": message_id, "session_id": session_id, "role": role, "content": content, "state": state,
            "reasoning": extra.get("reasoning") or "", "tool_calls": extra.get("tool_calls") or [],
            "finish_reason": extra.get("finish_reason"), "error": extra.get("error"), "usage": extra.get("usage"),
            "tokens_per_second": extra.get("tokens_per_second"), "model": extra.get("model"),
            "created_at": created_at}


class SessionStore:
    """Sessions and messages over the state database."""

    def __init__(self, db: Database, clock: Callable[[], float] = time.time) -> None:
        self._db = db
        self._clock = clock

    def _now(self) -> int:
        return int(self._clock())

    @staticmethod
    def _find(conn: sqlite3.Connection, session_id: str, owner: str | None) -> dict[str, Any] | None:
        row = conn.execute(f"SELECT {_SESSION_COLUMNS} FROM web_sessions WHERE id = ? AND owner IS ?",
                           (session_id, owner)).fetchone()
        return None if row is None else _session(row)

    def _messages(self, conn: sqlite3.Connection, session_id: str) -> list[dict[str, Any]]:
        now = self._now()
        rows = conn.execute(f"SELECT {_MESSAGE_COLUMNS} FROM web_messages WHERE session_id = ? ORDER BY seq",
                            (session_id,)).fetchall()
        return [_message(row, now) for row in rows]

    def _message_row(self, conn: sqlite3.Connection, message_id: str) -> dict[str, Any]:
        row = conn.execute(f"SELECT {_MESSAGE_COLUMNS} FROM web_messages WHERE id = ?", (message_id,)).fetchone()
        return _message(row, self._now())

    async def create(self, *, owner: str | None, title: str, model: str | None = None,
                     system: str | None = None) -> dict[str, Any]:
        now = self._now()
        session = {"id": new_id("sess"), "title": title, "model": model, "system": system, "created_at": now,
                   "updated_at": now}
        await self._db.write(lambda conn: conn.execute(
            "INSERT INTO web_sessions (id, owner, title, model, system, created_at, updated_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)", (session["id"], owner, title, model, system, now, now)))
        return session

    async def list(self, *, owner: str | None, limit: int) -> list[dict[str, Any]]:
        rows = await self._db.read(lambda conn: conn.execute(
            f"SELECT {_SESSION_COLUMNS} FROM web_sessions WHERE owner IS ? ORDER BY updated_at DESC, seq DESC "
            "LIMIT ?", (owner, limit)).fetchall())
        return [_session(row) for row in rows]

    async def get(self, session_id: str, *, owner: str | None) -> dict[str, Any] | None:
        """The session with its ``messages``, or None (unknown, deleted or someone else's)."""

        def work(conn: sqlite3.Connection) -> dict[str, Any] | None:
            session = self._find(conn, session_id, owner)
            if session is not None:
                session["messages"] = self._messages(conn, session_id)
            return session

        return await self._db.read(work)

    async def rename(self, session_id: str, title: str, *, owner: str | None) -> dict[str, Any] | None:
        def work(conn: sqlite3.Connection) -> dict[str, Any] | None:
            conn.execute("UPDATE web_sessions SET title = ?, updated_at = ? WHERE id = ? AND owner IS ?",
                         (title, self._now(), session_id, owner))
            return self._find(conn, session_id, owner)

        return await self._db.write(work)

    async def delete(self, session_id: str, *, owner: str | None) -> bool:
        deleted = await self._db.write(lambda conn: conn.execute(
            "DELETE FROM web_sessions WHERE id = ? AND owner IS ?", (session_id, owner)).rowcount)
        if deleted:
            self._db.reclaim()
        return bool(deleted)

    async def fork(self, session_id: str, message_id: str, *, owner: str | None) -> dict[str, Any] | None:
        """A new session holding copies of the messages up to and including ``message_id``; None if the session
        or the message is not there. A copy of a reply still streaming is stored as ``cut``."""

        def work(conn: sqlite3.Connection) -> dict[str, Any] | None:
            source = self._find(conn, session_id, owner)
            if source is None:
                return None
            messages = self._messages(conn, session_id)
            ids = [m["id"] for m in messages]
            if message_id not in ids:
                return None
            now = self._now()
            fork = {**source, "id": new_id("sess"), "title": f"{source['title']} (fork)", "created_at": now,
                    "updated_at": now}
            conn.execute("INSERT INTO web_sessions (id, owner, title, model, system, created_at, updated_at) "
                         "VALUES (?, ?, ?, ?, ?, ?, ?)", (fork["id"], owner, fork["title"], fork["model"],
                                                          fork["system"], now, now))
            conn.executemany(
                "INSERT INTO web_messages (id, session_id, role, content, state, lease_until, body, created_at) "
                "SELECT ?, ?, role, content, CASE WHEN state = 'streaming' THEN 'cut' ELSE state END, NULL, body, "
                "created_at FROM web_messages WHERE id = ?",
                [(new_id("msg"), fork["id"], m["id"]) for m in messages[:ids.index(message_id) + 1]])
            return fork

        return await self._db.write(work)

    async def add_turn(self, session_id: str, *, owner: str | None, user: tuple[str, str] | None, reply_id: str,
                       truncate_from: str | None, model: str | None) -> tuple[dict[str, Any] | None, dict[str, Any]]:
        """In one transaction: drop ``truncate_from`` and every later message, add the user message ``user`` (its
        id and text, if given) and an empty streaming reply ``reply_id``. Returns both new messages. KeyError
        names what is not there (the session, or ``truncate_from`` in it)."""

        def work(conn: sqlite3.Connection) -> tuple[dict[str, Any] | None, dict[str, Any]]:
            session = self._find(conn, session_id, owner)
            if session is None:
                raise KeyError(session_id)
            now = self._now()
            if truncate_from is not None:
                row = conn.execute("SELECT seq FROM web_messages WHERE id = ? AND session_id = ?",
                                   (truncate_from, session_id)).fetchone()
                if row is None:
                    raise KeyError(truncate_from)
                conn.execute("DELETE FROM web_messages WHERE session_id = ? AND seq >= ?", (session_id, row[0]))
            if user is not None:
                conn.execute("INSERT INTO web_messages (id, session_id, role, content, state, lease_until, body, "
                             "created_at) VALUES (?, ?, 'user', ?, 'done', NULL, ?, ?)",
                             (user[0], session_id, user[1], Reply(state="done").body(), now))
            conn.execute("INSERT INTO web_messages (id, session_id, role, content, state, lease_until, body, "
                         "created_at) VALUES (?, ?, 'assistant', '', 'streaming', ?, ?, ?)",
                         (reply_id, session_id, now + LEASE_S, Reply(model=model).body(), now))
            conn.execute("UPDATE web_sessions SET updated_at = ?, model = ? WHERE id = ?",
                         (now, model or session["model"], session_id))
            return (self._message_row(conn, user[0]) if user else None), self._message_row(conn, reply_id)

        return await self._db.write(work)

    async def save_reply(self, message_id: str, reply: Reply) -> None:
        """Store the reply as it stands; a streaming one renews its lease."""
        now = self._now()
        lease = now + LEASE_S if reply.state == "streaming" else None
        await self._db.write(lambda conn: conn.execute(
            "UPDATE web_messages SET content = ?, state = ?, lease_until = ?, body = ? WHERE id = ?",
            (reply.content, reply.state, lease, reply.body(), message_id)))

    async def message(self, message_id: str, *, owner: str | None) -> dict[str, Any] | None:
        """One message of one of the owner's sessions, or None."""

        def work(conn: sqlite3.Connection) -> dict[str, Any] | None:
            row = conn.execute(f"SELECT {', '.join('m.' + c.strip() for c in _MESSAGE_COLUMNS.split(','))} "
                               "FROM web_messages m JOIN web_sessions s ON s.id = m.session_id "
                               "WHERE m.id = ? AND s.owner IS ?", (message_id, owner)).fetchone()
            return None if row is None else _message(row, self._now())

        return await self._db.read(work)

    async def mark_cut(self) -> int:
        """Store every streaming message whose lease lapsed as ``cut`` (at start-up); returns how many."""
        return int(await self._db.write(lambda conn: conn.execute(
            "UPDATE web_messages SET state = 'cut', lease_until = NULL "
            "WHERE state = 'streaming' AND lease_until < ?", (self._now(),)).rowcount))
