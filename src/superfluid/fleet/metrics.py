"""The fleet head's own metrics: routing decisions and how much of each prompt the chosen replica held.

Ray Serve builds the request router itself, inside the head's process, and gives it no way to receive an object
from the head. So the router and the head meet at one registry per process, made on first use: the single piece
of process-wide state in superfluid, confined to this module. docs/fleet.md#metrics lists the metrics.
"""

from __future__ import annotations

import functools

from prometheus_client import CollectorRegistry, Counter, Gauge, generate_latest


class RoutingMetrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self.decisions = Counter(
            "superfluid_fleet_routing_decisions", "Requests routed, by decision: prefix (longest cached prefix), "
            "least_loaded (best match too busy), miss (no replica held a block), no_prompt",
            ["decision"], registry=self.registry)
        self.prompt_blocks = Counter("superfluid_fleet_prompt_blocks",
                                     "Hashed prompt blocks of routed requests", registry=self.registry)
        self.matched_blocks = Counter("superfluid_fleet_matched_blocks",
                                      "Leading prompt blocks held by the best-matching replica",
                                      registry=self.registry)
        self.hit_requests = Counter("superfluid_fleet_prefix_hits",
                                    "Requests whose first block some replica held", registry=self.registry)
        self.hit_ratio = Gauge("superfluid_fleet_prefix_hit_ratio",
                               "Matched blocks over prompt blocks, since the head started", registry=self.registry)
        self.blocks = Gauge("superfluid_fleet_replica_blocks", "Prompt blocks the head believes each replica holds",
                            ["replica"], registry=self.registry)
        self.stream_failures = Counter("superfluid_fleet_replica_failures",
                                       "Requests cut short because their replica failed, by phase "
                                       "(before: answered with 503; during: ended with an error frame)",
                                       ["phase"], registry=self.registry)
        self._replicas: set[str] = set()
        self._prompt = 0
        self._matched = 0

    def observe_match(self, matched: int, total: int) -> None:
        self.prompt_blocks.inc(total)
        self.matched_blocks.inc(matched)
        if matched:
            self.hit_requests.inc()
        self._prompt += total
        self._matched += matched
        self.hit_ratio.set(self._matched / self._prompt if self._prompt else 0.0)

    def held(self, replica: str, blocks: int) -> None:
        self._replicas.add(replica)
        self.blocks.labels(replica).set(blocks)

    def forget(self, replica: str) -> None:
        if replica in self._replicas:
            self._replicas.discard(replica)
            self.blocks.remove(replica)

    def render(self) -> bytes:
        return bytes(generate_latest(self.registry))


@functools.cache
def routing_metrics() -> RoutingMetrics:
    """This process's routing metrics (see the module for why they are process-wide)."""
    return RoutingMetrics()
