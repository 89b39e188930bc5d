"""The schema of the sessions database, as an ordered list of migrations.

The database records its version in the one row of ``schema_version``. Opening it applies, each in its own
transaction, every migration newer than that row, and moves the row along; a database whose version is newer
than any migration here was written by a later release, and is refused rather than guessed at.

To change the schema, append a ``Migration`` with the next version number; never edit one that has shipped.
Tables that belong to a caller (files, batches, keys) carry an ``owner`` column: NULL until API keys exist,
then the key that created the row.
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass

from superfluid.state.errors import SchemaTooNew


@dataclass(frozen=True)
class Migration:
    version: int
    summary: str
    statements: tuple[str, ...]


_VERSION_TABLE = """
CREATE TABLE IF NOT EXISTS schema_version (
    singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
    version INTEGER NOT NULL,
    migrated_at INTEGER NOT NULL
)"""

RESPONSES = Migration(1, "stored responses, their input items, and the store's size accounting", (
    # One row per stored response. ``body`` is the response object as served; ``bytes`` what the row and its
    # input items weigh against --responses-max-bytes. ``seq`` orders rows by when they were stored.
    """CREATE TABLE responses (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        owner TEXT,
        created_at INTEGER NOT NULL,
        model TEXT NOT NULL,
        status TEXT NOT NULL,
        previous_response_id TEXT,
        body TEXT NOT NULL,
        bytes INTEGER NOT NULL
    )""",
    "CREATE INDEX responses_by_age ON responses (created_at)",
    # Every item the response was generated from, earlier turns of its chain included, in order.
    """CREATE TABLE response_input_items (
        response_seq INTEGER NOT NULL REFERENCES responses (seq) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        item_id TEXT NOT NULL,
        body TEXT NOT NULL,
        PRIMARY KEY (response_seq, position)
    ) WITHOUT ROWID""",
    "CREATE INDEX response_input_items_by_id ON response_input_items (response_seq, item_id)",
    # Running totals per kind of stored thing, kept by triggers inside the writing transaction.
    """CREATE TABLE store_usage (
        kind TEXT PRIMARY KEY,
        rows INTEGER NOT NULL,
        bytes INTEGER NOT NULL
    )""",
    "INSERT INTO store_usage (kind, rows, bytes) VALUES ('responses', 0, 0)",
    """CREATE TRIGGER responses_counted AFTER INSERT ON responses BEGIN
        UPDATE store_usage SET rows = rows + 1, bytes = bytes + NEW.bytes WHERE kind = 'responses';
    END""",
    """CREATE TRIGGER responses_uncounted AFTER DELETE ON responses BEGIN
        UPDATE store_usage SET rows = rows - 1, bytes = bytes - OLD.bytes WHERE kind = 'responses';
    END""",
))

FILES_AND_BATCHES = Migration(2, "uploaded files, batches and the finished lines of running batches", (
    # One row per stored file; its bytes live in <sessions>/files/<id>, renamed into place before the row is
    # committed (a crash leaves at most bytes without a row, which start-up removes). NULL expires_at: kept.
    """CREATE TABLE files (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        owner TEXT,
        created_at INTEGER NOT NULL,
        expires_at INTEGER,
        filename TEXT NOT NULL,
        purpose TEXT NOT NULL,
        bytes INTEGER NOT NULL
    )""",
    "CREATE INDEX files_by_expiry ON files (expires_at)",
    "INSERT INTO store_usage (kind, rows, bytes) VALUES ('files', 0, 0)",
    """CREATE TRIGGER files_counted AFTER INSERT ON files BEGIN
        UPDATE store_usage SET rows = rows + 1, bytes = bytes + NEW.bytes WHERE kind = 'files';
    END""",
    """CREATE TRIGGER files_uncounted AFTER DELETE ON files BEGIN
        UPDATE store_usage SET rows = rows - 1, bytes = bytes - OLD.bytes WHERE kind = 'files';
    END""",
    # One row per batch: the batch object's fields as columns (metadata and errors as JSON text).
    """CREATE TABLE batches (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        owner TEXT,
        created_at INTEGER NOT NULL,
        status TEXT NOT NULL,
        endpoint TEXT NOT NULL,
        input_file_id TEXT NOT NULL,
        completion_window TEXT NOT NULL,
        expires_at INTEGER NOT NULL,
        metadata TEXT,
        errors TEXT,
        output_file_id TEXT,
        error_file_id TEXT,
        in_progress_at INTEGER,
        finalizing_at INTEGER,
        completed_at INTEGER,
        failed_at INTEGER,
        expired_at INTEGER,
        cancelling_at INTEGER,
        cancelled_at INTEGER,
        total INTEGER NOT NULL,
        completed INTEGER NOT NULL,
        failed INTEGER NOT NULL,
        input_tokens INTEGER NOT NULL,
        output_tokens INTEGER NOT NULL
    )""",
    "CREATE INDEX batches_by_status ON batches (status, seq)",
    "CREATE INDEX batches_by_input ON batches (input_file_id)",
    # The result of every finished line of a batch not yet finalized (its output-file entry as JSON text);
    # committed with the batch's counts, so a line is counted exactly when it is recorded.
    """CREATE TABLE batch_lines (
        batch_id TEXT NOT NULL,
        line INTEGER NOT NULL,
        ok INTEGER NOT NULL,
        result TEXT NOT NULL,
        PRIMARY KEY (batch_id, line)
    )""",
))

FILE_CONTENTS = Migration(3, "stored files' bytes, for the backends that keep them in the database", (
    # The PostgreSQL backend's content store (state/contents.py): a file's bytes in order, one row per chunk,
    # inserted in the file row's transaction and deleted with it. SQLite keeps bytes on local disk and leaves
    # this table empty; it exists there too so both backends have one schema.
    """CREATE TABLE file_contents (
        file_id TEXT NOT NULL REFERENCES files (id) ON DELETE CASCADE,
        chunk INTEGER NOT NULL,
        data BLOB NOT NULL,
        PRIMARY KEY (file_id, chunk)
    )""",
))

BATCH_LEASES = Migration(4, "which runner holds a batch, and until when", (
    # Several servers on one state (a fleet) each run batches: a runner claims a batch before running it and
    # renews the lease while it runs; a batch whose lease lapsed (its server died) is free for any runner.
    "ALTER TABLE batches ADD COLUMN runner TEXT",
    "ALTER TABLE batches ADD COLUMN lease_until INTEGER",
))

WEB_SESSIONS = Migration(5, "the web listener's chat sessions and their messages", (
    # One row per session (state/web_sessions.py); ``updated_at`` orders the session list.
    """CREATE TABLE web_sessions (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        owner TEXT,
        title TEXT NOT NULL,
        model TEXT,
        system TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
    )""",
    "CREATE INDEX web_sessions_by_update ON web_sessions (owner, updated_at)",
    # One row per message, ordered by ``seq``. A reply being written is ``streaming`` and holds a lease that its
    # writer renews; one whose lease lapsed (its server stopped) reads as ``cut``. ``body`` is the rest of the
    # message (reasoning, tool calls, usage, error) as JSON text.
    """CREATE TABLE web_messages (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        session_id TEXT NOT NULL REFERENCES web_sessions (id) ON DELETE CASCADE,
        role TEXT NOT NULL,
        content TEXT NOT NULL,
        state TEXT NOT NULL,
        lease_until INTEGER,
        body TEXT NOT NULL,
        created_at INTEGER NOT NULL
    )""",
    "CREATE INDEX web_messages_by_session ON web_messages (session_id, seq)",
))

MIGRATIONS: tuple[Migration, ...] = (RESPONSES, FILES_AND_BATCHES, FILE_CONTENTS, BATCH_LEASES, WEB_SESSIONS)


def check_order(migrations: tuple[Migration, ...]) -> None:
    """Versions run 1, 2, 3, ... with no gap."""
    for expected, migration in enumerate(migrations, start=1):
        if migration.version != expected:
            raise ValueError(f"migration '{migration.summary}' has version {migration.version}, "
                             f"expected {expected}")


def current_version(conn: sqlite3.Connection) -> int:
    """The recorded schema version; 0 for a database that has none yet."""
    exists = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'").fetchone()
    if not exists:
        return 0
    row = conn.execute("SELECT version FROM schema_version WHERE singleton = 1").fetchone()
    return int(row[0]) if row else 0


def migrate(conn: sqlite3.Connection, migrations: tuple[Migration, ...] = MIGRATIONS, *, where: str = "") -> int:
    """Apply every migration newer than the database, one transaction each; returns the final version.

    Each step re-reads the version under the write lock, so two servers opening one database at once apply
    each migration once."""
    check_order(migrations)
    latest = migrations[-1].version if migrations else 0
    while True:
        conn.execute("BEGIN IMMEDIATE")
        try:
            version = current_version(conn)
            if version > latest:
                raise SchemaTooNew(f"the sessions database {where} has schema version {version}, newer than this "
                                   f"release knows ({latest}); run a newer superfluid or use another --sessions")
            if version == latest:
                conn.execute("COMMIT")
                return version
            step = migrations[version]  # versions start at 1, so the next one sits at index ``version``
            conn.execute(_VERSION_TABLE)
            for statement in step.statements:
                conn.execute(statement)
            conn.execute("INSERT INTO schema_version (singleton, version, migrated_at) VALUES (1, ?, ?) "
                         "ON CONFLICT (singleton) DO UPDATE SET version = excluded.version, "
                         "migrated_at = excluded.migrated_at", (step.version, int(time.time())))
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
