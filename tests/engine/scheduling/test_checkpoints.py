"""Checkpoints of recurrent state: where a lane saves them, which one a prompt resumes from, and how a lane of a
rollback-free model is placed (the llama.cpp calls replaced by records of what was asked)."""

from __future__ import annotations

from typing import Any

import pytest

from superfluid.engine.scheduling import admission, checkpoints
from superfluid.engine.scheduling.checkpoints import Checkpoint, CheckpointPolicy, branch_points, due, resume_point
from superfluid.engine.scheduling.job import Job, Lane

POLICY = CheckpointPolicy(max_per_lane=4, min_step=100)


def _marks(*counts: int) -> list[Checkpoint]:
    return [Checkpoint(n, None, 1) for n in counts]


def test_branch_points_are_the_generation_prompt_or_the_last_token_and_the_prompt_end() -> None:
    assert branch_points(50, 0, 3, POLICY) == [47, 50]
    assert branch_points(50, 48, 3, POLICY) == [50]  # points behind the cached prefix are not taken again
    assert branch_points(50, 0, 0, POLICY) == [49, 50]  # no chat template: the last prompt token
    assert branch_points(50, 0, 3, CheckpointPolicy(max_per_lane=0)) == []  # --ctx-checkpoints 0


def test_a_lane_resumes_at_its_end_or_at_its_latest_checkpoint_within_the_shared_prefix() -> None:
    tokens = list(range(100))
    assert resume_point(tokens, _marks(40, 60), common=100, limit=150) == 100  # a next turn: the whole lane
    assert resume_point(tokens, _marks(40, 60), common=100, limit=99) == 60  # sent again: the last token decodes
    assert resume_point(tokens, _marks(40, 60), common=59, limit=150) == 40  # branched off between two points
    assert resume_point(tokens, _marks(40, 60), common=30, limit=150) == 0  # before the first one: cold


def test_due_at_a_branch_point_and_every_min_step_of_a_prefill() -> None:
    lane = Lane(0, None, None, tokens=list(range(47)))
    points = [47, 49, 50]
    assert due(lane, points, POLICY) and points == [49, 50]
    lane.tokens = list(range(48))
    assert not due(lane, points, POLICY)
    lane.tokens = list(range(60))  # passed the points without stopping (they lie behind it now)
    assert not due(lane, points, POLICY) and points == []
    long = Lane(0, None, None, tokens=list(range(120)), checkpoints=_marks(10))
    assert due(long, [900], POLICY)  # 110 tokens past the last checkpoint, mid-prefill
    assert not due(long, [], POLICY)  # nothing left to prefill: no spacing checkpoints


def test_a_lane_keeps_its_latest_checkpoints() -> None:
    lane = Lane(0, None, None)
    for n in (10, 30, 20, 40, 50, 30):
        checkpoints.keep(lane, Checkpoint(n, None, 1), POLICY)
    assert [cp.n_tokens for cp in lane.checkpoints] == [20, 30, 40, 50]


# ---- placement of a rollback-free model's job ----------------------------------------------------------------


def _job(prompt: list[int]) -> Any:
    job: Any = object.__new__(Job)
    job.prompt, job.lane, job.cached, job.pending, job.adapters, job.disk = tuple(prompt), None, 0, [], (), None
    return job


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, Any]]:
    """What placement asked of llama.cpp: copies, removals and checkpoint loads (which all succeed)."""
    done: list[tuple[str, Any]] = []
    monkeypatch.setattr(admission.llama_cpp, "llama_memory_seq_cp",
                        lambda _memory, src, dst, start, end: done.append(("cp", (src, dst, start, end))))
    monkeypatch.setattr(checkpoints.llama_cpp, "llama_memory_seq_rm",
                        lambda _memory, seq, start, end: done.append(("rm", (seq, start, end))) or True)
    monkeypatch.setattr(checkpoints.llama_cpp, "llama_state_seq_set_data_ext",
                        lambda _ctx, _payload, size, seq, _flags: done.append(("load", seq)) or size)
    return done


def test_a_next_turn_continues_the_lane_without_touching_it(calls: list[Any]) -> None:
    held = Lane(0, None, None, tokens=list(range(300)), checkpoints=_marks(200, 250))
    job = _job([*range(300), 7, 8, 9])
    admission.place(job, [held, Lane(1, None, None)], rollback=False)
    assert job.lane is held and job.cached == 300 and calls == []
    assert not job.from_checkpoint


def test_a_prompt_sent_again_loads_the_checkpoint_before_its_last_token(calls: list[Any]) -> None:
    held = Lane(0, None, None, tokens=list(range(300)), checkpoints=_marks(199, 200, 250))
    job = _job(list(range(200)))
    admission.place(job, [held, Lane(1, None, None)], rollback=False)
    assert job.lane is held and job.cached == 199 and job.from_checkpoint
    assert calls == [("load", 0), ("rm", (0, 199, -1))]
    assert held.tokens == list(range(199)) and [cp.n_tokens for cp in held.checkpoints] == [199]


def test_another_conversation_copies_a_checkpoint_into_an_empty_lane(calls: list[Any]) -> None:
    held = Lane(0, None, None, tokens=list(range(300)), checkpoints=_marks(120, 250))
    empty = Lane(1, None, None)
    job = _job([*range(130), 999])
    admission.place(job, [held, empty], rollback=False)
    assert job.lane is empty and job.cached == 120
    assert calls == [("rm", (1, -1, -1)), ("cp", (0, 1, 0, 120)), ("load", 1), ("rm", (1, 120, -1))]
    assert len(held.tokens) == 300  # the other conversation stays whole
    assert empty.tokens == list(range(120))


def test_no_checkpoint_within_the_shared_prefix_is_a_cold_prefill(calls: list[Any]) -> None:
    held = Lane(0, None, None, tokens=list(range(300)), checkpoints=_marks(250))
    job = _job([*range(100), 999])
    admission.place(job, [held], rollback=False)
    assert job.cached == 0 and held.tokens == [] and calls == [("rm", (0, -1, -1))]
