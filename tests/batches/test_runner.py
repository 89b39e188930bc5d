"""The batch runner over a real state directory and a stand-in for the app's routes: what each line sends, the
output and error files in input order, resuming without rerunning a recorded line, cancelling between lines,
expiry, and a busy server's 429 retried rather than recorded."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

from superfluid.batches.dispatch import Reply
from superfluid.batches.runner import LINE_MAX_TOKENS, BatchRunner
from superfluid.state import Bounds, State
from superfluid.state.batches import LineResult

T = TypeVar("T")


class Routes:
    """Answers like the app would: 200 with usage, 400 for a body flagged bad; can be held or made busy."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, dict[str, Any]]] = []
        self.gate: asyncio.Event | None = None
        self.busy_replies = 0

    async def post(self, path: str, body: dict[str, Any], *, owner: str | None) -> Reply:
        if self.busy_replies:
            self.busy_replies -= 1
            return Reply(429, {"error": {"message": "queue full"}})
        self.seen.append((path, body))
        if self.gate is not None:
            await self.gate.wait()
        if body.get("bad"):
            return Reply(400, {"error": {"message": "bad", "type": "invalid_request_error"}})
        return Reply(200, {"echo": body.get("input"), "usage": {"prompt_tokens": 3, "completion_tokens": 2}})


def _line(i: int, **body: Any) -> dict[str, Any]:
    return {"custom_id": f"c{i}", "method": "POST", "url": "/v1/chat/completions",
            "body": {"messages": [{"role": "user", "content": "x"}], "input": i, **body}}


def _run(tmp_path: Path, scenario: Callable[[State, Routes], Awaitable[T]]) -> T:
    async def run() -> T:
        state = State(tmp_path / "sessions", Bounds())
        await state.open()
        try:
            return await scenario(state, Routes())
        finally:
            await state.close()

    return asyncio.run(run())


async def _batch(state: State, lines: list[dict[str, Any]], *, status: str = "validating", total: int = 0,
                 expires_at: int = 2**40) -> str:
    temp = state.files.temp_path()
    data = "".join(json.dumps(line) + "\n" for line in lines).encode()
    temp.write_bytes(data)
    file = await state.files.add(temp, filename="in.jsonl", purpose="batch", size=len(data), owner=None)
    row = await state.batches.create({"id": "batch_t", "owner": None, "created_at": 1, "status": status,
                                      "endpoint": "/v1/chat/completions", "input_file_id": file.id,
                                      "completion_window": "24h", "expires_at": expires_at, "total": total,
                                      "completed": 0, "failed": 0, "input_tokens": 0, "output_tokens": 0},
                                     max_waiting=10)
    return str(row["id"])


async def _until_ended(state: State, batch_id: str, timeout_s: float = 30) -> dict[str, Any]:
    deadline = asyncio.get_running_loop().time() + timeout_s
    while asyncio.get_running_loop().time() < deadline:
        row = await state.batches.get(batch_id, any_owner=True)
        assert row is not None
        if row["status"] in ("completed", "failed", "cancelled", "expired"):
            return row
        await asyncio.sleep(0.01)
    raise AssertionError("the batch did not end")


def _entries(state: State, file_id: str | None) -> list[dict[str, Any]]:
    if file_id is None:
        return []
    return [json.loads(line) for line in (state.files.directory / file_id).read_text().splitlines()]


