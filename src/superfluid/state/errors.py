"""What can go wrong with the sessions database: problems for the operator, reported at start-up, and faults of
the storage under it while serving, told to the client as typed errors (``as_storage_error``)."""

from __future__ import annotations

import errno
import sqlite3

from superfluid.errors import StorageFull, StorageUnavailable, SuperfluidError

_FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT})
# SQLite's primary result codes (the low byte of an extended code) that mean the storage, not the statement.
_SQLITE_FULL = 13
_SQLITE_STORAGE = frozenset({8, 10, 11, 14, 26})  # READONLY, IOERR, CORRUPT, CANTOPEN, NOTADB


class StateError(Exception):
    """The sessions database cannot be opened or used."""


class SchemaTooNew(StateError):
    """The database was written by a newer release than this one."""


def as_storage_error(exc: BaseException) -> BaseException:
    """``exc`` as the client should hear of it when it is a fault of the storage: a full file system is
    StorageFull (507), one that cannot be written or read (read-only, removed, corrupt) StorageUnavailable (503).
    Anything else, a bug in a statement included, is returned as it is."""
    if isinstance(exc, SuperfluidError):
        return exc
    full = StorageFull(f"the sessions directory's file system is full; nothing was stored ({exc})")
    unavailable = StorageUnavailable(f"the sessions directory cannot be used now; nothing was stored ({exc})")
    told: BaseException = exc
    if isinstance(exc, sqlite3.Error):
        code = (getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF
        told = full if code == _SQLITE_FULL else unavailable if code in _SQLITE_STORAGE else exc
    elif isinstance(exc, OSError):
        told = full if exc.errno in _FULL_ERRNOS else unavailable
    if told is not exc:
        told.__cause__ = exc  # the fault itself, for the log and for start-up's message
    return told
