"""Stored files: add within the quota, pages, owners, expiry, delete (not while a batch reads), start-up sweep."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

import pytest

from superfluid.errors import Conflict, FilesQuotaExceeded
from superfluid.state import Bounds, FileBounds, State
from superfluid.state.files import FileStore
from tests.state.conftest import Where

T = TypeVar("T")
UNBOUNDED = FileBounds()


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def _with_state(where: Where, scenario: Callable[[State, Clock], Awaitable[T]],
                bounds: FileBounds = UNBOUNDED) -> T:
    clock = Clock()

    async def run() -> T:
        state = State(where.sessions, Bounds(), bounds, url=where.url)
        state.files._clock = clock
        await state.open()
        try:
            return await scenario(state, clock)
        finally:
            await state.close()

    return asyncio.run(run())


async def _upload(store: FileStore, data: bytes, *, purpose: str = "user_data", owner: str | None = None,
                  expires_after_s: int | None = None) -> str:
    temp = store.temp_path()
    temp.write_bytes(data)
    record = await store.add(temp, filename="f.txt", purpose=purpose, size=len(data), owner=owner,
                             expires_after_s=expires_after_s)
    return record.id


def test_a_file_is_stored_with_its_bytes_and_listed_newest_first(where: Where) -> None:
    async def scenario(state: State, _clock: Clock) -> None:
        store = state.files
        first = await _upload(store, b"one")
        second = await _upload(store, b"two!", purpose="batch")
        assert store.path_of(first).read_bytes() == b"one"
        found = await store.get(second)
        assert found is not None and found.bytes == 4 and found.purpose == "batch"
        assert found.to_object()["id"].startswith("file-")
        files, more = await store.page()
        assert [f.id for f in files] == [second, first] and not more
        files, more = await store.page(limit=1, order="asc")
        assert [f.id for f in files] == [first] and more
        assert [f.id for f in (await store.page(order="asc", after=first))[0]] == [second]
        assert [f.id for f in (await store.page(purpose="batch"))[0]] == [second]
        assert await store.usage() == (2, 7)
        assert not [p for p in store.directory.iterdir() if p.name.startswith(".")]

    _with_state(where, scenario)


def test_the_quota_refuses_an_upload_that_does_not_fit_and_keeps_nothing_of_it(where: Where) -> None:
    async def scenario(state: State, _clock: Clock) -> None:
        store = state.files
        await _upload(store, b"x" * 60)
        with pytest.raises(FilesQuotaExceeded) as refused:
            await _upload(store, b"y" * 41)
        assert refused.value.status == 413 and refused.value.code == "files_quota_exceeded"
        assert await store.usage() == (1, 60)
        assert len(list(store.directory.iterdir())) == 1
        await _upload(store, b"z" * 40)  # exactly full is allowed

    _with_state(where, scenario, FileBounds(max_bytes=100))


def test_files_belong_to_their_owner(where: Where) -> None:
    async def scenario(state: State, _clock: Clock) -> None:
        store = state.files
        mine = await _upload(store, b"a", owner="alice")
        assert await store.get(mine, owner="bob") is None and await store.get(mine) is None
        assert (await store.page(owner="bob"))[0] == []
        assert not await store.delete(mine, owner="bob")
        assert await store.delete(mine, owner="alice")
        assert not store.path_of(mine).exists()

    _with_state(where, scenario)


def test_expired_files_vanish_at_once_and_are_removed_by_the_next_write(where: Where) -> None:
    async def scenario(state: State, clock: Clock) -> None:
        store = state.files
        default = await _upload(store, b"a")
        own = await _upload(store, b"b", expires_after_s=7200)
        record = await store.get(default)
        assert record is not None and record.expires_at == record.created_at + 3600
        clock.now += 3600
        assert await store.get(default) is None and await store.get(own) is not None
        assert store.path_of(default).exists()
        await _upload(store, b"c")
        assert not store.path_of(default).exists() and await store.usage() == (2, 2)

    _with_state(where, scenario, FileBounds(expiry_s=3600))


def test_a_file_a_batch_reads_is_neither_deleted_nor_pruned(where: Where) -> None:
    async def scenario(state: State, clock: Clock) -> None:
        store = state.files
        file_id = await _upload(store, b'{"custom_id": "a"}\n', purpose="batch")
        await state.batches.create({"id": "batch_1", "owner": None, "created_at": 1, "status": "in_progress",
                                    "endpoint": "/v1/embeddings", "input_file_id": file_id,
                                    "completion_window": "24h", "expires_at": 2, "total": 1, "completed": 0,
                                    "failed": 0, "input_tokens": 0, "output_tokens": 0}, max_waiting=1)
        with pytest.raises(Conflict) as busy:
            await store.delete(file_id)
        assert busy.value.status == 409 and busy.value.code == "file_in_use"
        clock.now += 7200
        assert await store.prune() == 0 and store.path_of(file_id).exists()
        await state.batches.update("batch_1", status="completed")
        assert await store.prune() == 1 and not store.path_of(file_id).exists()

    _with_state(where, scenario, FileBounds(expiry_s=3600))


def test_start_up_removes_unfinished_uploads_and_bytes_without_a_row(where: Where) -> None:
    async def scenario(state: State, _clock: Clock) -> str:
        return await _upload(state.files, b"kept")

    kept = _with_state(where, scenario)
    files = where.sessions / "files"
    (files / ".upload-0123").write_bytes(b"half an upload")
    (files / "file-orphan").write_bytes(b"renamed, never committed")

    async def reopened(state: State, _clock: Clock) -> list[str]:
        return sorted(p.name for p in state.files.directory.iterdir())

    assert _with_state(where, reopened) == [kept]
