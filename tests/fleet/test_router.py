"""The router's ranking: longest prefix first within the load bound, else least loaded, else Ray's default."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

pytest.importorskip("ray.serve", reason="the fleet extra is not installed")

from superfluid.fleet.router import PrefixAwareRouter


@dataclass(frozen=True)
class _Id:
    unique_id: str


@dataclass(frozen=True)
class _Replica:
    replica_id: _Id


def _router(imbalance: int = 2) -> PrefixAwareRouter:
    router: Any = object.__new__(PrefixAwareRouter)  # only the policy's state, without Ray's machinery
    router.initialize_state(imbalance=imbalance)
    return router  # type: ignore[no-any-return]


A, B = _Replica(_Id("a")), _Replica(_Id("b"))
BLOCKS = tuple(range(20))


def _busy(router: PrefixAwareRouter, replica: _Replica, requests: int) -> None:
    router._ongoing[replica.replica_id.unique_id] = {f"r{i}" for i in range(requests)}


def test_the_replica_holding_the_prefix_goes_first() -> None:
    router = _router()
    router._index.record("b", BLOCKS[:10])
    assert router.rank([A, B], BLOCKS) == ("prefix", [B, A])  # type: ignore[list-item]


def test_a_match_too_busy_gives_way_to_the_least_loaded() -> None:
    router = _router(imbalance=2)
    router._index.record("b", BLOCKS)
    _busy(router, B, 3)
    assert router.rank([A, B], BLOCKS) == ("least_loaded", [A, B])  # type: ignore[list-item]
    _busy(router, B, 2)
    assert router.rank([A, B], BLOCKS)[0] == "prefix"


def test_a_small_shared_opening_is_a_miss_and_no_prompt_is_left_to_ray() -> None:
    router = _router()
    router._index.record("a", BLOCKS[:1])
    assert router.rank([A, B], BLOCKS)[0] == "miss"
    assert router.rank([A, B], ()) == ("no_prompt", [])  # type: ignore[list-item]


def test_new_conversations_spread_over_the_replicas() -> None:
    router = _router()
    router._index.record("a", tuple(range(100, 140)))  # a holds one conversation already
    assert router.rank([A, B], BLOCKS) == ("miss", [B, A])  # type: ignore[list-item]
    router._index.record("b", tuple(range(200, 260)))  # now b holds more
    assert router.rank([A, B], BLOCKS) == ("miss", [A, B])  # type: ignore[list-item]
    _busy(router, A, 1)  # but a is busy: the idle one first
    assert router.rank([A, B], BLOCKS) == ("miss", [B, A])  # type: ignore[list-item]


def test_a_forgotten_replica_holds_nothing() -> None:
    router = _router()
    router._index.record("b", BLOCKS)
    router._forget("b")
    assert router.rank([A, B], BLOCKS)[0] == "miss"
