"""What /slots shows of a scheduler: each lane's state, the last decode's plan, and recent decode rates.

The engine thread writes a ``DecodeHistory`` once per decode; the view is read from other threads, so it works on
copies (``list`` of the deque, the last decode as one tuple replaced whole) and is a snapshot, not a consistent
cut of the engine's state.
"""

from __future__ import annotations

import time
from collections import deque
from typing import Any

from superfluid.engine.scheduling.batch_rows import Entry
from superfluid.engine.scheduling.job import Lane

RATE_WINDOW_S = 10.0
"""The rates cover the decodes that started this many seconds ago or later."""


class DecodeHistory:
    """Recent decodes and token totals: written by the engine thread, read by /slots."""

    def __init__(self) -> None:
        self._ticks: deque[tuple[float, int, int, float]] = deque(maxlen=4096)
        """Started (monotonic), generated rows, prompt rows, seconds: one entry per decode."""
        self._last: tuple[int, int, list[Entry], float] | None = None
        """The last decode: generated rows, prompt rows, the rows themselves, seconds."""
        self.decoded_tokens = 0
        self.prefilled_tokens = 0

    def record(self, started: float, elapsed: float, n_gen: int, entries: list[Entry]) -> None:
        """One decode of ``entries`` (the first ``n_gen`` of them generated rows) that succeeded."""
        n_prompt = len(entries) - n_gen
        self.decoded_tokens += n_gen
        self.prefilled_tokens += n_prompt
        self._ticks.append((started, n_gen, n_prompt, elapsed))
        self._last = (n_gen, n_prompt, entries, elapsed)

    def tick_plan(self, n_batch: int) -> dict[str, Any]:
        """The last decode: its rows by kind, how many lanes it served, and its milliseconds ({} before one)."""
        if self._last is None:
            return {}
        n_gen, n_prefill, entries, elapsed = self._last
        return {"decode_tokens": n_gen, "prefill_tokens": n_prefill, "lanes": len({id(e[0]) for e in entries}),
                "batch_size": n_batch, "ms": round(elapsed * 1000, 2)}

    def rates(self) -> dict[str, float]:
        """Tokens per second of decoding over the last ``RATE_WINDOW_S``, and the share of it spent decoding."""
        window = [t for t in list(self._ticks) if t[0] >= time.monotonic() - RATE_WINDOW_S]
        busy_s = sum(t[3] for t in window)
        return {
            "window_s": RATE_WINDOW_S,
            "decode_tokens_per_s": round(sum(t[1] for t in window) / busy_s, 1) if busy_s else 0.0,
            "prefill_tokens_per_s": round(sum(t[2] for t in window) / busy_s, 1) if busy_s else 0.0,
            "busy_fraction": round(busy_s / RATE_WINDOW_S, 3),
        }


def lane_views(lanes: list[Lane], solo: Lane | None) -> list[dict[str, Any]]:
    """One entry per lane (``solo``: the batch-invariant lane, on a context of its own)."""
    views = []
    for lane in list(lanes):
        job = lane.job
        views.append({
            "seq": lane.seq,
            "context": "invariant" if lane is solo else "shared",
            "state": "idle" if job is None else ("prefill" if job.pending else "decode"),
            "cached_tokens": len(lane.tokens),
            "checkpoints": [cp.n_tokens for cp in list(lane.checkpoints)],
            "qos": job.qos if job else None,
            "generated": job.generated if job else 0,
            "batch_invariant": bool(job and job.batch_invariant),
        })
    return views
