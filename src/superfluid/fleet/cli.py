"""`superfluid fleet [MODEL...] --replicas N [--address RAY] [serve flags...]`.

The fleet's own flags are read here; everything else is `superfluid serve`'s, parsed by its own parser into the
same Settings, which every replica runs with (host and port are the head's).
"""

from __future__ import annotations

import argparse
import signal
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from superfluid.flags import serve_parser, settings_from
from superfluid.fleet.deploy import ROUTERS, FleetOptions
from superfluid.settings import Settings


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="superfluid fleet", description="serve models from Ray Serve replicas behind a prefix-aware head; "
        "every other flag is one of `superfluid serve`'s (see superfluid serve --help)")
    parser.add_argument("--replicas", type=int, default=2, help="engine replicas (initial count when autoscaling)")
    parser.add_argument("--address", default=None,
                        help="Ray cluster to join (auto, HOST:6379 or ray://HOST:10001); default: start a local "
                             "Ray instance")
    parser.add_argument("--replica-cpus", type=float, default=1.0,
                        help="CPUs Ray reserves for each replica (match --threads)")
    parser.add_argument("--replica-gpus", type=float, default=None,
                        help="GPUs Ray reserves for each replica (default: 1 when this llama-cpp-python build has a "
                             "GPU backend and -ngl/--device do not turn offload off, else 0)")
    parser.add_argument("--max-ongoing-requests", type=int, default=32,
                        help="requests one replica holds at once; more wait at the head")
    parser.add_argument("--router", choices=ROUTERS, default="prefix",
                        help="prefix: longest cached conversation prefix first; power-of-two: Ray's default")
    parser.add_argument("--imbalance", type=int, default=4,
                        help="requests in flight by which the best-matching replica may exceed the least busy one")
    parser.add_argument("--min-replicas", type=int, default=None, help="autoscaling: fewest replicas")
    parser.add_argument("--max-replicas", type=int, default=None, help="autoscaling: most replicas")
    parser.add_argument("--target-ongoing-requests", type=float, default=None,
                        help="autoscaling: requests in flight per replica Ray Serve scales to keep")
    return parser


def parse(argv: Sequence[str]) -> tuple[argparse.Namespace, list[str]]:
    return _parser().parse_known_args(list(argv))


def options_from_args(args: argparse.Namespace, settings: Settings | None = None) -> FleetOptions:
    gpus = args.replica_gpus if args.replica_gpus is not None else replica_gpus(settings or Settings())
    return FleetOptions(replicas=args.replicas, address=args.address, replica_cpus=args.replica_cpus,
                        replica_gpus=gpus,
                        max_ongoing_requests=args.max_ongoing_requests, router=args.router,
                        imbalance=args.imbalance, min_replicas=args.min_replicas, max_replicas=args.max_replicas,
                        target_ongoing_requests=args.target_ongoing_requests)


def settings_and_options(argv: Sequence[str]) -> tuple[Settings, FleetOptions]:
    """The replicas' Settings (serve's flags, by serve's own parser) and the fleet's options."""
    args, rest = parse(argv)
    settings = settings_from(serve_parser().parse_args(rest))
    return settings, options_from_args(args, settings)


def replica_gpus(settings: Settings) -> float:
    """One GPU per replica when the installed build has a GPU backend and the serve flags offload, else none."""
    from superfluid.engine import gpu_build

    offload = settings.offload
    return 1.0 if gpu_build() and offload.devices != () and offload.gpu_layers != "0" else 0.0


def main(argv: Sequence[str]) -> int:
    from superfluid.http.access_log import configure_logging

    settings, options = settings_and_options(argv)
    configure_logging(settings.log_level, settings.log_format)
    if settings.web is not None:  # each replica would open its own; the head has no session API (docs/web.md)
        print("superfluid fleet: --web is served by `superfluid serve` only; point a serve with --web and "
              "--state at the fleet's PostgreSQL to share its sessions' store", file=sys.stderr)
        return 2
    try:
        import ray  # noqa: F401
    except ImportError as exc:
        print(f"superfluid fleet needs the fleet extra (pip install 'superfluid[fleet]'): {exc}", file=sys.stderr)
        return 2
    from superfluid.fleet import deploy

    signal.signal(signal.SIGTERM, _interrupt)  # a terminated fleet stops the way Ctrl-C stops it
    try:
        deploy.start(settings, options, blocking=True)
    except KeyboardInterrupt:
        pass
    finally:
        deploy.stop(options)
    return 0


def _interrupt(_signum: int, _frame: Any) -> NoReturn:
    raise KeyboardInterrupt
