"""The web listener's session store: sessions and their messages, turns, forks, leases of streaming replies;
each test on SQLite and on PostgreSQL (the ``where`` fixture, tests/state/conftest.py)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import pytest

from superfluid.state import Bounds, State
from superfluid.state.web_sessions import LEASE_S, Reply, SessionStore
from tests.state.conftest import Where

T = TypeVar("T")


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def _with_store(where: Where, scenario: Callable[[SessionStore, Clock], Awaitable[T]]) -> T:
    clock = Clock()

    async def run() -> T:
        state = State(where.sessions, Bounds(), url=where.url)
        state.web_sessions._clock = clock
        await state.open()
        try:
            return await scenario(state.web_sessions, clock)
        finally:
            await state.close()

    return asyncio.run(run())


async def _turn(store: SessionStore, session_id: str, n: int, *, owner: str | None = None,
                state: str = "done") -> tuple[dict[str, Any] | None, dict[str, Any]]:
    user, reply = await store.add_turn(session_id, owner=owner, user=(f"msg_u{n}", f"question {n}"),
                                       reply_id=f"msg_a{n}", truncate_from=None, model="m")
    await store.save_reply(reply["id"], Reply(content=f"answer {n}", state=state))
    return user, reply


def test_a_session_holds_its_turns_in_order(where: Where) -> None:
    async def scenario(store: SessionStore, clock: Clock) -> dict[str, Any] | None:
        session = await store.create(owner=None, title="t")
        clock.now += 5
        await _turn(store, session["id"], 1)
        await _turn(store, session["id"], 2)
        return await store.get(session["id"], owner=None)

    session = _with_store(where, scenario)
    assert session is not None and session["model"] == "m" and session["updated_at"] == 1_000_005
    assert [(m["id"], m["role"], m["content"], m["state"]) for m in session["messages"]] == [
        ("msg_u1", "user", "question 1", "done"), ("msg_a1", "assistant", "answer 1", "done"),
        ("msg_u2", "user", "question 2", "done"), ("msg_a2", "assistant", "answer 2", "done")]


def test_sessions_belong_to_their_owner(where: Where) -> None:
    async def scenario(store: SessionStore, _clock: Clock) -> list[Any]:
        mine = await store.create(owner="alice", title="a")
        await store.create(owner="bob", title="b")
        return [await store.list(owner="alice", limit=10), await store.get(mine["id"], owner="bob"),
                await store.delete(mine["id"], owner="bob"), await store.rename(mine["id"], "x", owner="bob"),
                await store.fork(mine["id"], "msg_any", owner="bob")]

    listed, seen, deleted, renamed, forked = _with_store(where, scenario)
    assert [s["title"] for s in listed] == ["a"]
    assert seen is None and deleted is False and renamed is None and forked is None


def test_a_reply_whose_lease_lapsed_reads_as_cut(where: Where) -> None:
    async def scenario(store: SessionStore, clock: Clock) -> list[str]:
        session = await store.create(owner=None, title="t")
        await _turn(store, session["id"], 1, state="streaming")
        states = []
        for step in (LEASE_S - 1, 2):
            clock.now += step
            got = await store.get(session["id"], owner=None)
            assert got is not None
            states.append(got["messages"][-1]["state"])
        states.append(str(await store.mark_cut()))
        return states

    assert _with_store(where, scenario) == ["streaming", "cut", "1"]


def test_a_fork_copies_up_to_the_message(where: Where) -> None:
    async def scenario(store: SessionStore, _clock: Clock) -> tuple[Any, Any, Any]:
        session = await store.create(owner=None, title="t", system="be brief")
        await _turn(store, session["id"], 1)
        await _turn(store, session["id"], 2, state="streaming")
        fork = await store.fork(session["id"], "msg_a2", owner=None)
        assert fork is not None
        return (fork, await store.get(fork["id"], owner=None),
                await store.fork(session["id"], "msg_unknown", owner=None))

    fork, forked, unknown = _with_store(where, scenario)
    assert fork["title"] == "t (fork)" and fork["system"] == "be brief"
    assert [m["content"] for m in forked["messages"]] == ["question 1", "answer 1", "question 2", "answer 2"]
    assert forked["messages"][-1]["state"] == "cut"  # a copy is never written to again
    assert not {m["id"] for m in forked["messages"]} & {"msg_u1", "msg_a1", "msg_u2", "msg_a2"}
    assert unknown is None


def test_a_turn_can_truncate_the_session_first(where: Where) -> None:
    async def scenario(store: SessionStore, _clock: Clock) -> list[str]:
        session = await store.create(owner=None, title="t")
        await _turn(store, session["id"], 1)
        await _turn(store, session["id"], 2)
        await store.add_turn(session["id"], owner=None, user=None, reply_id="msg_a2b", truncate_from="msg_a2",
                             model=None)
        with pytest.raises(KeyError):
            await store.add_turn(session["id"], owner=None, user=None, reply_id="msg_x", truncate_from="msg_a2",
                                 model=None)
        with pytest.raises(KeyError):
            await store.add_turn("sess_unknown", owner=None, user=None, reply_id="msg_y", truncate_from=None,
                                 model=None)
        got = await store.get(session["id"], owner=None)
        assert got is not None
        return [m["id"] for m in got["messages"]]

    assert _with_store(where, scenario) == ["msg_u1", "msg_a1", "msg_u2", "msg_a2b"]


def test_deleting_a_session_deletes_its_messages(where: Where) -> None:
    async def scenario(store: SessionStore, _clock: Clock) -> tuple[bool, Any]:
        session = await store.create(owner=None, title="t")
        await _turn(store, session["id"], 1)
        return await store.delete(session["id"], owner=None), await store.message("msg_a1", owner=None)

    assert _with_store(where, scenario) == (True, None)
