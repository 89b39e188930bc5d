"""The batch runner: up to ``MAX_RUNNING`` batches at once, several lines of each in flight, resumable.

A batch waits in ``validating`` (in creation order) until one of the ``MAX_RUNNING`` places frees up; then its
input file is checked whole (batches/input.py) and it fails with OpenAI's ``errors`` object, or moves to
``in_progress`` with its request count. Its lines run through the server's own routes (batches/dispatch.py) at
background QoS, ``lines_in_flight`` at a time, each committed with the batch's counts as it finishes
(state/batches.py). Then ``finalizing``: the recorded results become the output file (2xx replies) and the error
file (the rest), in input order, and the batch ``completed``. A cancelled batch stops between lines (the lines in
flight finish and are kept) and ends ``cancelled`` with the files of what ran; one past its completion window
stops the same way and ends ``expired``, each line that never ran in the error file as ``batch_expired``.

A server that stops (or is killed) mid-batch resumes it at start-up: lines already recorded are skipped, the
rest run, so none runs twice (a line is recorded once, with its result) and none is lost.

Several servers on one state (a fleet on PostgreSQL, or on one SQLite directory) each run batches, so a runner
claims a batch before running it: a lease (``LEASE_S``) it renews every ``RENEW_S`` while the batch runs, and
gives up when it stops cleanly. Every ``RENEW_S`` a runner also picks up the batches nobody holds: new ones,
and those of a server that died (its lease lapsed), which it resumes as above. A runner that finds its lease
taken stops that batch at once; a batch that ended is never finalized twice (state/batches.py).
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import os
import secrets
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import IO, Any

from superfluid.batches.dispatch import Dispatch, Reply
from superfluid.batches.input import BatchLine, read_lines, validate
from superfluid.errors import InvalidRequest
from superfluid.http.dialect import Dialect, error_body
from superfluid.state import State, StoredFile
from superfluid.state.batches import BatchTaken, LineResult
from superfluid.state.files import new_file_id

log = logging.getLogger(__name__)

MAX_RUNNING = 4
MAX_WAITING = 256
LINE_MAX_TOKENS = 2048
"""A generation line that names no limit stops here (not at --max-tokens: the operator's flags are for
interactive callers)."""
_LIMIT_FIELDS = {"/v1/chat/completions": ("max_completion_tokens", "max_tokens"),
                 "/v1/completions": ("max_tokens",), "/v1/responses": ("max_output_tokens",),
                 "/v1/messages": ("max_tokens",)}
_RETRY_STATUSES = (429,)
_RETRY_FIRST_S = 1.0
_RETRY_MAX_S = 30.0
LEASE_S = 20
"""Seconds a runner's claim on a batch lasts unless renewed: how long a dead server's batch waits for another."""
RENEW_S = 5.0


def line_body(line: BatchLine, default_model: str) -> dict[str, Any]:
    """What a line sends to its route: its body, with the default model and the line cap filled in."""
    body = dict(line.body)
    body.setdefault("model", default_model)
    limits = _LIMIT_FIELDS.get(line.url, ())
    if limits and all(body.get(name) is None for name in limits):
        body[limits[-1]] = LINE_MAX_TOKENS
    return body


def usage_of(reply: Reply) -> tuple[int, int]:
    """(input tokens, output tokens) of a reply body, whatever the route's usage shape."""
    usage = reply.body.get("usage") if isinstance(reply.body, dict) else None
    if not isinstance(usage, dict):
        return 0, 0
    inputs = usage.get("prompt_tokens", usage.get("input_tokens", 0))
    outputs = usage.get("completion_tokens", usage.get("output_tokens", 0))
    return int(inputs or 0), int(outputs or 0)


