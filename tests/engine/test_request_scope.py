"""RequestScope's part in the ARRIVALS: counted once from its body to its model, and queueing its jobs is one step
with leaving the count."""

from __future__ import annotations

import threading
import time

import pytest

from superfluid.engine import request_scope
from superfluid.engine.request_scope import ARRIVALS, Arrivals, RequestScope


def test_a_request_counts_once_from_arriving_until_it_lands() -> None:
    before = ARRIVALS.count
    scope = RequestScope()
    scope.arriving()
    scope.arriving()
    assert ARRIVALS.count == before + 1
    scope.landed()
    scope.landed()
    assert ARRIVALS.count == before
    scope.arriving()  # landed is final: a late read of the body does not count it again
    assert ARRIVALS.count == before


def test_a_request_that_lands_before_its_body_is_read_is_never_counted() -> None:
    before = ARRIVALS.count
    scope = RequestScope()
    scope.landed()
    scope.arriving()
    assert ARRIVALS.count == before


def test_queueing_runs_inside_the_landing_whether_or_not_the_request_was_counted() -> None:
    seen: list[int] = []
    counted = RequestScope()
    counted.arriving()
    before = ARRIVALS.count
    counted.landed(lambda: seen.append(ARRIVALS.count))
    assert seen == [before] and ARRIVALS.count == before - 1  # still counted while its jobs are queued
    RequestScope().landed(lambda: seen.append(-1))
    assert seen == [before, -1]


def test_waiting_for_quiet_returns_when_the_last_arrival_lands() -> None:
    arrivals = Arrivals()
    assert arrivals.wait_quiet(0.0)
    arrivals.begin()
    arrivals.begin()
    assert not arrivals.wait_quiet(0.01)

    def land_both() -> None:
        time.sleep(0.02)
        arrivals.end()
        time.sleep(0.02)
        arrivals.end()

    worker = threading.Thread(target=land_both)
    started = time.monotonic()
    worker.start()
    assert arrivals.wait_quiet(10.0)
    assert 0.03 <= time.monotonic() - started < 5.0
    worker.join()


def test_a_request_that_waited_for_a_load_is_on_its_way_again_once_only_if_it_was_counted(
        monkeypatch: pytest.MonkeyPatch) -> None:
    arrivals = Arrivals()
    monkeypatch.setattr(request_scope, "ARRIVALS", arrivals)
    counted, uncounted = RequestScope(), RequestScope()
    counted.arriving()
    counted.landed()  # waiting for its model to load
    uncounted.landed()  # a GET, say, that never counted
    counted.rearrive()
    counted.rearrive()
    uncounted.rearrive()
    assert arrivals.count == 1
    counted.landed()
    assert arrivals.count == 0


def test_a_failure_while_queueing_still_ends_the_count(monkeypatch: pytest.MonkeyPatch) -> None:
    arrivals = Arrivals()
    monkeypatch.setattr(request_scope, "ARRIVALS", arrivals)
    scope = RequestScope()
    scope.arriving()

    def broken() -> None:
        raise RuntimeError("queue full")

    with pytest.raises(RuntimeError):
        scope.landed(broken)
    assert arrivals.count == 0 and arrivals.wait_quiet(0.0)
