"""Engine figures for /metrics: fixed-bucket histograms and ratios."""

from __future__ import annotations

from superfluid.engine.scheduling.stats import EngineStats, Histogram


def test_histogram_buckets_are_cumulative_and_end_with_inf() -> None:
    histogram = Histogram((0.1, 1.0))
    for value in (0.05, 0.1, 0.5, 3.0):
        histogram.observe(value)
    assert histogram.cumulative() == [("0.1", 2), ("1.0", 3), ("+Inf", 4)]
    assert histogram.count == 4
    assert abs(histogram.sum - 3.65) < 1e-9


def test_ratios_are_zero_before_any_work() -> None:
    stats = EngineStats()
    assert (stats.prefix_hit_ratio, stats.draft_acceptance) == (0.0, 0.0)
    stats.prompt_tokens, stats.cached_tokens = 40, 30
    stats.draft_proposed, stats.draft_accepted = 8, 6
    assert (stats.prefix_hit_ratio, stats.draft_acceptance) == (0.75, 0.75)
    stats.count_finish("stop")
    stats.count_finish("stop")
    assert stats.finished == {"stop": 2}
