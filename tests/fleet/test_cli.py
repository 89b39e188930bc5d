"""`superfluid fleet` flags: the fleet's own, then serve's by serve's parser; autoscaling passed to Ray Serve."""

from __future__ import annotations

import pytest

from superfluid.fleet.cli import settings_and_options
from superfluid.fleet.deploy import FleetOptions


def test_fleet_flags_and_serve_flags_are_told_apart() -> None:
    settings, options = settings_and_options(["m.gguf", "--replicas", "3", "--threads", "2", "--address", "auto",
                                              "--parallel", "8", "--router", "power-of-two", "--port", "9000"])
    assert settings.models == ("m.gguf",) and settings.threads == 2 and settings.parallel == 8
    assert settings.port == 9000
    assert options == FleetOptions(replicas=3, address="auto", router="power-of-two")
    assert not options.autoscaling


def test_autoscaling_flags_become_rays_autoscaling_config() -> None:
    _, options = settings_and_options(["--replicas", "2", "--max-replicas", "6", "--target-ongoing-requests", "3"])
    assert options.autoscaling
    assert options.autoscaling_config() == {"min_replicas": 1, "max_replicas": 6, "initial_replicas": 2,
                                            "target_ongoing_requests": 3.0}


def test_the_engine_deployment_gets_the_router_and_the_autoscaler() -> None:
    pytest.importorskip("ray.serve", reason="the fleet extra is not installed")
    from superfluid.fleet.deploy import ROUTER_CLASS, engine_options

    scaled = engine_options(FleetOptions(replicas=2, min_replicas=1, max_replicas=4, replica_cpus=2))
    assert "num_replicas" not in scaled and scaled["autoscaling_config"]["max_replicas"] == 4
    assert scaled["ray_actor_options"] == {"num_cpus": 2}
    assert scaled["request_router_config"].request_router_class == ROUTER_CLASS
    fixed = engine_options(FleetOptions(replicas=3, router="power-of-two"))
    assert fixed["num_replicas"] == 3 and "request_router_config" not in fixed


def test_replicas_ask_ray_for_a_gpu_when_the_build_offloads(monkeypatch: pytest.MonkeyPatch) -> None:
    import superfluid.engine

    monkeypatch.setattr(superfluid.engine, "gpu_build", lambda: True)
    assert settings_and_options([])[1].replica_gpus == 1.0
    assert settings_and_options(["--device", "none"])[1].replica_gpus == 0.0  # offload turned off
    assert settings_and_options(["-ngl", "0"])[1].replica_gpus == 0.0
    assert settings_and_options(["--replica-gpus", "0.5"])[1].replica_gpus == 0.5
    monkeypatch.setattr(superfluid.engine, "gpu_build", lambda: False)
    assert settings_and_options([])[1].replica_gpus == 0.0  # a CPU build
    assert settings_and_options(["--replica-gpus", "2"])[1].replica_gpus == 2.0


def test_the_engine_deployment_asks_for_the_replicas_gpus() -> None:
    pytest.importorskip("ray.serve", reason="the fleet extra is not installed")
    from superfluid.fleet.deploy import engine_options

    assert engine_options(FleetOptions(replica_cpus=4, replica_gpus=1))["ray_actor_options"] == {"num_cpus": 4,
                                                                                                  "num_gpus": 1}


def test_an_unknown_serve_flag_is_refused_by_serves_parser() -> None:
    with pytest.raises(SystemExit):
        settings_and_options(["--no-such-flag"])