def entry(line: BatchLine, status: int | None, body: Any, error: dict[str, str] | None = None) -> str:
    """One output- or error-file line in OpenAI's batch output format."""
    response = None if status is None else {"status_code": status, "request_id": "req_" + secrets.token_hex(12),
                                            "body": body}
    return json.dumps({"id": "batch_req_" + secrets.token_hex(12), "custom_id": line.custom_id,
                       "response": response, "error": error}, ensure_ascii=False)


class BatchRunner:
    def __init__(self, state: State, dispatch: Dispatch, *, default_model: Callable[[], str],
                 lines_in_flight: int = 4, clock: Callable[[], float] = time.time,
                 lease_s: int = LEASE_S, renew_s: float = RENEW_S) -> None:
        self.runner_id = "runner_" + secrets.token_hex(8)
        self._lease_s, self._renew_s = lease_s, renew_s
        self._state = state
        self._dispatch = dispatch
        self._default_model = default_model
        self._in_flight = max(1, lines_in_flight)
        self._clock = clock
        self._waiting: deque[str] = deque()
        self._running: dict[str, asyncio.Task[None]] = {}
        self._stopping: dict[str, asyncio.Event] = {}
        self._side: set[asyncio.Task[None]] = set()
        self._wake = asyncio.Event()
        self._loop_task: asyncio.Task[None] | None = None
        self._lease_task: asyncio.Task[None] | None = None

    def now(self) -> int:
        return int(self._clock())

    async def start(self) -> None:
        """Pick up every batch that had not ended and no live runner holds, in creation order."""
        self._waiting.extend(await self._state.batches.claimable(self.runner_id, now=self.now()))
        self._loop_task = asyncio.create_task(self._schedule(), name="superfluid-batches")
        self._lease_task = asyncio.create_task(self._keep_leases(), name="superfluid-batch-leases")

    async def close(self) -> None:
        """Stop scheduling, cancel the lines in flight (they run again at the next start, here or on another
        server) and give up this runner's leases."""
        tasks = [t for t in (self._loop_task, self._lease_task, *self._running.values(), *self._side)
                 if t is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        try:
            await self._state.batches.release(self.runner_id)
        except Exception:  # the leases lapse by themselves
            log.warning("could not release the batch leases of %s", self.runner_id, exc_info=True)

    async def _keep_leases(self) -> None:
        """Every ``renew_s``: renew the leases of the batches running here (stopping one whose lease another
        runner took, or that another server marked cancelling), then queue the batches nobody holds."""
        while True:
            await asyncio.sleep(self._renew_s)
            try:
                held = await self._state.batches.renew(self.runner_id, list(self._running),
                                                       until=self.now() + self._lease_s)
                for batch_id, task in list(self._running.items()):
                    if batch_id not in held:
                        log.warning("batch %s: another server took its lease; stopping it here", batch_id)
                        task.cancel()
                    elif held[batch_id] == "cancelling" and batch_id in self._stopping:
                        self._stopping[batch_id].set()
                for batch_id in await self._state.batches.claimable(self.runner_id, now=self.now()):
                    self.submit(batch_id)
            except Exception:
                log.warning("batch leases: this round failed; the next one tries again", exc_info=True)

    def submit(self, batch_id: str) -> None:
        """Queue a new batch (once: a batch already waiting or running is not queued again)."""
        if batch_id in self._running or batch_id in self._waiting:
            return
        self._waiting.append(batch_id)
        self._wake.set()

    def cancel(self, batch_id: str) -> None:
        """The batch was marked ``cancelling``: stop it between lines (or at once if it is still waiting)."""
        if batch_id in self._stopping:
            self._stopping[batch_id].set()
        elif batch_id in self._waiting:
            self._waiting.remove(batch_id)
            task = asyncio.create_task(self._run(batch_id))
            self._side.add(task)
            task.add_done_callback(self._side.discard)

    async def _schedule(self) -> None:
        while True:
            while self._waiting and len(self._running) < MAX_RUNNING:
                batch_id = self._waiting.popleft()
                self._stopping[batch_id] = asyncio.Event()
                task = asyncio.create_task(self._run(batch_id), name=f"superfluid-{batch_id}")
                self._running[batch_id] = task
                task.add_done_callback(functools.partial(self._finished, batch_id))
            await self._wake.wait()
            self._wake.clear()

    def _finished(self, batch_id: str, _task: asyncio.Task[None]) -> None:
        self._running.pop(batch_id, None)
        self._stopping.pop(batch_id, None)
        self._wake.set()

    async def _run(self, batch_id: str) -> None:
        try:
            now = self.now()
            if not await self._state.batches.claim(batch_id, self.runner_id, now=now, until=now + self._lease_s):
                return  # another server runs it, or it ended
            await self._advance(batch_id)
        except asyncio.CancelledError:
            raise
        except BatchTaken:
            log.warning("batch %s: another server took its lease; stopping it here", batch_id)
        except Exception:
            log.exception("batch %s stopped; it resumes at the next start, or on another server sharing this "
                          "state once its lease lapses", batch_id)

    async def _advance(self, batch_id: str) -> None:
        store = self._state.batches
        row = await store.get(batch_id, any_owner=True)
        if row is None:
            return
        stop = self._stopping.get(batch_id) or asyncio.Event()
        if row["status"] == "validating":
            row = await self._validate(row)
        if row["status"] == "in_progress":
            expired = await self._run_lines(row, stop)
            if expired:
                await self._finalize(row, "expired")
                return
            row = await store.get(batch_id, any_owner=True) or row
        if row["status"] == "in_progress":
            row = await store.update(batch_id, when_status=("in_progress",), status="finalizing",
                                     finalizing_at=self.now()) or await store.get(batch_id, any_owner=True) or row
        if row["status"] == "finalizing":
            await self._finalize(row, "completed")
        elif row["status"] == "cancelling":
            await self._finalize(row, "cancelled")

    def _input(self, row: dict[str, Any]) -> AbstractAsyncContextManager[Path]:
        """The input file on local disk while the context lasts (a copy where the backend keeps it elsewhere)."""
        return self._state.files.local_copy(str(row["input_file_id"]))

    async def _validate(self, row: dict[str, Any]) -> dict[str, Any]:
        store, batch_id = self._state.batches, str(row["id"])
        try:
            async with self._input(row) as path:
                count, errors = await asyncio.to_thread(validate, path)
        except OSError as exc:
            count, errors = 0, [{"code": "file_unreadable", "message": f"the input file cannot be read: {exc}",
                                 "param": "input_file_id", "line": None}]
        if errors:
            changed = await store.update(batch_id, when_status=("validating",), status="failed",
                                         failed_at=self.now(), errors=json.dumps({"object": "list", "data": errors}))
        else:
            changed = await store.update(batch_id, when_status=("validating",), status="in_progress",
                                         in_progress_at=self.now(), total=count)
        return changed or await store.get(batch_id, any_owner=True) or row

    async def _run_lines(self, row: dict[str, Any], stop: asyncio.Event) -> bool:
        """Run the lines not yet recorded; True if the batch's window closed first."""
        done = await self._state.batches.done_lines(str(row["id"]))
        slots = asyncio.Semaphore(self._in_flight)
        tasks: set[asyncio.Task[None]] = set()
        expired = False
        async with self._input(row) as path:
            lines = read_lines(path)  # a generator: closed below
            try:
                while not stop.is_set():
                    line = await asyncio.to_thread(next, lines, None)
                    if line is None:
                        break
                    if line.index in done:
                        continue
                    if self.now() >= int(row["expires_at"]):
                        expired = True
                        break
                    await slots.acquire()
                    if stop.is_set():
                        slots.release()
                        break
                    task = asyncio.create_task(self._line(row, line))
                    tasks.add(task)
                    task.add_done_callback(functools.partial(_line_done, tasks, slots))
                if tasks:
                    await asyncio.gather(*tasks)
            except BaseException:
                for task in tasks:
                    task.cancel()
                raise
            finally:
                lines.close()
        return expired

    async def _line(self, row: dict[str, Any], line: BatchLine) -> None:
        if line.body.get("stream"):
            error = InvalidRequest("stream is not supported in a batch; leave it out", param="body.stream")
            result = LineResult(line.index, False, entry(line, 400, error_body(Dialect.OPENAI, error)))
            await self._state.batches.record_line(str(row["id"]), result, runner=self.runner_id)
            return
        body = line_body(line, self._default_model())
        wait = _RETRY_FIRST_S
        while True:
            reply = await self._dispatch.post(line.url, body, owner=row["owner"])
            if reply.status not in _RETRY_STATUSES:
                break
            await asyncio.sleep(wait)  # the server is busy with interactive work: this line waits its turn
            wait = min(wait * 2, _RETRY_MAX_S)
        inputs, outputs = usage_of(reply)
        ok = 200 <= reply.status < 300
        result = LineResult(line.index, ok, entry(line, reply.status, reply.body))
        await self._state.batches.record_line(str(row["id"]), result, input_tokens=inputs, output_tokens=outputs,
                                              runner=self.runner_id)

    async def _finalize(self, row: dict[str, Any], status: str) -> None:
        """Write the output and error files and end the batch in ``status``."""
        store, batch_id = self._state.batches, str(row["id"])
        at = self.now()
        if status == "expired":
            done = await store.done_lines(batch_id)
            async with self._input(row) as path:
                unrun = await asyncio.to_thread(lambda: list(_unrun(path, done)))
            for line in unrun:
                error = {"code": "batch_expired", "message": "the batch's completion window closed before this "
                         "request ran"}
                await store.record_line(batch_id, LineResult(line.index, False, entry(line, None, None, error)),
                                        runner=self.runner_id)
        outputs = await self._write_outputs(batch_id, str(row["owner"]) if row["owner"] is not None else None)
        await store.finalize(batch_id, outputs, status=status, **{f"{status}_at": at})
        log.info("batch %s %s", batch_id, status)

    async def _write_outputs(self, batch_id: str, owner: str | None) -> list[tuple[Path, StoredFile, str]]:
        files = self._state.files
        temps = {True: files.temp_path(), False: files.temp_path()}
        sizes = {True: 0, False: 0}
        handles = {ok: path.open("wb") for ok, path in temps.items()}
        try:
            after = -1
            while page := await self._state.batches.line_page(batch_id, after=after):
                await asyncio.to_thread(_write_page, page, handles, sizes)  # the loop never waits on the disk
                after = page[-1].line
            await asyncio.to_thread(_sync_all, list(handles.values()))
        finally:
            for handle in handles.values():
                handle.close()
        created = files.now()
        outputs = []
        for ok, column, suffix in ((True, "output_file_id", "output"), (False, "error_file_id", "error")):
            if not sizes[ok]:
                temps[ok].unlink(missing_ok=True)
                continue
            record = StoredFile(new_file_id(), owner, created, files.expires_at(created, None),
                                f"{batch_id}_{suffix}.jsonl", "batch_output", sizes[ok])
            outputs.append((temps[ok], record, column))
        return outputs


def _line_done(tasks: set[asyncio.Task[None]], slots: asyncio.Semaphore, task: asyncio.Task[None]) -> None:
    tasks.discard(task)
    slots.release()


def _write_page(page: list[LineResult], handles: Mapping[bool, IO[bytes]], sizes: dict[bool, int]) -> None:
    for result in page:
        data = (result.entry + "\n").encode()
        handles[result.ok].write(data)
        sizes[result.ok] += len(data)


def _sync_all(handles: list[IO[bytes]]) -> None:
    for handle in handles:
        handle.flush()
        os.fsync(handle.fileno())


def _unrun(path: Path, done: set[int]) -> Iterator[BatchLine]:
    for line in read_lines(path):
        if line.index not in done:
            yield line
