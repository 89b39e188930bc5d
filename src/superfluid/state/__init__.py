"""Durable state: one SQLite database under the sessions directory (``--sessions``).

Handlers call it; the engine never does. ``database`` runs the work off the event loop (one writer thread,
one reader thread, explicit transactions, WAL); ``migrations`` holds the schema and its version row; each kind of
stored thing has a module of its own (``responses``; files and batches to come).
"""

from __future__ import annotations

from pathlib import Path

from superfluid.state.database import Database
from superfluid.state.errors import StateError
from superfluid.state.location import DATABASE_FILE, default_sessions_dir
from superfluid.state.responses import Bounds, ItemPage, ResponseStore

__all__ = ["Bounds", "Database", "ItemPage", "ResponseStore", "State", "StateError", "default_sessions_dir"]


class State:
    """The sessions directory's database and the stores over it."""

    def __init__(self, sessions_dir: Path, responses: Bounds) -> None:
        self.sessions_dir = sessions_dir
        self.database = Database(sessions_dir / DATABASE_FILE)
        self.responses = ResponseStore(self.database, responses)

    async def open(self) -> None:
        """Open (creating or migrating) the database, then drop what the bounds no longer allow."""
        await self.database.open()
        await self.responses.prune()

    async def close(self) -> None:
        await self.database.close()
