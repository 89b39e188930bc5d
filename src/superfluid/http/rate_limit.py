"""Token buckets by client (fill-in-the-middle requests, per-IP and per-key request rates) and in-flight counts
by key (per-key concurrency)."""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from superfluid.errors import CompletionRateLimited
from superfluid.http.observe import key_id

_RATE = re.compile(r"^\s*(?P<n>\d+(?:\.\d+)?)\s*/\s*(?P<unit>s|sec|second|m|min|minute|h|hour)\s*$")
_UNIT_S = {"s": 1.0, "sec": 1.0, "second": 1.0, "m": 60.0, "min": 60.0, "minute": 60.0, "h": 3600.0, "hour": 3600.0}

MAX_CLIENTS = 10_000
"""Buckets kept before those that are full again (indistinguishable from new ones) are forgotten."""


def parse_rate(text: str) -> float:
    """``N/s``, ``N/m`` (or ``/min``) or ``N/h`` -> requests per second; ValueError says what is wrong."""
    match = _RATE.match(text)
    if match is None:
        raise ValueError(f"expected a rate such as 10/s, 600/m or 1000/h; got '{text}'")
    per_s = float(match.group("n")) / _UNIT_S[match.group("unit")]
    if per_s <= 0:
        raise ValueError(f"a rate must be above zero; got '{text}'")
    return per_s


def default_burst(rate_per_s: float) -> int:
    """A bucket that holds one second's worth of requests, and at least one."""
    return max(1, int(rate_per_s + 0.999))


@dataclass
class TokenBuckets:
    """One token bucket per client; ``burst`` and ``rate_per_s`` are the defaults a ``take`` may override."""

    burst: int
    rate_per_s: float
    _buckets: dict[str, tuple[float, float, int, float]] = field(default_factory=dict)
    """client -> (tokens left, time of last refill, burst, rate)"""

    def take(self, client: str, now: float | None = None, *, burst: int | None = None,
             rate_per_s: float | None = None) -> float:
        """Spend one token for ``client``; returns 0 when allowed, else seconds until one is available."""
        now = time.monotonic() if now is None else now
        burst = self.burst if burst is None else burst
        rate = self.rate_per_s if rate_per_s is None else rate_per_s
        tokens, stamp, _, _ = self._buckets.get(client, (float(burst), now, burst, rate))
        tokens = min(float(burst), tokens + (now - stamp) * rate)
        if tokens >= 1.0:
            self._buckets[client] = (tokens - 1.0, now, burst, rate)
            return 0.0
        self._buckets[client] = (tokens, now, burst, rate)
        if len(self._buckets) > MAX_CLIENTS:
            self._forget_full(now)
        return (1.0 - tokens) / rate if rate > 0 else float("inf")

    def _forget_full(self, now: float) -> None:
        full = [key for key, (t, s, b, r) in self._buckets.items() if t + (now - s) * r >= b]
        for key in full:
            del self._buckets[key]


@dataclass
class InFlight:
    """Requests in flight per key (event loop only)."""

    _counts: dict[str, int] = field(default_factory=dict)

    def enter(self, key: str, limit: int) -> bool:
        """Count one more request for ``key``; False (and nothing counted) when ``limit`` are in flight."""
        count = self._counts.get(key, 0)
        if count >= limit:
            return False
        self._counts[key] = count + 1
        return True

    def leave(self, key: str) -> None:
        count = self._counts.get(key, 0) - 1
        if count > 0:
            self._counts[key] = count
        else:
            self._counts.pop(key, None)

    def count(self, key: str) -> int:
        return self._counts.get(key, 0)


def _header(scope: Mapping[str, Any], name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return bytes(value).decode("latin-1")
    return None


def client_identity(scope: Mapping[str, Any]) -> str:
    """Who a per-client limit counts against: the authenticated key; on a server that asks for no key, the key a
    client presents anyway (by its digest); else the client address."""
    key = key_id(scope)
    if key is not None:
        return "key:" + key
    auth = _header(scope, b"authorization")
    presented = auth[7:].strip() if auth and auth.lower().startswith("bearer ") else _header(scope, b"x-api-key")
    if presented:
        return "key:" + hashlib.sha256(presented.strip().encode()).hexdigest()[:16]
    client = scope.get("client")
    return "ip:" + (client[0] if client else "unknown")


def charge_completion(scope: Mapping[str, Any], buckets: TokenBuckets) -> None:
    """Spend one of the client's completion-class tokens (fill-in-the-middle on /v1/completions and
    /api/generate alike), whatever the request's outcome; CompletionRateLimited when its bucket is empty."""
    wait = buckets.take(client_identity(scope))
    if wait:
        raise CompletionRateLimited(f"fill-in-the-middle requests are over this client's rate "
                                    f"({buckets.rate_per_s:g}/s, burst {buckets.burst})", retry_after_s=wait)
