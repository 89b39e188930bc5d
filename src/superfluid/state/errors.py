"""What can go wrong with the sessions database: problems for the operator, reported at start-up, and faults of
the storage under it while serving, told to the client as typed errors (``as_storage_error``)."""

from __future__ import annotations

import errno
import os
import sqlite3
import sys
from pathlib import Path

from superfluid.errors import StorageFull, StorageUnavailable

_FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT})
# SQLite's primary result codes (the low byte of an extended code) that mean the storage, not the statement.
_SQLITE_FULL = 13
_SQLITE_STORAGE = frozenset({8, 10, 11, 14, 26})  # READONLY, IOERR, CORRUPT, CANTOPEN, NOTADB


class StateError(Exception):
    """The sessions database cannot be opened or used."""


class SchemaTooNew(StateError):
    """The database was written by a newer release than this one."""


_SAYS = {StorageFull: "the sessions directory's file system is full",
         StorageUnavailable: "the sessions directory cannot be used now"}


def _postgres_kind(exc: BaseException) -> type[StorageFull | StorageUnavailable] | None:
    """The kind of a psycopg error that is the server's or the connection's, not the statement's: a full disk,
    or a connection that failed or was cut (a restart, a failover, the network), a server shutting down or
    starting, a standby that takes no writes. psycopg is only asked when it is loaded (the PostgreSQL backend)."""
    psycopg = sys.modules.get("psycopg")
    if psycopg is None or not isinstance(exc, psycopg.Error):
        return None
    if isinstance(exc, psycopg.errors.DiskFull):
        return StorageFull
    if isinstance(exc, psycopg.OperationalError | psycopg.errors.ReadOnlySqlTransaction):
        return StorageUnavailable
    return None


def as_storage_error(exc: BaseException) -> BaseException:
    """``exc`` as the client should hear of it when it is a fault of the storage: a full file system is
    StorageFull (507), one that cannot be written or read (read-only, removed, corrupt) or a PostgreSQL server
    that cannot be reached StorageUnavailable (503). Anything else, a bug in a statement included, is returned as
    it is."""
    kind: type[StorageFull | StorageUnavailable] | None = None
    if isinstance(exc, sqlite3.Error):
        code = (getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF
        kind = StorageFull if code == _SQLITE_FULL else StorageUnavailable if code in _SQLITE_STORAGE else None
    elif isinstance(exc, OSError):
        kind = StorageFull if exc.errno in _FULL_ERRNOS else StorageUnavailable
    else:
        kind = _postgres_kind(exc)
    if kind is None:
        return exc
    told = kind(f"{_SAYS[kind]}; nothing was stored ({exc})")
    told.__cause__ = exc  # the fault itself, for the log and for start-up's message
    return told


def unavailable(exc: BaseException) -> BaseException:
    """A fault met while opening the store again, serving (its file was removed or replaced): a storage error
    as ``as_storage_error`` tells it, and whatever else it is (a file of a newer schema, not a database) still
    means the store cannot be used now."""
    told = as_storage_error(exc)
    if told is exc and isinstance(exc, Exception):
        told = StorageUnavailable(f"{_SAYS[StorageUnavailable]}; nothing was stored ({exc})")
        told.__cause__ = exc
    return told


def check_writable(path: Path) -> None:
    """Raise StorageUnavailable when ``path`` cannot be written now: a read-only file system or mount (even under
    files already open for writing), no permission, gone. Nothing is opened here: closing any descriptor of a
    database file would drop SQLite's locks on it."""
    if os.access(path, os.W_OK, effective_ids=os.access in os.supports_effective_ids):
        return
    try:
        read_only = os.statvfs(path).f_flag & os.ST_RDONLY
    except OSError as exc:
        raise as_storage_error(exc) from exc
    fault = OSError(errno.EROFS if read_only else errno.EACCES, "cannot be written", str(path))
    raise as_storage_error(fault) from fault
