"""Batch rows: creation against its input file and the waiting queue, line records with their counts, the page,
and finalization's single transaction."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import pytest

from superfluid.errors import InvalidRequest, NotFound, RateLimited
from superfluid.state import Bounds, State, StoredFile
from superfluid.state.batches import BatchTaken, LineResult, batch_object
from tests.state.conftest import Where

T = TypeVar("T")


def _with_state(where: Where, scenario: Callable[[State], Awaitable[T]]) -> T:
    async def run() -> T:
        state = State(where.sessions, Bounds(), url=where.url)
        await state.open()
        try:
            return await scenario(state)
        finally:
            await state.close()

    return asyncio.run(run())


async def _file(state: State, purpose: str = "batch", owner: str | None = None) -> str:
    temp = state.files.temp_path()
    temp.write_bytes(b"{}\n")
    return (await state.files.add(temp, filename="in.jsonl", purpose=purpose, size=3, owner=owner)).id


def _row(batch_id: str, file_id: str, owner: str | None = None) -> dict[str, Any]:
    return {"id": batch_id, "owner": owner, "created_at": 10, "status": "validating", "endpoint": "/v1/embeddings",
            "input_file_id": file_id, "completion_window": "24h", "expires_at": 10 + 86400,
            "metadata": json.dumps({"k": "v"}), "total": 0, "completed": 0, "failed": 0, "input_tokens": 0,
            "output_tokens": 0}


def test_a_batch_needs_its_owners_batch_file_and_a_place_in_the_queue(where: Where) -> None:
    async def scenario(state: State) -> None:
        batches = state.batches
        mine = await _file(state, owner="alice")
        with pytest.raises(NotFound):
            await batches.create(_row("batch_x", mine, owner="bob"), max_waiting=2)
        with pytest.raises(InvalidRequest):
            await batches.create(_row("batch_x", await _file(state, purpose="user_data")), max_waiting=2)
        first = await batches.create(_row("batch_1", mine, owner="alice"), max_waiting=2)
        assert batch_object(first)["metadata"] == {"k": "v"} and batch_object(first)["status"] == "validating"
        await batches.create(_row("batch_2", mine, owner="alice"), max_waiting=2)
        with pytest.raises(RateLimited) as full:
            await batches.create(_row("batch_3", mine, owner="alice"), max_waiting=2)
        assert full.value.code == "batch_queue_full" and full.value.headers["retry-after"]
        await batches.update("batch_1", status="in_progress")
        await batches.create(_row("batch_3", mine, owner="alice"), max_waiting=2)
        page, more = await batches.page(owner="alice", limit=2)
        assert [r["id"] for r in page] == ["batch_3", "batch_2"] and more
        assert [r["id"] for r in (await batches.page(owner="alice", after="batch_2"))[0]] == ["batch_1"]
        assert (await batches.page(owner="bob"))[0] == []
        assert [r["id"] for r in await batches.unfinished()] == ["batch_1", "batch_2", "batch_3"]

    _with_state(where, scenario)


def test_a_line_is_counted_when_it_is_recorded_and_finalize_ends_the_batch_at_once(where: Where) -> None:
    async def scenario(state: State) -> None:
        batches = state.batches
        await batches.create(_row("batch_1", await _file(state)), max_waiting=5)
        assert await batches.update("batch_1", when_status=("in_progress",), status="finalizing") is None
        await batches.update("batch_1", status="in_progress", total=3)
        await batches.record_line("batch_1", LineResult(2, False, '{"n": 2}'))
        await batches.record_line("batch_1", LineResult(0, True, '{"n": 0}'), input_tokens=5, output_tokens=2)
        with pytest.raises(Exception):  # noqa: B017 - a line is recorded once: the primary key says so
            await batches.record_line("batch_1", LineResult(0, True, '{"n": 0}'))
        row = await batches.get("batch_1", any_owner=True)
        assert row is not None and (row["completed"], row["failed"], row["input_tokens"]) == (1, 1, 5)
        assert await batches.done_lines("batch_1") == {0, 2}
        assert [r.line for r in await batches.line_page("batch_1", after=-1)] == [0, 2]
        assert [r.line for r in await batches.line_page("batch_1", after=0)] == [2]
        temp = state.files.temp_path()
        temp.write_bytes(b'{"n": 0}\n')
        record = StoredFile("file-out", None, 20, None, "batch_1_output.jsonl", "batch_output", 9)
        done = await batches.finalize("batch_1", [(temp, record, "output_file_id")], status="completed",
                                      completed_at=21)
        assert done["status"] == "completed" and done["output_file_id"] == "file-out"
        assert await batches.done_lines("batch_1") == set()
        async with state.files.local_copy("file-out") as path:
            assert path.read_bytes() == b'{"n": 0}\n'
        assert not temp.exists()
        assert batch_object(done)["request_counts"] == {"total": 3, "completed": 1, "failed": 1}

    _with_state(where, scenario)


def test_a_lease_lets_one_runner_hold_a_batch_until_it_lapses_or_is_released(where: Where) -> None:
    async def scenario(state: State) -> None:
        batches = state.batches
        await batches.create(_row("batch_1", await _file(state)), max_waiting=5)
        assert await batches.claimable("r1", now=100) == ["batch_1"]
        assert await batches.claim("batch_1", "r1", now=100, until=120)
        assert not await batches.claim("batch_1", "r2", now=110, until=130)  # r1's lease holds
        assert await batches.claimable("r2", now=110) == [] and await batches.claimable("r1", now=110) == []
        assert await batches.renew("r1", ["batch_1"], until=140) == {"batch_1": "validating"}
        assert await batches.claimable("r2", now=130) == []
        assert await batches.claimable("r2", now=140) == ["batch_1"]  # lapsed
        assert await batches.claim("batch_1", "r2", now=140, until=160)
        assert await batches.renew("r1", ["batch_1"], until=170) == {}  # r1 lost it
        with pytest.raises(BatchTaken):
            await batches.record_line("batch_1", LineResult(0, True, "{}"), runner="r1")
        await batches.record_line("batch_1", LineResult(0, True, "{}"), runner="r2")
        await batches.release("r2")
        assert await batches.claimable("r3", now=141) == ["batch_1"]  # released: free at once
        await batches.update("batch_1", status="completed")
        assert not await batches.claim("batch_1", "r3", now=141, until=160)  # an ended batch is nobody's
        with pytest.raises(BatchTaken):
            await batches.record_line("batch_1", LineResult(1, True, "{}"), runner="r2")
        row = await batches.get("batch_1", any_owner=True)
        assert row is not None and row["completed"] == 1

    _with_state(where, scenario)


def test_finalize_leaves_a_batch_that_already_ended_as_it_is(where: Where) -> None:
    async def scenario(state: State) -> None:
        batches = state.batches
        await batches.create(_row("batch_1", await _file(state)), max_waiting=5)
        await batches.update("batch_1", status="completed", output_file_id="file-first")
        temp = state.files.temp_path()
        temp.write_bytes(b"{}\n")
        record = StoredFile("file-second", None, 20, None, "batch_1_output.jsonl", "batch_output", 3)
        done = await batches.finalize("batch_1", [(temp, record, "output_file_id")], status="completed")
        assert done["output_file_id"] == "file-first" and not temp.exists()
        assert await state.files.get("file-second") is None

    _with_state(where, scenario)
