"""Per-client token buckets (fill-in-the-middle requests: --completion-burst, --completion-rate)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field


@dataclass
class TokenBuckets:
    burst: int
    rate_per_s: float
    _buckets: dict[str, tuple[float, float]] = field(default_factory=dict)
    """client -> (tokens left, time of last refill)"""

    def take(self, client: str, now: float | None = None) -> float:
        """Spend one token for ``client``; returns 0 when allowed, else seconds until one is available."""
        now = time.monotonic() if now is None else now
        tokens, stamp = self._buckets.get(client, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - stamp) * self.rate_per_s)
        if tokens >= 1.0:
            self._buckets[client] = (tokens - 1.0, now)
            return 0.0
        self._buckets[client] = (tokens, now)
        if len(self._buckets) > 10_000:  # forget clients whose buckets are full again
            full = [k for k, (t, s) in self._buckets.items() if t + (now - s) * self.rate_per_s >= self.burst]
            for key in full:
                del self._buckets[key]
        return (1.0 - tokens) / self.rate_per_s if self.rate_per_s > 0 else float("inf")
