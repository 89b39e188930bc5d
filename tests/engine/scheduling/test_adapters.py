"""Adapter turns on the engine thread: lanes under different LoRA adapter sets never share a tick, a set keeps
the context for a run of ticks while another waits, and a prefix cached under one set is not reused under another.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from superfluid.engine.models.adapter_types import ActiveAdapter, AdapterFile, AdapterSet
from superfluid.engine.scheduling import admission
from superfluid.engine.scheduling.adapters import TURN_TICKS, AdapterSwitch
from superfluid.engine.scheduling.job import Lane

STYLE: AdapterSet = (ActiveAdapter("style.gguf", AdapterFile(Path("/a/style.gguf"), 1, 1), 1.0, "lora-dir"),)


def _lane(seq: int, adapters: AdapterSet, arrival: int) -> Lane:
    lane = Lane(seq=seq, ctx=None, memory=None)
    lane.job = SimpleNamespace(adapters=adapters, arrival=arrival)  # type: ignore[assignment]
    return lane


def test_one_set_ticks_all_its_lanes() -> None:
    lanes = [_lane(0, (), 1), _lane(1, (), 2)]
    assert AdapterSwitch(None).pick(lanes) == lanes


def test_two_sets_take_turns_of_a_run_of_ticks_the_running_set_first() -> None:
    old, new = _lane(0, (), 1), _lane(1, STYLE, 5)
    switch = AdapterSwitch(None)
    assert switch.pick([old]) == [old]  # before the change, the base set has the context
    picks = [switch.pick([old, new]) for _ in range(3 * TURN_TICKS)]
    assert all(len(p) == 1 for p in picks)  # never both in one tick
    assert picks[:TURN_TICKS] == [[old]] * TURN_TICKS
    assert picks[TURN_TICKS:2 * TURN_TICKS] == [[new]] * TURN_TICKS
    assert picks[2 * TURN_TICKS:] == [[old]] * TURN_TICKS


def test_a_new_set_gets_the_context_when_the_old_one_has_finished() -> None:
    switch = AdapterSwitch(None)
    old, new = _lane(0, (), 1), _lane(1, STYLE, 5)
    switch.pick([old, new])
    assert switch.pick([new]) == [new]


def test_a_cached_prefix_counts_only_under_the_same_adapters(monkeypatch: pytest.MonkeyPatch) -> None:
    removed: list[tuple[Any, ...]] = []
    monkeypatch.setattr(admission.llama_cpp, "llama_memory_seq_rm", lambda *args: removed.append(args))
    prompt = (1, 2, 3, 4, 5)
    lane = Lane(seq=0, ctx=None, memory="kv", tokens=[1, 2, 3, 4])
    job = SimpleNamespace(prompt=prompt, adapters=STYLE, cached=0, pending=[], lane=None)
    admission.place(job, [lane])  # type: ignore[arg-type]
    assert job.cached == 0 and job.pending == list(prompt)  # computed under the base model: not reused
    assert lane.tokens == [] and lane.adapters == STYLE and removed == [("kv", 0, 0, -1)]
    lane.job, lane.tokens = None, [1, 2, 3, 4]
    again = SimpleNamespace(prompt=prompt, adapters=STYLE, cached=0, pending=[], lane=None)
    admission.place(again, [lane])  # type: ignore[arg-type]
    assert again.cached == 4 and again.pending == [5]
