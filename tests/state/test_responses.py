"""Stored responses: put, get, the conversation a continuation starts from, delete, input-item pages, bounds;
each test on SQLite and on PostgreSQL (the ``where`` fixture, tests/state/conftest.py)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import pytest

from superfluid.errors import InvalidRequest
from superfluid.state import Bounds, State
from superfluid.state.responses import ResponseStore
from tests.state.conftest import Where

T = TypeVar("T")
UNBOUNDED = Bounds()


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def _response(n: int, created_at: int = 1_000_000, text: str = "reply") -> dict[str, Any]:
    return {"id": f"resp_{n}", "object": "response", "created_at": created_at, "model": "m", "status": "completed",
            "previous_response_id": None,
            "output": [{"type": "message", "id": f"msg_out{n}", "role": "assistant", "status": "completed",
                        "content": [{"type": "output_text", "text": text, "annotations": [], "logprobs": []}]}]}


def _items(n: int, count: int = 1) -> list[dict[str, Any]]:
    return [{"type": "message", "id": f"msg_in{n}_{i}", "role": "user", "status": "completed",
             "content": [{"type": "input_text", "text": f"question {i}"}]} for i in range(count)]


def _with_store(where: Where, scenario: Callable[[ResponseStore, Clock], Awaitable[T]],
                bounds: Bounds = UNBOUNDED) -> T:
    clock = Clock()

    async def run() -> T:
        state = State(where.sessions, bounds, url=where.url)
        state.responses._clock = clock
        await state.open()
        try:
            return await scenario(state.responses, clock)
        finally:
            await state.close()

    return asyncio.run(run())


def test_put_then_get_returns_the_object_as_stored(where: Where) -> None:
    async def scenario(store: ResponseStore, _clock: Clock) -> tuple[Any, Any]:
        await store.put(_response(1, text="héllo ✓"), _items(1))
        return await store.get("resp_1"), await store.get("resp_unknown")

    text, missing = _with_store(where, scenario)
    assert json.loads(text) == _response(1, text="héllo ✓")
    assert missing is None


def test_a_stored_response_survives_reopening_the_directory(where: Where) -> None:
    async def write(store: ResponseStore, _clock: Clock) -> None:
        await store.put(_response(1), _items(1))

    async def read(store: ResponseStore, _clock: Clock) -> Any:
        return await store.conversation("resp_1")

    _with_store(where, write)
    conversation = _with_store(where, read)
    assert [item["id"] for item in conversation] == ["msg_in1_0", "msg_out1"]


def test_conversation_is_input_items_then_output(where: Where) -> None:
    async def scenario(store: ResponseStore, _clock: Clock) -> Any:
        await store.put(_response(1), _items(1, count=3))
        return await store.conversation("resp_1")

    assert [item["id"] for item in _with_store(where, scenario)] == [
        "msg_in1_0", "msg_in1_1", "msg_in1_2", "msg_out1"]


def test_delete_removes_the_response_and_its_items(where: Where) -> None:
    async def scenario(store: ResponseStore, _clock: Clock) -> tuple[Any, ...]:
        await store.put(_response(1), _items(1, count=2))
        first = await store.delete("resp_1")
        again = await store.delete("resp_1")
        return first, again, await store.get("resp_1"), await store.conversation("resp_1"), await store.usage()

    assert _with_store(where, scenario) == (True, False, None, None, (0, 0))


def test_a_response_is_visible_to_its_owner_only(where: Where) -> None:
    async def scenario(store: ResponseStore, _clock: Clock) -> tuple[Any, ...]:
        await store.put(_response(1), _items(1), owner="key-a")
        return (await store.get("resp_1", owner="key-a") is not None, await store.get("resp_1") is None,
                await store.get("resp_1", owner="key-b") is None, await store.delete("resp_1", owner="key-b"))

    assert _with_store(where, scenario) == (True, True, True, False)


def test_input_item_pages_in_both_orders(where: Where) -> None:
    async def scenario(store: ResponseStore, _clock: Clock) -> list[Any]:
        await store.put(_response(1), _items(1, count=5))
        pages = []
        for order in ("asc", "desc"):
            after = None
            while True:
                page = await store.input_items("resp_1", limit=2, order=order, after=after)  # type: ignore[arg-type]
                assert page is not None
                pages.append(([i["id"][-1] for i in page.items], page.has_more))
                if not page.has_more:
                    break
                after = page.items[-1]["id"]
        return pages

    assert _with_store(where, scenario) == [
        (["0", "1"], True), (["2", "3"], True), (["4"], False),
        (["4", "3"], True), (["2", "1"], True), (["0"], False)]


def test_input_items_of_an_unknown_response_or_cursor(where: Where) -> None:
    async def scenario(store: ResponseStore, _clock: Clock) -> Any:
        await store.put(_response(1), _items(1))
        assert await store.input_items("resp_2", limit=20, order="desc") is None
        return await store.input_items("resp_1", limit=20, order="desc", after="msg_nope")

    with pytest.raises(InvalidRequest) as caught:
        _with_store(where, scenario)
    assert caught.value.param == "after"


def test_responses_past_the_age_bound_are_gone(where: Where) -> None:
    async def scenario(store: ResponseStore, clock: Clock) -> tuple[Any, ...]:
        await store.put(_response(1, created_at=int(clock.now)), _items(1))
        clock.now += 61
        expired_read = await store.get("resp_1")
        rows_before = (await store.usage())[0]
        await store.put(_response(2, created_at=int(clock.now)), _items(2))
        return expired_read, rows_before, await store.usage(), await store.get("resp_2") is not None

    expired, rows_before, usage, kept = _with_store(where, scenario, Bounds(max_age_s=60))
    assert expired is None and rows_before == 1  # unreadable at once, removed by the next write
    assert usage[0] == 1 and kept


def test_the_size_bound_removes_the_oldest_first_and_keeps_the_newest(where: Where) -> None:
    async def scenario(store: ResponseStore, _clock: Clock) -> tuple[Any, ...]:
        for n in range(1, 6):
            await store.put(_response(n, text="x" * 300), _items(n))
        present = [n for n in range(1, 6) if await store.get(f"resp_{n}") is not None]
        return present, await store.usage()

    present, (rows, size) = _with_store(where, scenario, Bounds(max_bytes=1500))
    assert present == list(range(6 - len(present), 6)) and 1 <= len(present) < 5
    assert rows == len(present) and size <= 1500


def test_a_response_bigger_than_the_bound_is_still_kept_alone(where: Where) -> None:
    async def scenario(store: ResponseStore, _clock: Clock) -> tuple[Any, ...]:
        await store.put(_response(1), _items(1))
        await store.put(_response(2, text="y" * 5000), _items(2))
        return await store.get("resp_1"), await store.get("resp_2") is not None, (await store.usage())[0]

    assert _with_store(where, scenario, Bounds(max_bytes=1000)) == (None, True, 1)


def test_opening_prunes_what_the_new_bounds_refuse(where: Where) -> None:
    async def write(store: ResponseStore, _clock: Clock) -> None:
        for n in range(1, 4):
            await store.put(_response(n, text="z" * 400), _items(n))

    async def read(store: ResponseStore, _clock: Clock) -> tuple[int, int]:
        return await store.usage()

    _with_store(where, write)
    rows, size = _with_store(where, read, Bounds(max_bytes=1000))
    assert rows == 1 and size <= 1000