def test_lines_run_capped_on_the_default_model_and_land_in_input_order(tmp_path: Path) -> None:
    async def scenario(state: State, routes: Routes) -> None:
        lines = [_line(0), _line(1, bad=True), _line(2, max_tokens=7), _line(3, stream=True),
                 {**_line(4), "url": "/v1/embeddings", "body": {"model": "e", "input": 4}}]
        batch_id = await _batch(state, lines)
        runner = BatchRunner(state, routes, default_model=lambda: "m", lines_in_flight=3)
        await runner.start()
        runner.submit(batch_id)
        row = await _until_ended(state, batch_id)
        await runner.close()
        assert row["status"] == "completed" and (row["total"], row["completed"], row["failed"]) == (5, 3, 2)
        assert (row["input_tokens"], row["output_tokens"]) == (9, 6)
        sent = {body["input"]: (path, body) for path, body in routes.seen}
        assert sent[0][1]["model"] == "m" and sent[0][1]["max_tokens"] == LINE_MAX_TOKENS
        assert sent[2][1]["max_tokens"] == 7 and "max_completion_tokens" not in sent[2][1]
        assert sent[4] == ("/v1/embeddings", {"model": "e", "input": 4})  # embeddings get no token cap
        assert 3 not in sent  # a streaming line is refused without running
        outputs, errors = _entries(state, row["output_file_id"]), _entries(state, row["error_file_id"])
        assert [e["custom_id"] for e in outputs] == ["c0", "c2", "c4"]
        assert [(e["custom_id"], e["response"]["status_code"]) for e in errors] == [("c1", 400), ("c3", 400)]
        assert outputs[0]["response"]["body"]["echo"] == 0 and outputs[0]["error"] is None

    _run(tmp_path, scenario)


def test_a_resumed_batch_runs_only_the_lines_not_recorded(tmp_path: Path) -> None:
    async def scenario(state: State, routes: Routes) -> None:
        batch_id = await _batch(state, [_line(i) for i in range(5)], status="in_progress", total=5)
        recorded = json.dumps({"id": "batch_req_kept", "custom_id": "c1", "response": {"status_code": 200,
                               "request_id": "req_1", "body": {}}, "error": None})
        await state.batches.record_line(batch_id, LineResult(1, True, recorded))
        runner = BatchRunner(state, routes, default_model=lambda: "m")
        await runner.start()  # picks the unfinished batch up by itself
        row = await _until_ended(state, batch_id)
        await runner.close()
        assert sorted(body["input"] for _, body in routes.seen) == [0, 2, 3, 4]
        outputs = _entries(state, row["output_file_id"])
        assert [e["custom_id"] for e in outputs] == ["c0", "c1", "c2", "c3", "c4"]
        assert outputs[1]["id"] == "batch_req_kept" and row["completed"] == 5

    _run(tmp_path, scenario)


def test_cancel_stops_between_lines_and_keeps_what_ran(tmp_path: Path) -> None:
    async def scenario(state: State, routes: Routes) -> None:
        routes.gate = asyncio.Event()
        batch_id = await _batch(state, [_line(i) for i in range(10)])
        runner = BatchRunner(state, routes, default_model=lambda: "m", lines_in_flight=2)
        await runner.start()
        runner.submit(batch_id)
        while len(routes.seen) < 2:
            await asyncio.sleep(0.01)
        await state.batches.update(batch_id, status="cancelling", cancelling_at=5)
        runner.cancel(batch_id)
        routes.gate.set()
        row = await _until_ended(state, batch_id)
        await runner.close()
        assert row["status"] == "cancelled" and row["cancelled_at"] and len(routes.seen) == 2
        assert [e["custom_id"] for e in _entries(state, row["output_file_id"])] == ["c0", "c1"]

    _run(tmp_path, scenario)


def test_a_waiting_batch_is_cancelled_at_once_and_a_late_one_expires(tmp_path: Path) -> None:
    async def scenario(state: State, routes: Routes) -> None:
        batch_id = await _batch(state, [_line(i) for i in range(3)], expires_at=0)
        runner = BatchRunner(state, routes, default_model=lambda: "m")
        await runner.start()
        runner.submit(batch_id)
        row = await _until_ended(state, batch_id)
        await runner.close()
        assert row["status"] == "expired" and routes.seen == [] and row["failed"] == 3
        errors = _entries(state, row["error_file_id"])
        assert [(e["custom_id"], e["error"]["code"], e["response"]) for e in errors] == [
            ("c0", "batch_expired", None), ("c1", "batch_expired", None), ("c2", "batch_expired", None)]

    _run(tmp_path, scenario)


