"""What can go wrong with the sessions database: problems for the operator, reported at start-up."""

from __future__ import annotations


class StateError(Exception):
    """The sessions database cannot be opened or used."""


class SchemaTooNew(StateError):
    """The database was written by a newer release than this one."""
