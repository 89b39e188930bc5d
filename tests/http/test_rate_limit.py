"""Token buckets, rates written as N/unit, and in-flight counts."""

from __future__ import annotations

import pytest

from superfluid.http.rate_limit import InFlight, TokenBuckets, default_burst, parse_rate


@pytest.mark.parametrize(("text", "per_s"), [("10/s", 10.0), ("600/m", 10.0), ("30/min", 0.5), ("3600/h", 1.0),
                                             (" 2.5 / sec ", 2.5)])
def test_rates(text: str, per_s: float) -> None:
    assert parse_rate(text) == per_s


@pytest.mark.parametrize("text", ["10", "10/d", "fast", "0/s", "-1/s"])
def test_bad_rates_say_what_is_expected(text: str) -> None:
    with pytest.raises(ValueError, match="rate"):
        parse_rate(text)


def test_default_burst_is_one_second_and_at_least_one() -> None:
    assert (default_burst(0.2), default_burst(1.0), default_burst(7.5)) == (1, 1, 8)


def test_buckets_refill_and_take_per_client_settings() -> None:
    buckets = TokenBuckets(2, 1.0)
    assert [buckets.take("a", now=0.0) for _ in range(3)] == [0.0, 0.0, 1.0]
    assert buckets.take("a", now=1.0) == 0.0
    assert buckets.take("b", now=0.0, burst=1, rate_per_s=0.5) == 0.0
    assert buckets.take("b", now=0.0, burst=1, rate_per_s=0.5) == 2.0


def test_in_flight_counts_per_key() -> None:
    counts = InFlight()
    assert counts.enter("k", 2) and counts.enter("k", 2) and not counts.enter("k", 2)
    assert counts.enter("other", 1)
    counts.leave("k")
    assert counts.count("k") == 1 and counts.enter("k", 2)
    for _ in range(2):
        counts.leave("k")
    assert counts.count("k") == 0
