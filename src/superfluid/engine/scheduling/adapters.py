"""LoRA adapters on the engine thread: loading their weights, and which adapter set each tick decodes under.

llama.cpp applies adapters to a whole context, so lanes whose requests run under different sets cannot share a
decode. Every job carries the set that was active when it was queued; a tick takes the lanes of one set only.
While several sets have work, a set keeps the context for up to ``TURN_TICKS`` ticks before the next one gets
it: each switch makes llama.cpp re-reserve its compute graph (about 10 ms for SmolLM2-135M on 2 cores, as long
as a decode), so switching every tick would halve throughput during a change-over.

Adapter weights stay loaded until the model closes (llama.cpp frees them with the model); loading the same file
again reuses them. A changed file (new mtime or size) is a new adapter.
"""

from __future__ import annotations

import concurrent.futures
import ctypes
from dataclasses import dataclass, field
from typing import Any

import llama_cpp

from superfluid.engine.models.adapter_types import AdapterFile, AdapterSet
from superfluid.engine.scheduling.job import Lane
from superfluid.errors import AdapterRefused

TURN_TICKS = 16


@dataclass(eq=False)
class AdapterLoad:
    """An inbox item: load this file's weights on the engine thread; the future says how it went."""

    file: AdapterFile
    done: concurrent.futures.Future[None] = field(default_factory=concurrent.futures.Future)


class AdapterSwitch:
    """Engine-thread state: loaded adapter handles, the set each context has applied, and whose turn it is."""

    def __init__(self, model: Any) -> None:
        self.model = model
        """The llama_model the adapters are loaded for."""
        self._handles: dict[AdapterFile, Any] = {}
        self._applied: dict[int, AdapterSet] = {}
        self._turn: AdapterSet = ()
        self._turn_ticks = 0
        self.switches = 0

    def load(self, request: AdapterLoad) -> None:
        if request.done.set_running_or_notify_cancel():
            try:
                self._handle(request.file)
            except AdapterRefused as exc:
                request.done.set_exception(exc)
            else:
                request.done.set_result(None)

    def _handle(self, file: AdapterFile) -> Any:
        handle = self._handles.get(file)
        if handle is None:
            handle = llama_cpp.llama_adapter_lora_init(self.model, str(file.path).encode())
            if not handle:
                raise AdapterRefused(f"llama.cpp could not load the adapter '{file.path.name}' (the server log says "
                                     "why)")
            self._handles[file] = handle
        return handle

    def pick(self, lanes: list[Lane]) -> list[Lane]:
        """The lanes (all with jobs, on one context) that decode this tick: those of the set whose turn it is."""
        sets = [lane.job.adapters for lane in lanes if lane.job is not None]
        if all(s == sets[0] for s in sets):  # the usual case, every tick: one set (or no lanes)
            self._turn, self._turn_ticks = (sets[0] if sets else ()), 0
            return lanes
        groups: dict[AdapterSet, list[Lane]] = {}
        for lane, adapters in zip(lanes, sets, strict=True):
            groups.setdefault(adapters, []).append(lane)
        if self._turn not in groups or self._turn_ticks >= TURN_TICKS:
            # Next set in order of its oldest job, after the one whose turn ends.
            order = sorted(groups, key=lambda s: min(ln.job.arrival for ln in groups[s] if ln.job is not None))
            after = order.index(self._turn) + 1 if self._turn in groups else 0
            self._turn, self._turn_ticks = order[after % len(order)], 0
        self._turn_ticks += 1
        return groups[self._turn]

    def apply(self, ctx: Any, adapters: AdapterSet) -> None:
        """Set ``adapters`` on ``ctx`` before a decode, unless it has them already."""
        if self._applied.get(id(ctx), ()) == adapters:
            return
        n = len(adapters)
        handles = (llama_cpp.llama_adapter_lora_p_ctypes * max(n, 1))(*(self._handle(a.file) for a in adapters))
        scales = (ctypes.c_float * max(n, 1))(*(a.scale for a in adapters))
        status = llama_cpp.llama_set_adapters_lora(ctx, handles if n else None, n, scales if n else None)
        if status != 0:
            raise RuntimeError(f"llama_set_adapters_lora failed with status {status}")
        self._applied[id(ctx)] = adapters
        self.switches += 1
