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


# ---- a KV stream per lane (non-unified pool) ------------------------------------------------------------------


def _busy(seq: int) -> Lane:
    lane = Lane(seq, None, None, tokens=[*PREAMBLE, 99], last_used=9.0)
    lane.job = object()  # type: ignore[assignment]
    return lane


@pytest.fixture
def loads(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int]]:
    """Copies between streams (llama.cpp's sequence state saved from the donor, loaded into the lane)."""
    done: list[tuple[int, int]] = []

    def load(donor: Lane, lane: Lane) -> bool:
        done.append((donor.seq, lane.seq))
        return True

    monkeypatch.setattr(admission, "_load_copy", load)
    monkeypatch.setattr(admission.llama_cpp, "llama_memory_seq_cp", lambda *_: pytest.fail("a shared-pool copy"))
    monkeypatch.setattr(admission.llama_cpp, "llama_memory_seq_rm", lambda *_: True)
    return done


def test_with_streams_a_new_conversation_sits_beside_the_busy_lanes(loads: list[Any]) -> None:
    # The least recently used lane is 5, but lane 3 is next to the busy lane 2: llama.cpp decodes lanes 2 and 3
    # in one pass, lanes 2 and 5 in two.
    lanes = [Lane(0, None, None, tokens=[*PREAMBLE, 1], last_used=3.0), Lane(1, None, None, tokens=[], last_used=4.0),
             _busy(2), Lane(3, None, None, tokens=[*PREAMBLE, 7], last_used=8.0),
             Lane(4, None, None, tokens=[*PREAMBLE, 3], last_used=6.0), Lane(5, None, None, tokens=[], last_used=0.5)]
    job = _job([*PREAMBLE, 50, 51])
    admission.place(job, lanes, unified=False)
    assert job.lane is lanes[3] and job.cached == len(PREAMBLE)
    assert loads == []  # lane 3 holds the preamble itself


def test_with_streams_an_empty_lane_beside_the_busy_ones_loads_the_preamble(loads: list[Any]) -> None:
    lanes = [_busy(0), Lane(1, None, None), Lane(2, None, None, tokens=[*PREAMBLE, *range(300, 320)], last_used=0.1)]
    job = _job([*PREAMBLE, 50, 51])
    admission.place(job, lanes, unified=False)
    assert job.lane is lanes[1] and job.cached == len(PREAMBLE)
    assert loads == [(0, 1)]


def test_with_streams_a_continued_conversation_keeps_its_own_lane_while_nothing_runs(loads: list[Any]) -> None:
    held = Lane(4, None, None, tokens=[*PREAMBLE, *range(100, 600)], last_used=1.0)
    lanes = [Lane(0, None, None, tokens=[*PREAMBLE, 9], last_used=3.0), Lane(1, None, None), held]
    job = _job([*held.tokens, 42])
    admission.place(job, lanes, unified=False)
    assert job.lane is held and job.cached == len(held.tokens) and loads == []


def test_with_streams_a_continued_conversation_keeps_its_own_lane_away_from_the_busy_ones(loads: list[Any]) -> None:
    # Moving it beside lane 0 would copy all its cells (for a large model, hundreds of MB through host memory).
    held = Lane(4, None, None, tokens=[*PREAMBLE, *range(100, 600)], last_used=1.0)
    lanes = [_busy(0), Lane(1, None, None), held]
    job = _job([*held.tokens, 42])
    admission.place(job, lanes, unified=False)
    assert job.lane is held and job.cached == len(held.tokens) and loads == []


def test_with_streams_an_idle_conversation_beside_the_busy_lane_is_not_evicted_while_a_lane_is_empty(
        loads: list[Any]) -> None:
    idle = Lane(1, None, None, tokens=[*PREAMBLE, *range(100, 1100)], last_used=2.0)
    lanes = [_busy(0), idle, Lane(2, None, None), Lane(3, None, None)]
    job = _job([*PREAMBLE, 70, 71])
    admission.place(job, lanes, unified=False)
    assert job.lane in (lanes[2], lanes[3]) and len(idle.tokens) == 1007
    assert job.cached == len(PREAMBLE)  # the preamble is loaded from lane 0 (the smaller of the two holders)
    assert loads == [(0, job.lane.seq)]


def test_with_streams_beside_counts_only_lanes_under_the_same_adapters(loads: list[Any]) -> None:
    other = _busy(0)
    other.adapters = (("style.gguf", 1.0),)  # type: ignore[assignment]
    lanes = [other, Lane(1, None, None, last_used=5.0), Lane(2, None, None, last_used=1.0)]
    job = _job([*PREAMBLE, 80])
    admission.place(job, lanes, unified=False)
    assert job.lane is lanes[2]  # the least recently used: lane 1 sits beside a lane it never decodes with


def test_with_streams_a_short_prefix_of_a_long_cache_is_prefilled_not_copied(loads: list[Any]) -> None:
    # Copying between streams moves all the donor's cells: 8 tokens out of 1,500 are cheaper to prefill again.
    donor = _busy(0)
    donor.tokens = [*PREAMBLE, *range(100, 1600)]
    empty = Lane(1, None, None)
    job = _job([*PREAMBLE, 5, 6])
    admission.place(job, [donor, empty], unified=False)
    assert job.lane is empty and job.cached == 0 and loads == []


def test_with_streams_the_cheapest_donor_of_the_longest_prefix_is_copied(loads: list[Any]) -> None:
    big = Lane(0, None, None, tokens=[*PREAMBLE, *range(100, 1600)], last_used=5.0)
    small = Lane(1, None, None, tokens=[*PREAMBLE, 8], last_used=5.0)
    big.job = small.job = object()  # type: ignore[assignment]
    job = _job([*PREAMBLE, 60, 61])
    admission.place(job, [big, small, Lane(2, None, None)], unified=False)
    assert job.cached == len(PREAMBLE) and loads == [(1, 2)]


def test_with_streams_a_sliding_window_model_copies_a_partial_prefix_as_a_whole_stream(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # A saved sequence state leaves out the sliding-window cells the donor's newest token no longer needs, which a
    # shorter prefix does need; the whole-stream copy keeps them. A donor holding exactly the prefix is loaded.
    calls: list[tuple[str, int, int]] = []
    monkeypatch.setattr(admission, "_load_copy",
                        lambda donor, lane: calls.append(("load", donor.seq, lane.seq)) or True)
    monkeypatch.setattr(admission.llama_cpp, "llama_memory_seq_cp",
                        lambda _m, src, dst, start, end: calls.append(("stream", src, dst)))
    monkeypatch.setattr(admission.llama_cpp, "llama_memory_seq_rm", lambda *_: True)
    donor = _busy(0)
    donor.tokens = [*PREAMBLE, *range(100, 140)]
    job = _job([*PREAMBLE, *range(100, 120), 5])
    admission.place(job, [donor, Lane(1, None, None)], unified=False, sliding_window=512)
    assert calls == [("stream", 0, 1)] and job.cached == 27
    calls.clear()
    exact = _busy(0)
    exact.tokens = [*PREAMBLE, *range(100, 120)]
    job = _job([*exact.tokens, 6])
    admission.place(job, [exact, Lane(1, None, None)], unified=False, sliding_window=512)
    assert calls == [("load", 0, 1)] and job.cached == 27
