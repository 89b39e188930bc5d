"""Durable state: one SQLite database under the sessions directory (``--sessions``), or a PostgreSQL server
(``--state postgresql://...``, ``postgres``) that a fleet's replicas share.

Handlers call it; the engine never does. ``database`` runs the work off the event loop (one writer thread,
one reader thread, explicit transactions, WAL); ``migrations`` holds the schema and its version row; each kind of
stored thing has a module of its own (``responses``, ``files``, ``batches``, ``web_sessions``).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from superfluid.state.batches import BatchStore
from superfluid.state.database import Database
from superfluid.state.errors import StateError, as_storage_error
from superfluid.state.files import FILES_DIR, FileBounds, FileStore, StoredFile
from superfluid.state.responses import Bounds, ItemPage, ResponseStore
from superfluid.state.web_sessions import SessionStore

DATABASE_FILE = "state.sqlite3"

__all__ = [
    "BatchStore",
    "Bounds",
    "Database",
    "FileBounds",
    "FileStore",
    "ItemPage",
    "ResponseStore",
    "SessionStore",
    "State",
    "StateError",
    "StoredFile",
    "as_storage_error",
    "unusable",
]


class State:
    """The sessions directory's database and the stores over it."""

    def __init__(self, sessions_dir: Path, responses: Bounds, files: FileBounds | None = None,
                 url: str | None = None) -> None:
        self.sessions_dir = sessions_dir
        self.database = Database(sessions_dir / DATABASE_FILE)
        if url is not None:  # --state postgresql://...: the same stores on a server a fleet shares
            from superfluid.state.postgres import PostgresDatabase, is_postgres

            if not is_postgres(url):
                raise StateError(f"--state takes a postgresql:// URL; got '{url.split(':', 1)[0]}:...'")
            self.database = PostgresDatabase(url)
        self.responses = ResponseStore(self.database, responses)
        self.files = FileStore(self.database, self.database.contents(sessions_dir / FILES_DIR), files or FileBounds())
        self.batches = BatchStore(self.database, self.files)
        self.web_sessions = SessionStore(self.database)

    async def open(self) -> None:
        """Open (creating or migrating) the database, then drop what the bounds no longer allow."""
        await self.database.open()
        await self.responses.prune()
        await self.files.prepare()
        await self.web_sessions.mark_cut()

    async def close(self) -> None:
        await self.database.close()


def unusable(sessions_dir: Path, url: str | None = None) -> str | None:
    """Why the state store cannot be used, or None: the database is created or opened and migrated, then closed
    again, before the server listens (serve stops with the reason; docs/limits.md, "Storage faults")."""

    async def probe() -> None:
        database = State(sessions_dir, Bounds(), url=url).database
        try:
            await database.open()
        finally:
            await database.close()

    try:
        asyncio.run(probe())
    except StateError as exc:
        return str(exc)
    return None