def test_a_busy_server_is_retried_not_recorded(tmp_path: Path, monkeypatch: Any) -> None:
    async def scenario(state: State, routes: Routes) -> None:
        routes.busy_replies = 2
        monkeypatch.setattr("superfluid.batches.runner._RETRY_FIRST_S", 0.01)
        batch_id = await _batch(state, [_line(0)])
        runner = BatchRunner(state, routes, default_model=lambda: "m")
        await runner.start()
        runner.submit(batch_id)
        row = await _until_ended(state, batch_id)
        await runner.close()
        assert row["completed"] == 1 and len(routes.seen) == 1

    _run(tmp_path, scenario)



def test_two_runners_on_one_state_run_a_batch_once(tmp_path: Path) -> None:
    """Two servers sharing one state both find the batch at start-up; the lease lets only one run it."""
    async def scenario(state: State, routes: Routes) -> None:
        batch_id = await _batch(state, [_line(i) for i in range(6)])
        other_routes = Routes()
        runners = [BatchRunner(state, routes, default_model=lambda: "m"),
                   BatchRunner(state, other_routes, default_model=lambda: "m")]
        for runner in runners:
            await runner.start()
        row = await _until_ended(state, batch_id)
        for runner in runners:
            await runner.close()
        assert row["status"] == "completed" and row["completed"] == 6
        assert sorted(len(r.seen) for r in (routes, other_routes)) == [0, 6]

    _run(tmp_path, scenario)


def test_a_dead_runners_batch_is_taken_over_when_its_lease_lapses(tmp_path: Path) -> None:
    """The first runner stalls on a line and never renews (as a killed server); the second takes the batch over
    once the lease lapses, and the stalled line, when it comes back, is not recorded."""
    async def scenario(state: State, routes: Routes) -> None:
        routes.gate = asyncio.Event()
        batch_id = await _batch(state, [_line(i) for i in range(4)])
        stalled = BatchRunner(state, routes, default_model=lambda: "m", lines_in_flight=1, lease_s=1,
                              renew_s=3600)
        await stalled.start()
        while not routes.seen:
            await asyncio.sleep(0.01)
        survivor_routes = Routes()
        survivor = BatchRunner(state, survivor_routes, default_model=lambda: "m", lease_s=1, renew_s=0.05)
        await survivor.start()
        row = await _until_ended(state, batch_id)
        routes.gate.set()  # the stalled line finishes after the batch ended elsewhere
        await asyncio.sleep(0.2)
        after = await state.batches.get(batch_id, any_owner=True)
        await stalled.close()
        await survivor.close()
        assert row["status"] == "completed" and sorted(b["input"] for _, b in survivor_routes.seen) == [0, 1, 2, 3]
        assert after is not None and (after["completed"], after["failed"]) == (4, 0)  # nothing counted twice
        assert len(_entries(state, row["output_file_id"])) == 4

    _run(tmp_path, scenario)


def test_a_runner_that_stops_cleanly_hands_its_batch_over_at_once(tmp_path: Path) -> None:
    async def scenario(state: State, routes: Routes) -> None:
        routes.gate = asyncio.Event()
        batch_id = await _batch(state, [_line(i) for i in range(3)])
        first = BatchRunner(state, routes, default_model=lambda: "m", lines_in_flight=1)
        await first.start()
        while not routes.seen:
            await asyncio.sleep(0.01)
        await first.close()  # the 20 s lease is released, not left to lapse
        second_routes = Routes()
        second = BatchRunner(state, second_routes, default_model=lambda: "m")
        await second.start()
        row = await _until_ended(state, batch_id, timeout_s=10)
        await second.close()
        assert row["status"] == "completed" and len(second_routes.seen) == 3

    _run(tmp_path, scenario)
