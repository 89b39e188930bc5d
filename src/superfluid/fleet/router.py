"""The fleet's request router: Ray Serve's custom request-router API, steering by conversation prefix.

Ray Serve builds one router per deployment handle, inside the process that holds the handle (the fleet head), and
asks it for each request which replicas to try, best first; Ray then probes those replicas' queues and sends the
request to the first that accepts. The policy (docs/fleet.md#routing):

1. The head sends a request's chained block hashes (fleet/prefix.py) with it. The replica holding the longest
   run of its leading blocks is tried first, the others after it ("prefix").
2. Unless that replica has ``imbalance`` more requests in flight than the least busy one: then the least busy
   replica goes first ("least_loaded"), so one hot conversation cannot pile a queue onto one replica.
3. No replica holds at least a tenth of the prompt's blocks ("miss"): a new conversation. The least busy
   replica goes first, and between equally busy ones the one holding the fewest blocks, so new conversations
   spread over the replicas' caches instead of piling onto one (sent one at a time, every replica is equally
   idle, and Ray's power of two choices broke that tie the same way again and again).
4. The request has no prompt ("no_prompt"): Ray's own power of two choices among all replicas.

Whatever replica takes the request, its blocks are recorded there, so the conversation's next turn follows it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ray.serve._private.request_router.pow_2_router import PowerOfTwoChoicesRequestRouter
from ray.serve.request_router import PendingRequest, ReplicaID, RunningReplica

from superfluid.fleet.metrics import routing_metrics
from superfluid.fleet.prefix import CAPACITY_BLOCKS, IMBALANCE, MIN_MATCH, PREFIX_KWARG, PrefixIndex


def request_blocks(pending: PendingRequest | None) -> tuple[int, ...]:
    if pending is None:
        return ()
    blocks = pending.kwargs.get(PREFIX_KWARG, ())
    return tuple(blocks) if isinstance(blocks, Sequence) else ()


class PrefixAwareRouter(PowerOfTwoChoicesRequestRouter):
    """Longest cached prefix first, within a load bound; power of two choices otherwise (see the module)."""

    def initialize_state(self, imbalance: int = IMBALANCE, capacity_blocks: int = CAPACITY_BLOCKS,
                         min_match: float = MIN_MATCH, **_: Any) -> None:
        self._imbalance = imbalance
        self._min_match = min_match
        self._index = PrefixIndex(capacity_blocks)
        self._ongoing: dict[str, set[str]] = {}
        self._metrics = routing_metrics()

    def load(self, replica: RunningReplica) -> int:
        """Requests this head has in flight on ``replica``."""
        return len(self._ongoing.get(replica.replica_id.unique_id, ()))

    def rank(self, candidates: list[RunningReplica], blocks: tuple[int, ...]) -> tuple[str, list[RunningReplica]]:
        """The decision's name and the candidates best first (empty: leave it to power of two choices)."""
        if not blocks:
            return "no_prompt", []
        matched = {r.replica_id.unique_id: self._index.match(r.replica_id.unique_id, blocks) for r in candidates}
        best = max(candidates, key=lambda r: (matched[r.replica_id.unique_id], -self.load(r)))
        self._metrics.observe_match(matched[best.replica_id.unique_id], len(blocks))
        if matched[best.replica_id.unique_id] < max(1.0, self._min_match * len(blocks)):
            return "miss", sorted(candidates, key=lambda r: (self.load(r), self._index.size(r.replica_id.unique_id)))
        least = min(candidates, key=self.load)
        if self.load(best) - self.load(least) > self._imbalance:
            return "least_loaded", [least, *(r for r in candidates if r is not least)]
        return "prefix", [best, *(r for r in candidates if r is not best)]

    async def choose_replicas(self, candidate_replicas: list[RunningReplica],
                              pending_request: PendingRequest | None = None) -> list[list[RunningReplica]]:
        if not candidate_replicas:
            return []
        decision, ranked = self.rank(candidate_replicas, request_blocks(pending_request))
        self._metrics.decisions.labels(decision).inc()
        if not ranked:
            chosen: list[list[RunningReplica]] = await super().choose_replicas(candidate_replicas, pending_request)
            return chosen
        return [[replica] for replica in ranked]

    def on_request_routed(self, pending_request: PendingRequest, replica_id: ReplicaID, result: Any) -> None:
        self._index.record(replica_id.unique_id, request_blocks(pending_request))
        self._ongoing.setdefault(replica_id.unique_id, set()).add(pending_request.metadata.internal_request_id)
        self._metrics.held(replica_id.unique_id, self._index.size(replica_id.unique_id))

    def on_request_completed(self, replica_id: ReplicaID, internal_request_id: str) -> None:
        self._ongoing.get(replica_id.unique_id, set()).discard(internal_request_id)

    def on_replica_actor_died(self, replica_id: ReplicaID) -> None:
        super().on_replica_actor_died(replica_id)
        self._forget(replica_id.unique_id)

    def update_replicas(self, replicas: list[RunningReplica]) -> None:
        super().update_replicas(replicas)
        live = {r.replica_id.unique_id for r in replicas}
        for gone in set(self._index.replicas()) - live:
            self._forget(gone)

    def _forget(self, replica: str) -> None:
        self._index.forget(replica)
        self._ongoing.pop(replica, None)
        self._metrics.forget(replica)
