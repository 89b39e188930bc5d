"""What a model's engine has done, for /metrics: counters and fixed-bucket histograms.

One engine thread writes a model's figures; the scrape reads them from the event loop (or a worker thread)
without any lock, so a scrape never makes the engine wait. A scrape may see an observation half-applied (a
bucket counted, the sum not yet): the next scrape is whole again, which Prometheus tolerates. The figures belong
to the model id, not to one load of it, so they keep counting across unloads and reloads.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass, field

TTFT_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)
"""Seconds from a request's arrival at the engine to its first token (queueing and prefill included)."""
ITL_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 1.0)
"""Seconds between two tokens of one reply, as its client receives them."""
QUEUE_BUCKETS = (0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
"""Seconds a choice waited for a lane."""
LOAD_BUCKETS = (0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0)
"""Seconds a model load took."""


class Histogram:
    """Counts per bucket (the last one is +Inf), a sum and a count; one writer, any number of readers."""

    def __init__(self, bounds: Sequence[float]) -> None:
        self.bounds = tuple(bounds)
        self.counts = [0] * (len(self.bounds) + 1)
        self.sum = 0.0

    def observe(self, value: float) -> None:
        self.counts[bisect_left(self.bounds, value)] += 1
        self.sum += value

    def cumulative(self) -> list[tuple[str, int]]:
        """Prometheus buckets: (upper bound, observations at or below it), ending with +Inf."""
        out = []
        running = 0
        for bound, count in zip((*map(repr, self.bounds), "+Inf"), list(self.counts), strict=True):
            running += count
            out.append((bound, running))
        return out

    @property
    def count(self) -> int:
        return sum(self.counts)


@dataclass
class DecodeTotals:
    """llama_decode calls of one kind, the batch rows they carried and the seconds they took."""

    calls: int = 0
    rows: int = 0
    seconds: float = 0.0

    def add(self, rows: int, seconds: float) -> None:
        self.calls += 1
        self.rows += rows
        self.seconds += seconds


DECODE_KINDS = ("generation", "prefill")
"""A decode that carries prompt rows is a prefill decode (lanes' next tokens may ride along); the rest generate."""


@dataclass
class EngineStats:
    """One model's engine figures since the server started (see the module)."""

    prompt_tokens: int = 0
    """Prompt tokens of finished choices (cached ones included)."""
    cached_tokens: int = 0
    """Prompt tokens that were already in the KV cache (prefix reuse)."""
    completion_tokens: int = 0
    draft_proposed: int = 0
    draft_accepted: int = 0
    finished: dict[str, int] = field(default_factory=dict)
    """Finished choices by finish reason (stop, length, tool_calls, cancelled, error)."""
    repeated_calls: int = 0
    """Replies ended at a tool call repeating an earlier call of the same reply (decoding/call_repeats.py)."""
    ttft: Histogram = field(default_factory=lambda: Histogram(TTFT_BUCKETS))
    itl: Histogram = field(default_factory=lambda: Histogram(ITL_BUCKETS))
    queue_wait: Histogram = field(default_factory=lambda: Histogram(QUEUE_BUCKETS))
    decodes: dict[str, DecodeTotals] = field(default_factory=lambda: {kind: DecodeTotals() for kind in DECODE_KINDS})
    """Time inside llama_decode, by kind (see DECODE_KINDS)."""
    step_seconds: float = 0.0
    """Wall time of the engine's steps: each decode with the work around it (building the batch, sampling, text
    output, writing streamed tokens). Less the decode seconds, what the engine thread adds to llama.cpp's work."""
    checkpoints_saved: int = 0
    """Checkpoints of recurrent state lanes saved while prefilling (recurrent and hybrid models)."""
    checkpoint_restores: int = 0
    """Requests whose cached prefix ends at a checkpoint loaded back."""
    gathers: int = 0
    """First decodes after idle that waited for requests still on their way (a burst: docs/scheduling.md)."""
    gather_seconds: float = 0.0
    """Seconds those waits took (at most the scheduler's gather_s, --gather-ms, each)."""

    def count_finish(self, reason: str) -> None:
        self.finished[reason] = self.finished.get(reason, 0) + 1

    @property
    def prefix_hit_ratio(self) -> float:
        return self.cached_tokens / self.prompt_tokens if self.prompt_tokens else 0.0

    @property
    def draft_acceptance(self) -> float:
        return self.draft_accepted / self.draft_proposed if self.draft_proposed else 0.0


@dataclass
class LoadStats:
    """One model id's loads and unloads, written on the event loop."""

    loads: dict[str, int] = field(default_factory=dict)
    """Loads by outcome: ok, failed."""
    unloads: dict[str, int] = field(default_factory=dict)
    """Unloads by reason: admin, idle, lru, shutdown."""
    load_seconds: Histogram = field(default_factory=lambda: Histogram(LOAD_BUCKETS))

    def count(self, table: dict[str, int], key: str) -> None:
        table[key] = table.get(key, 0) + 1
