"""The decode thread count beside other processes (engine/scheduling/cpu_share.py): the reading of /proc's tick
counts, the policy (down at once, back up after calm looks), and when llama.cpp is told."""

from __future__ import annotations

from typing import Any

import llama_cpp
import pytest

from superfluid.engine.scheduling.cpu_share import CALM_LOOKS, LOOK_EVERY_S, CpuShare, read_proc


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _share(most: int = 2, cpus: int = 2, *, adapt: bool = True) -> CpuShare:
    share = CpuShare(most, adapt=adapt)
    share._cpus = cpus  # as if the process might run on this many cores
    return share


def test_others_is_the_busy_ticks_not_this_process_s_in_cores() -> None:
    share = _share()
    assert share.others((1000, 2000, 100)) is None  # the first look has nothing to compare with
    # 200 ticks passed on 2 cores (100 per core); 150 were busy, 60 of them this process's: 0.9 cores of others.
    assert share.others((1150, 2200, 160)) == pytest.approx(0.9)
    assert share.others((1150, 2200, 160)) is None  # no time passed


def test_the_count_drops_at_once_and_returns_after_calm_looks() -> None:
    share = _share(most=4, cpus=4)
    share.observe(0.2)
    assert share.wanted == 4
    share.observe(1.6)  # two cores' worth of others
    assert share.wanted == 2
    share.observe(3.9)
    assert share.wanted == 1  # never below one
    for _ in range(CALM_LOOKS - 1):
        share.observe(0.1)
        assert share.wanted == 1
    share.observe(0.1)
    assert share.wanted == 4
    share.observe(0.0)
    assert share.wanted == 4


def test_a_busy_look_between_calm_ones_starts_the_count_again() -> None:
    share = _share()
    share.observe(1.0)
    assert share.wanted == 1
    for _ in range(CALM_LOOKS - 1):
        share.observe(0.0)
    share.observe(1.0)
    for _ in range(CALM_LOOKS - 1):
        share.observe(0.0)
    assert share.wanted == 1
    share.observe(0.0)
    assert share.wanted == 2


def test_llama_cpp_is_told_only_when_a_context_needs_another_count(monkeypatch: pytest.MonkeyPatch) -> None:
    told: list[tuple[Any, int, int]] = []
    monkeypatch.setattr(llama_cpp, "llama_set_n_threads", lambda ctx, n, nb: told.append((ctx, n, nb)))
    busy = [(0, 0, 0), (50, 50, 0)] + [(50, 50 + 50 * i, 0) for i in range(1, CALM_LOOKS + 1)]
    samples = iter(busy)
    clock = _Clock()
    share = CpuShare(2, adapt=True, reader=lambda: next(samples), clock=clock)
    share._cpus = 2
    first, second = object(), object()
    share.before_decode(first)  # first look: nothing to compare
    clock.now = LOOK_EVERY_S / 2
    share.before_decode(first)  # too soon to look again
    assert told == []
    clock.now = LOOK_EVERY_S
    share.before_decode(first)  # 50 of 50 ticks busy, none ours: both cores taken by others
    assert told == [(first, 1, 1)]
    share.before_decode(first)
    share.before_decode(second)  # another context (the batch-invariant lane's) gets the count too
    assert told == [(first, 1, 1), (second, 1, 1)]
    for look in range(2, CALM_LOOKS + 2):  # calm looks, one after another
        clock.now = look * LOOK_EVERY_S
        share.before_decode(first)
    assert told[-1] == (first, 2, 2) and share.wanted == 2


def test_busy_cores_across_a_pause_decide_nothing_and_free_ones_count_as_calm(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(llama_cpp, "llama_set_n_threads", lambda *a: None)
    # (busy, all, own) ticks: others take both cores, then both cores, then nothing, then nothing.
    samples = iter([(0, 0, 0), (100, 100, 0), (150, 150, 0), (150, 250, 0), (150, 300, 0)])
    clock = _Clock()
    share = CpuShare(2, adapt=True, reader=lambda: next(samples), clock=clock)
    share._cpus = 2
    share.before_decode(object())
    clock.now = 10.0  # the engine had nothing to do meanwhile; others used both cores
    share.before_decode(object())
    assert share.wanted == 2
    clock.now = 10.0 + LOOK_EVERY_S  # while decoding: both cores taken by others
    share.before_decode(object())
    assert share.wanted == 1
    clock.now = 20.0  # a pause in which the cores were free: one calm look
    share.before_decode(object())
    assert share.wanted == 1
    clock.now = 20.0 + LOOK_EVERY_S  # and a second, while decoding
    share.before_decode(object())
    assert share.wanted == 2


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
