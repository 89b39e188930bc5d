"""The fleet as a Ray Serve application builder, for Serve config files and KubeRay's RayService.

``import_path: superfluid.fleet.serve_config:app`` with ``args: {flags: [...]}``, the flags of `superfluid
fleet` (docs/fleet.md#on-kubernetes-kuberay). ``--address`` is meaningless here: the cluster is the one running
the config.
"""

from __future__ import annotations

from typing import Any

from superfluid.fleet.cli import settings_and_options
from superfluid.fleet.deploy import application


def app(args: dict[str, Any]) -> Any:
    """Ray Serve calls this with the config's ``args`` and deploys what it returns."""
    flags = args.get("flags", [])
    if not isinstance(flags, list) or not all(isinstance(flag, str) for flag in flags):
        raise ValueError("args.flags must be a list of `superfluid fleet` flags, each a string")
    settings, options = settings_and_options(flags)
    return application(settings, options)
