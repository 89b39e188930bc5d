"""The prefix cache's RAM tier: saved lanes kept in host memory, between the KV pool and the disk tier.

The KV pool holds one conversation per lane. When a lane's cells are about to be dropped (another conversation
takes the lane, or the pool needs room), they are saved (kv_disk.spill): the copy goes to this tier, which keeps
the most recently used up to ``budget`` bytes (``--cache-ram``, llama-server's flag and meaning), and to the disk
tier's writer. A returning conversation is then loaded from memory, with no file read; the disk serves what the
RAM tier let go, and everything after a restart.

The tier holds payloads only; which saved prefix serves a prompt is the disk tier's index (kv_disk.KvDiskTier),
which keeps an entry as long as its file or its RAM copy exists. Not thread-safe on its own: the disk tier calls it
under its lock.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from superfluid.engine.scheduling.checkpoints import Checkpoint


@dataclass(frozen=True)
class Held:
    """A saved lane in memory: its cells' state and its checkpoints."""

    payload: Any
    size: int
    checkpoints: tuple[Checkpoint, ...]

    @property
    def total(self) -> int:
        return self.size + sum(cp.size for cp in self.checkpoints)


class RamTier:
    """Payloads by the path of the file they are (or would be) saved to, least recently used first out."""

    def __init__(self, budget: int, evicted: Callable[[Path], None] = lambda _: None) -> None:
        """``budget``: bytes (0: off; negative: no bound); ``evicted``: told of each path let go for room."""
        self.budget = budget
        self._held: OrderedDict[Path, Held] = OrderedDict()
        self._bytes = 0
        self._evicted = evicted
        self.restores = 0
        """Prefixes loaded from memory."""

    @property
    def on(self) -> bool:
        return self.budget != 0

    def keep(self, path: Path, held: Held) -> bool:
        """Hold ``held`` for ``path`` (replacing what it held); False when it is larger than the whole budget."""
        if not self.on or (self.budget > 0 and held.total > self.budget):
            return False
        self.forget(path)
        self._held[path] = held
        self._bytes += held.total
        while self.budget > 0 and self._bytes > self.budget:
            oldest, _ = next(iter(self._held.items()))
            self.forget(oldest)
            self._evicted(oldest)
        return True

    def get(self, path: Path) -> Held | None:
        """What is held for ``path``, now the most recently used; None if nothing."""
        held = self._held.get(path)
        if held is not None:
            self._held.move_to_end(path)
        return held

    def holds(self, path: Path) -> bool:
        return path in self._held

    def forget(self, path: Path) -> None:
        held = self._held.pop(path, None)
        if held is not None:
            self._bytes -= held.total

    def view(self) -> dict[str, int]:
        return {"ram_entries": len(self._held), "ram_bytes": self._bytes, "ram_budget_bytes": self.budget,
                "ram_restores": self.restores}
