"""The decode thread count beside other processes (engine/scheduling/cpu_share.py): the reading of /proc's tick
counts, the policy (down at once, back up after the cores stayed free, waiting longer after each relapse), and
when llama.cpp is told."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import llama_cpp
import pytest

from superfluid.engine.scheduling.cpu_share import (
    CALM_FIRST_S,
    CALM_MOST_S,
    FORGIVE_S,
    LOOK_EVERY_S,
    CpuShare,
    read_proc,
)


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _share(most: int = 2, cpus: int = 2) -> CpuShare:
    share = CpuShare(most, adapt=False)  # no look at construction: the tests drive observe() themselves
    share._cpus = cpus
    return share


def test_others_is_the_busy_ticks_not_this_process_s_in_cores() -> None:
    share = _share()
    assert share.others((1000, 2000, 100)) is None  # the first look has nothing to compare with
    # 200 ticks passed on 2 cores (100 per core); 150 were busy, 60 of them this process's: 0.9 cores of others.
    assert share.others((1150, 2200, 160)) == pytest.approx(0.9)
    assert share.others((1150, 2200, 160)) is None  # no time passed


def test_down_at_once_up_after_the_cores_stayed_free() -> None:
    share = _share(most=4, cpus=4)
    share.observe(0.2, 0.0, 0.25)
    assert share.wanted == 4
    share.observe(1.6, 0.25, 0.5)  # two cores' worth of others
    assert share.wanted == 2
    share.observe(3.9, 0.5, 0.75)
    assert share.wanted == 1  # never below one
    share.observe(0.1, 0.75, 1.0)
    assert share.wanted == 1  # free for a quarter second only
    share.observe(0.1, 1.0, 0.75 + CALM_FIRST_S)
    assert share.wanted == 4


def test_a_busy_look_starts_the_calm_again() -> None:
    share = _share()
    share.observe(1.0, 0.0, 0.25)
    share.observe(0.0, 0.25, 0.5)
    share.observe(1.0, 0.5, 0.75)
    share.observe(0.0, 0.75, 1.0)
    assert share.wanted == 1
    share.observe(0.0, 1.0, 0.75 + CALM_FIRST_S)
    assert share.wanted == 2


def test_a_pause_with_free_cores_counts_as_calm() -> None:
    share = _share()
    share.observe(1.0, 0.0, 0.25)
    share.observe(0.0, 0.25, 30.0)  # a long pause in decoding, the cores free all along
    assert share.wanted == 2


def test_each_relapse_doubles_the_wait_and_a_quiet_minute_forgives() -> None:
    share = _share()
    now = 0.0
    waits = []
    for _ in range(8):
        share.observe(1.0, now, now + LOOK_EVERY_S)  # the neighbour is back: down
        now += LOOK_EVERY_S
        assert share.wanted == 1
        start = now
        while share.wanted == 1:  # free looks until the count goes back up
            share.observe(0.0, now, now + LOOK_EVERY_S)
            now += LOOK_EVERY_S
        waits.append(now - start)
    assert waits[0] == pytest.approx(CALM_FIRST_S)
    assert waits[1] == pytest.approx(2 * CALM_FIRST_S)
    assert waits[-1] == pytest.approx(CALM_MOST_S)
    share.observe(0.0, now, now + FORGIVE_S + 1)  # a minute and more at every core
    now += FORGIVE_S + 1
    share.observe(1.0, now, now + LOOK_EVERY_S)
    now += LOOK_EVERY_S
    share.observe(0.0, now, now + CALM_FIRST_S)
    assert share.wanted == 2


def _samples(values: list[tuple[int, int, int]]) -> Iterator[tuple[int, int, int]]:
    yield from values


def test_llama_cpp_is_told_only_when_a_context_needs_another_count(monkeypatch: pytest.MonkeyPatch) -> None:
    told: list[tuple[Any, int, int]] = []
    monkeypatch.setattr(llama_cpp, "llama_set_n_threads", lambda ctx, n, nb: told.append((ctx, n, nb)))
    # At load; then both cores busy with others' work; then free, look after look.
    samples = _samples([(0, 0, 0), (50, 50, 0), *((50, 50 + 50 * i, 0) for i in range(1, 8))])
    clock = _Clock()
    share = CpuShare(2, adapt=True, reader=lambda: next(samples), clock=clock)
    share._cpus = 2
    first, second = object(), object()
    clock.now = LOOK_EVERY_S / 2
    share.before_decode(first)  # too soon to look again after the look at load
    assert told == []
    clock.now = LOOK_EVERY_S
    share.before_decode(first)  # 50 of 50 ticks busy, none ours: both cores taken by others
    assert told == [(first, 1, 1)]
    share.before_decode(first)
    share.before_decode(second)  # another context (the batch-invariant lane's) gets the count too
    assert told == [(first, 1, 1), (second, 1, 1)]
    look = 1
    while share.wanted == 1:
        look += 1
        clock.now = look * LOOK_EVERY_S
        share.before_decode(first)
    assert told[-1] == (first, 2, 2)


def test_an_explicit_thread_count_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(llama_cpp, "llama_set_n_threads", lambda *a: pytest.fail("told llama.cpp"))
    share = CpuShare(2, adapt=False, reader=lambda: pytest.fail("looked at /proc"))
    share.before_decode(object())
    assert share.wanted == 2


def test_proc_is_read_on_linux() -> None:
    sample = read_proc()
    assert sample is not None
    busy, total, own = sample
    assert 0 <= busy <= total and own >= 0
