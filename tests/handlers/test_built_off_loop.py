"""Handlers turn a big body into engine types on a preparation thread, with the request's context at hand."""

from __future__ import annotations

import asyncio
import threading
from types import SimpleNamespace
from typing import Any

from connexion import context
from connexion.context import _scope

from superfluid.handlers.context import built
from superfluid.http.offload import Offload
from superfluid.http.validation import BIG_BODY


def _where() -> tuple[str, Any]:
    """The thread it ran on, and what it sees of the request's scope (connexion's context variable)."""
    return threading.current_thread().name, context.scope.get("path")


def _run_in_scope(scope: dict[str, Any]) -> tuple[str, Any]:
    async def go() -> tuple[str, Any]:
        _scope.set(scope)
        return await built(_where)

    return asyncio.run(go())


def test_a_big_body_is_converted_on_a_preparation_thread_seeing_the_request() -> None:
    pool = Offload(1, processes=False)
    try:
        scope = {"path": "/v1/chat/completions", BIG_BODY: True, "state": {"services": SimpleNamespace(offload=pool)}}
        thread, path = _run_in_scope(scope)
        assert thread.startswith("prepare"), thread
        assert path == "/v1/chat/completions"
    finally:
        pool.close()


def test_a_small_body_is_converted_where_the_handler_runs() -> None:
    pool = Offload(1, processes=False)
    try:
        scope = {"path": "/v1/chat/completions", "state": {"services": SimpleNamespace(offload=pool)}}
        assert _run_in_scope(scope) == (threading.current_thread().name, "/v1/chat/completions")
    finally:
        pool.close()
