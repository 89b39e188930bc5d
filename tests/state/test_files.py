"""Stored files: add within the quota, pages, owners, expiry, delete (not while a batch reads), start-up sweep, and
the bytes in each backend's content store (local disk on SQLite, the database on PostgreSQL)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

import pytest

from superfluid.errors import Conflict, FilesQuotaExceeded
from superfluid.state import Bounds, FileBounds, State
from superfluid.state.contents import CHUNK
from superfluid.state.errors import StateError
from superfluid.state.files import FileStore
from tests.state.conftest import Where
from tests.state.postgres_server import fresh_database

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


async def _content(store: FileStore, file_id: str) -> bytes | None:
    """A file's bytes as a download reads them, or None when they are gone."""
    chunks = await store.open(file_id)
    return None if chunks is None else b"".join([chunk async for chunk in chunks])


def _staged(store: FileStore) -> list[str]:
    """Unfinished uploads left in the staging directory."""
    return [p.name for p in store.directory.iterdir() if p.name.startswith(".")]


def test_a_file_is_stored_with_its_bytes_and_listed_newest_first(where: Where) -> None:
    async def scenario(state: State, _clock: Clock) -> None:
        store = state.files
        first = await _upload(store, b"one")
        second = await _upload(store, b"two!", purpose="batch")
        assert await _content(store, first) == b"one"
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
        assert not _staged(store)

    _with_state(where, scenario)


def test_the_quota_refuses_an_upload_that_does_not_fit_and_keeps_nothing_of_it(where: Where) -> None:
    async def scenario(state: State, _clock: Clock) -> None:
        store = state.files
        await _upload(store, b"x" * 60)
        with pytest.raises(FilesQuotaExceeded) as refused:
            await _upload(store, b"y" * 41)
        assert refused.value.status == 413 and refused.value.code == "files_quota_exceeded"
        assert await store.usage() == (1, 60)
        assert not _staged(store) and len((await store.page())[0]) == 1
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
        assert await _content(store, mine) is None

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
        assert await _content(store, default) == b"a"  # unlisted, but its bytes wait for the prune
        await _upload(store, b"c")
        assert await _content(store, default) is None and await store.usage() == (2, 2)

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
        assert await store.prune() == 0 and await _content(store, file_id) == b'{"custom_id": "a"}\n'
        await state.batches.update("batch_1", status="completed")
        assert await store.prune() == 1 and await _content(store, file_id) is None

    _with_state(where, scenario, FileBounds(expiry_s=3600))


def test_start_up_removes_unfinished_uploads_and_bytes_without_a_row(where: Where) -> None:
    async def scenario(state: State, _clock: Clock) -> str:
        return await _upload(state.files, b"kept")

    kept = _with_state(where, scenario)
    files = where.sessions / "files"
    (files / ".upload-0123").write_bytes(b"half an upload")
    (files / "file-orphan").write_bytes(b"renamed, never committed")

    async def reopened(state: State, _clock: Clock) -> tuple[list[str], bytes | None]:
        return sorted(p.name for p in state.files.directory.iterdir()), await _content(state.files, kept)

    listed, content = _with_state(where, reopened)
    assert content == b"kept"
    if where.url is None:  # SQLite: the bytes are files/<id>, and a file no row names is a crash's leftover
        assert listed == [kept]
    else:  # PostgreSQL: bytes live in the database; the directory only stages uploads, and only those go
        assert listed == ["file-orphan"]


def test_big_and_empty_files_come_back_whole_in_chunks_and_as_a_local_copy(where: Where) -> None:
    big = bytes(range(256)) * (CHUNK // 256 * 2 + 3)  # two chunks and a bit

    async def scenario(state: State, _clock: Clock) -> None:
        store = state.files
        big_id, empty_id = await _upload(store, big), await _upload(store, b"")
        chunks = await store.open(big_id)
        assert chunks is not None
        sizes = [len(chunk) async for chunk in chunks]
        assert sum(sizes) == len(big) and max(sizes) <= CHUNK
        assert await _content(store, big_id) == big and await _content(store, empty_id) == b""
        async with store.local_copy(big_id) as path:
            assert path.read_bytes() == big
        assert not _staged(store)  # a copy is removed when its context ends
        assert await store.usage() == (2, len(big))

    _with_state(where, scenario)


def test_a_download_under_way_when_its_file_is_deleted(where: Where) -> None:
    """SQLite's open file keeps its bytes; PostgreSQL's chunked read stops short rather than serve a deleted file."""
    data = b"x" * (CHUNK + 10)

    async def scenario(state: State, _clock: Clock) -> None:
        store = state.files
        file_id = await _upload(store, data)
        chunks = await store.open(file_id)
        assert chunks is not None
        first = await anext(chunks)
        assert await store.delete(file_id)
        if where.url is None:
            assert first + b"".join([chunk async for chunk in chunks]) == data
        else:
            with pytest.raises(StateError):
                await anext(chunks)

    _with_state(where, scenario)


def test_on_postgresql_every_replica_sees_the_bytes_and_a_delete_takes_them_from_all(postgres_server: str,
                                                                                      tmp_path: Path) -> None:
    """Two states on one server with different sessions directories: the replicas of a fleet."""
    url = fresh_database(postgres_server)

    async def run() -> None:
        first = State(tmp_path / "replica-a", Bounds(), url=url)
        second = State(tmp_path / "replica-b", Bounds(), url=url)
        await first.open()
        await second.open()
        try:
            file_id = await _upload(first.files, b"shared bytes")
            assert await _content(second.files, file_id) == b"shared bytes"
            async with second.files.local_copy(file_id) as path:
                assert path.read_bytes() == b"shared bytes"
            assert not list((tmp_path / "replica-a" / "files").iterdir())  # nothing kept on A's disk
            assert await second.files.delete(file_id)
            assert await _content(first.files, file_id) is None
            left = await first.database.read(lambda conn: conn.execute(
                "SELECT count(*) FROM file_contents").fetchone()[0])
            assert left == 0
        finally:
            await first.close()
            await second.close()

    asyncio.run(run())
