"""What can go wrong with the sessions database: problems for the operator, reported at start-up, and faults of
the storage under it while serving, told to the client as typed errors (``as_storage_error``)."""

from __future__ import annotations

import errno
import sqlite3

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


def as_storage_error(exc: BaseException) -> BaseException:
    """``exc`` as the client should hear of it when it is a fault of the storage: a full file system is
    StorageFull (507), one that cannot be written or read (read-only, removed, corrupt) StorageUnavailable (503).
    Anything else, a bug in a statement included, is returned as it is."""
    kind: type[StorageFull | StorageUnavailable] | None = None
    if isinstance(exc, sqlite3.Error):
        code = (getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF
        kind = StorageFull if code == _SQLITE_FULL else StorageUnavailable if code in _SQLITE_STORAGE else None
    elif isinstance(exc, OSError):
        kind = StorageFull if exc.errno in _FULL_ERRNOS else StorageUnavailable
    if kind is None:
        return exc
    told = kind(f"{_SAYS[kind]}; nothing was stored ({exc})")
    told.__cause__ = exc  # the fault itself, for the log and for start-up's message
    return told
