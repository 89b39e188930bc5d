"""How many llama.cpp threads to decode with while other processes want the same cores.

llama.cpp's OpenMP threads meet at a barrier after every operation of a decode. When another CPU-heavy process
(a second model server, a build) shares the cores, one of them is often descheduled, and the others spin at
the barrier until it runs again: on 2 cores with a second llama.cpp process beside it, a 32-token reply took
7-10 s at two threads and 0.5 s at one, for llama-server as for superfluid (benchmarks/neighbour.py,
docs/performance.md "A neighbour on the same cores"). Fewer threads than cores is right only then; on a quiet
machine every core is faster.

So with ``--threads 0`` (the default: every core the process may run on) the engine thread looks, every quarter
second while it decodes (and at its first decode after a pause, over the whole pause), at how busy the cores it
may run on were since its last look (/proc/stat) and how much of that was its own process (/proc/self/stat).
Whatever is left is other processes': rounded to whole cores, that many threads are left to them (never below
one thread for decoding), at once. The count goes back up once the cores have stayed free for half a second,
and for twice as long each time it had to come down again within ten seconds (up to 30 s): going up too early
costs far more (a decode that stalls for seconds) than going up late (a third of the speed for a moment).
An explicit ``--threads N`` is kept as given. Changing the count is llama.cpp's ``llama_set_n_threads`` on each
context before its next decode; replies do not depend on it (each output row is summed by one thread).
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import llama_cpp

log = logging.getLogger(__name__)

LOOK_EVERY_S = 0.25
"""The shortest time between two looks at the cores (a look reads three small /proc files: tens of µs)."""
CALM_FIRST_S = 0.5
"""How long the cores must stay free before the thread count goes back up..."""
CALM_MOST_S = 30.0
"""...doubled, up to this, each time it had to come down again soon after going up (``RELAPSE_S``): one decode
on every core beside a neighbour that came back can take seconds, so a flapping neighbour is waited out."""
RELAPSE_S = 10.0
FORGIVE_S = 60.0
"""A minute without coming down brings the wait back to ``CALM_FIRST_S``."""


def _cpu_jiffies(cpus: frozenset[int]) -> tuple[int, int]:
    """(busy, all) clock ticks of ``cpus`` since boot, from /proc/stat; steal and guest time left out."""
    busy = total = 0
    for line in Path("/proc/stat").read_text().splitlines():
        name, *fields = line.split()
        if not name.startswith("cpu") or name == "cpu" or int(name[3:]) not in cpus:
            continue
        user, nice, system, idle, iowait, irq, softirq = (int(x) for x in fields[:7])
        busy += user + nice + system + irq + softirq
        total += user + nice + system + idle + iowait + irq + softirq
    return busy, total


def _own_jiffies() -> int:
    """User and system clock ticks of this process, all its threads."""
    fields = Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def read_proc() -> tuple[int, int, int] | None:
    """(busy, all, own) ticks now, or None where /proc cannot tell (not Linux)."""
    try:
        busy, total = _cpu_jiffies(frozenset(os.sched_getaffinity(0)))
        return busy, total, _own_jiffies()
    except (OSError, ValueError, IndexError, AttributeError):
        return None


class CpuShare:
    """The thread count for one engine's decodes: ``most`` (the cores it may use), less the cores other
    processes kept busy. ``adapt`` False keeps ``most`` (an explicit --threads). Used on the engine thread only."""

    def __init__(self, most: int, *, adapt: bool, reader: Callable[[], tuple[int, int, int] | None] = read_proc,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.most = max(1, most)
        self.wanted = self.most
        try:
            self._cpus = len(os.sched_getaffinity(0))
        except (OSError, AttributeError):
            self._cpus = self.most
        self._adapt = adapt
        self._reader = reader
        self._clock = clock
        self._last: tuple[int, int, int] | None = None
        self._looked = float("-inf")
        self._calm_since: float | None = None
        """When the looks began to find the cores free (None: the last one did not)."""
        self._calm_needed = CALM_FIRST_S
        self._raised_at = float("-inf")
        self._lowered_at = float("-inf")
        self._applied: dict[int, int] = {}
        """Each context's thread count as last set (by its address)."""
        if adapt:  # the first decode's look covers the time since the model loaded
            self._look(clock())

    def others(self, now: tuple[int, int, int]) -> float | None:
        """Cores' worth of other processes' work since the last look (None on the first look)."""
        last, self._last = self._last, now
        if last is None or now[1] <= last[1]:
            return None
        one_core = (now[1] - last[1]) / self._cpus  # the ticks one core had meanwhile
        others = (now[0] - last[0]) - (now[2] - last[2])
        return max(0.0, others / one_core)

    def _target(self, others: float) -> int:
        return max(1, self.most - int(others + 0.5))

    def observe(self, others: float, since: float, now: float) -> None:
        """Set ``wanted`` for ``others`` cores of other processes' work between ``since`` and ``now``."""
        target = self._target(others)
        if now - self._lowered_at > FORGIVE_S:
            self._calm_needed = CALM_FIRST_S
        if target < self.wanted:
            if now - self._raised_at < RELAPSE_S:
                self._calm_needed = min(CALM_MOST_S, 2 * self._calm_needed)
            self._calm_since = None
            self._lowered_at = now
            self._change(target, others)
        elif target > self.wanted:
            if self._calm_since is None:
                self._calm_since = since
            if now - self._calm_since >= self._calm_needed:
                self._calm_since = None
                self._raised_at = now
                self._change(target, others)
        else:
            self._calm_since = None

    def _change(self, target: int, others: float) -> None:
        log.info("other processes kept %.1f of %d cores busy: decoding on %d thread%s", others, self.most, target,
                 "" if target == 1 else "s")
        self.wanted = target

    def _look(self, now: float) -> None:
        since, self._looked = self._looked, now
        sample = self._reader()
        others = self.others(sample) if sample is not None else None
        if others is not None:
            self.observe(others, since, now)

    def before_decode(self, ctx: Any) -> None:
        """Look at the cores when it is time, then give ``ctx`` the wanted thread count if it has another."""
        if self._adapt:
            now = self._clock()
            if now - self._looked >= LOOK_EVERY_S:
                self._look(now)
        key = getattr(ctx, "value", None) or id(ctx)  # a context pointer's address
        if self._applied.get(key, self.most) != self.wanted:
            llama_cpp.llama_set_n_threads(ctx, self.wanted, self.wanted)
            self._applied[key] = self.wanted
