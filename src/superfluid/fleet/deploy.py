"""Building and running the fleet: a Ray Serve application of engine replicas behind the fleet head.

Ray is imported here and in the modules Ray loads (router, head and replica classes), never by the rest of
superfluid: `superfluid serve` runs without the ``fleet`` extra.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from superfluid.fleet.head import FleetHead
from superfluid.fleet.prefix import IMBALANCE
from superfluid.fleet.replica import EngineReplica
from superfluid.settings import Settings

log = logging.getLogger(__name__)

APP_NAME = "superfluid"
ENGINE_DEPLOYMENT = "engine"
HEAD_DEPLOYMENT = "head"
ROUTERS = ("prefix", "power-of-two")
ROUTER_CLASS = "superfluid.fleet.router.PrefixAwareRouter"


@dataclass(frozen=True)
class FleetOptions:
    """What `superfluid fleet` is told beyond the serve flags (docs/fleet.md#flags)."""

    replicas: int = 2
    address: str | None = None
    """Ray cluster to join (``ray://host:10001``, ``auto``, ``host:6379``); None starts a local Ray instance."""
    replica_cpus: float = 1.0
    """CPUs Ray reserves for each engine replica (match --threads)."""
    replica_gpus: float = 0.0
    """GPUs Ray reserves for each engine replica (``--replica-gpus``; by default 1 when the build offloads to a
    GPU and the serve flags let it, else 0): on KubeRay, the replicas then go to the GPU node group."""
    max_ongoing_requests: int = 32
    """Requests Ray lets one replica hold at once; more wait at the head."""
    router: str = "prefix"
    """``prefix`` (fleet/router.py) or ``power-of-two`` (Ray Serve's default router)."""
    imbalance: int = IMBALANCE
    min_replicas: int | None = None
    max_replicas: int | None = None
    target_ongoing_requests: float | None = None
    """Any of the three turns autoscaling on: Ray Serve scales between min and max replicas to keep this many
    requests in flight per replica."""

    @property
    def autoscaling(self) -> bool:
        return any(v is not None for v in (self.min_replicas, self.max_replicas, self.target_ongoing_requests))

    def autoscaling_config(self) -> dict[str, Any]:
        config: dict[str, Any] = {
            "min_replicas": self.min_replicas if self.min_replicas is not None else 1,
            "max_replicas": self.max_replicas if self.max_replicas is not None else max(self.replicas, 1),
            "initial_replicas": self.replicas,
        }
        if self.target_ongoing_requests is not None:
            config["target_ongoing_requests"] = self.target_ongoing_requests
        return config


def engine_options(options: FleetOptions) -> dict[str, Any]:
    """Keyword arguments of ``serve.deployment`` for the engine replicas."""
    from ray.serve.config import RequestRouterConfig

    deployment: dict[str, Any] = {
        "name": ENGINE_DEPLOYMENT,
        "ray_actor_options": {"num_cpus": options.replica_cpus,
                              **({"num_gpus": options.replica_gpus} if options.replica_gpus else {})},
        "max_ongoing_requests": options.max_ongoing_requests,
        "health_check_period_s": 2.0,
        "health_check_timeout_s": 30.0,
        "graceful_shutdown_timeout_s": 10.0,
    }
    if options.router == "prefix":
        deployment["request_router_config"] = RequestRouterConfig(
            request_router_class=ROUTER_CLASS,  # type: ignore[arg-type]  # Ray takes a class or its path
            request_router_kwargs={"imbalance": options.imbalance})
    if options.autoscaling:
        deployment["autoscaling_config"] = options.autoscaling_config()
    else:
        deployment["num_replicas"] = options.replicas
    return deployment


def application(settings: Settings, options: FleetOptions) -> Any:
    """The Ray Serve application: the head bound to the engine deployment."""
    from ray import serve

    engine = serve.deployment(**engine_options(options))(EngineReplica)
    head = serve.deployment(name=HEAD_DEPLOYMENT, ray_actor_options={"num_cpus": 0},
                            max_ongoing_requests=10_000)(FleetHead)
    return head.bind(engine.bind(settings))


def start(settings: Settings, options: FleetOptions, *, blocking: bool = False) -> Any:
    """Connect to Ray (or start it), start Serve's HTTP proxy on the settings' host and port, deploy the fleet."""
    import ray
    from ray import serve

    if not ray.is_initialized():
        local: dict[str, Any] = {} if options.address else {"include_dashboard": False}
        ray.init(address=options.address, logging_level=logging.WARNING, **local)
    serve.start(http_options={"host": settings.host, "port": settings.port, "keep_alive_timeout_s": 30})
    return serve.run(application(settings, options), name=APP_NAME, route_prefix="/", blocking=blocking)


def stop(options: FleetOptions) -> None:
    """Take the fleet down: on a cluster joined, only this application; on a local instance, Serve and Ray."""
    import ray
    from ray import serve

    if not ray.is_initialized():
        return
    if options.address:
        serve.delete(APP_NAME)
    else:
        serve.shutdown()  # type: ignore[no-untyped-call]
    ray.shutdown()
