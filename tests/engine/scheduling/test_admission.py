"""Admission's lane choice: a prompt goes to the lane holding most of it."""

from __future__ import annotations

from typing import Any

import pytest

from superfluid.engine.scheduling import admission
from superfluid.engine.scheduling.job import Job, Lane

PREAMBLE = [1, 2, 3, 4, 5, 6, 7]


def _job(prompt: list[int]) -> Any:
    job: Any = object.__new__(Job)  # only the fields placement reads and writes
    job.prompt, job.lane, job.cached, job.pending = tuple(prompt), None, 0, []
    return job


@pytest.fixture
def copies(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int, int]]:
    done: list[tuple[int, int, int]] = []
    monkeypatch.setattr(admission.llama_cpp, "llama_memory_seq_cp",
                        lambda _memory, src, dst, _start, end: done.append((src, dst, end)))
    monkeypatch.setattr(admission.llama_cpp, "llama_memory_seq_rm", lambda *_: True)
    return done


def test_a_continued_conversation_takes_its_own_lane() -> None:
    held = Lane(0, None, None, tokens=[*PREAMBLE, *range(100, 1600)], last_used=5.0)
    job = _job([*held.tokens, 42, 43])
    admission.place(job, [Lane(1, None, None), held])
    assert job.lane is held and job.cached == len(held.tokens)


def test_a_prompt_sent_again_takes_the_lane_that_holds_it_whatever_that_lane_generated() -> None:
    prompt = [*PREAMBLE, 20, 21, 22]
    holder = Lane(0, None, None, tokens=[*prompt, *range(500, 700)], last_used=1.0)
    other = Lane(1, None, None, tokens=[*PREAMBLE, 30], last_used=0.5)
    job = _job(prompt)
    admission.place(job, [other, holder])
    assert job.lane is holder and job.cached == len(prompt) - 1  # the last prompt token is decoded again


def test_a_new_conversation_takes_an_empty_lane_and_copies_the_shared_preamble(copies: list[Any]) -> None:
    held = Lane(0, None, None, tokens=[*PREAMBLE, *range(100, 1600)], last_used=5.0)
    empty = Lane(1, None, None)
    job = _job([*PREAMBLE, *range(2000, 2100)])
    admission.place(job, [held, empty])
    assert job.lane is empty and job.cached == len(PREAMBLE)
    assert copies == [(0, 1, len(PREAMBLE))]
    assert len(held.tokens) == 7 + 1500  # the other conversation stays cached


def test_with_no_empty_lane_the_longest_match_wins(copies: list[Any]) -> None:
    older = Lane(0, None, None, tokens=[*PREAMBLE, *range(100, 200)], last_used=1.0)
    newer = Lane(1, None, None, tokens=[*PREAMBLE, 8, *range(300, 400)], last_used=2.0)
    job = _job([*PREAMBLE, 8, 9, 9])
    admission.place(job, [older, newer])
    assert job.lane is newer and job.cached == len(PREAMBLE) + 1
