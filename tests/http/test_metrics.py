"""Metrics: request counters as requests end, engine figures read at scrape time, parsed as Prometheus text."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from prometheus_client.parser import text_string_to_metric_families

from superfluid.engine import ServedModel
from superfluid.engine.request_scope import RequestScope
from superfluid.engine.scheduling.stats import EngineStats, LoadStats
from superfluid.http.metrics import Metrics
from superfluid.http.observe import RequestRecord


def _samples(metrics: Metrics) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    out = {}
    for family in text_string_to_metric_families(metrics.render().decode()):
        for sample in family.samples:
            out[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return out


class _Served(ServedModel):
    """A loaded generation model's figures, as /metrics reads them through ServedModel's methods."""

    def __init__(self) -> None:  # no llama.cpp model behind it
        pass

    def kv_snapshot(self) -> dict[str, int]:
        return {"lanes": 4, "busy": 1, "waiting": 2, "cached_tokens": 300}

    @property
    def kv_pool_cells(self) -> int:
        return 1000

    def queued_by_qos(self) -> dict[str, int]:
        return {"interactive": 1, "completion": 0, "agent": 0, "background": 1}

    def disk_view(self) -> dict[str, Any] | None:
        return None  # no disk tier

    @property
    def placement(self) -> Any:
        return None  # nothing offloaded


def _served() -> Any:
    return _Served()


def test_request_counters_and_refusals_by_code() -> None:
    metrics = Metrics()
    for status, code in [(200, None), (200, None), (429, "concurrency_limit_exceeded"), (401, "invalid_api_key")]:
        record = RequestRecord(method="POST", path="/v1/chat/completions", route="/v1/chat/completions",
                               dialect="openai", client="127.0.0.1", usage=RequestScope(model="m"), status=status,
                               error_code=code)
        metrics.observe(record, 0.2)
    samples = _samples(metrics)
    ok = (("dialect", "openai"), ("method", "POST"), ("model", "m"), ("route", "/v1/chat/completions"),
          ("status", "200"))
    assert samples[("superfluid_requests_total", ok)] == 2
    assert samples[("superfluid_rate_limited_total", (("code", "concurrency_limit_exceeded"),))] == 1
    assert samples[("superfluid_auth_failures_total", (("code", "invalid_api_key"),))] == 1
    assert samples[("superfluid_request_duration_seconds_count",
                    (("dialect", "openai"), ("model", "m"), ("route", "/v1/chat/completions")))] == 4


def test_engine_figures_per_model() -> None:
    stats = EngineStats(prompt_tokens=100, cached_tokens=60, completion_tokens=40, draft_proposed=10,
                        draft_accepted=7, repeated_calls=3)
    stats.ttft.observe(0.2)
    stats.itl.observe(0.01)
    stats.count_finish("stop")
    stats.decodes["generation"].add(8, 0.25)
    stats.decodes["generation"].add(4, 0.25)
    stats.decodes["prefill"].add(300, 1.0)
    stats.step_seconds = 1.75
    stats.gathers, stats.gather_seconds = 2, 0.012
    lifecycle = LoadStats()
    lifecycle.count(lifecycle.loads, "ok")
    lifecycle.count(lifecycle.unloads, "idle")
    lifecycle.load_seconds.observe(1.5)
    metrics = Metrics()
    laneless = SimpleNamespace()  # a runtime without lanes (speech, say) reports only its lifecycle
    metrics.watch(lambda: [("big", "loaded", 0, _served(), stats, lifecycle),
                           ("cold", "loading", 3, None, EngineStats(), LoadStats()),
                           ("speech", "loaded", 0, laneless, EngineStats(), LoadStats())])
    samples = _samples(metrics)
    big, cold = (("model", "big"),), (("model", "cold"),)
    assert samples[("superfluid_prompt_tokens_total", big)] == 100
    assert samples[("superfluid_prompt_tokens_cached_total", big)] == 60
    assert samples[("superfluid_completion_tokens_total", big)] == 40
    assert samples[("superfluid_prefix_cache_hit_ratio", big)] == 0.6
    assert samples[("superfluid_draft_acceptance_ratio", big)] == 0.7
    assert samples[("superfluid_time_to_first_token_seconds_count", big)] == 1
    assert samples[("superfluid_inter_token_latency_seconds_bucket", (("le", "0.01"), ("model", "big")))] == 1
    assert samples[("superfluid_choices_finished_total", (("model", "big"), ("reason", "stop")))] == 1
    assert samples[("superfluid_tool_call_repeats_total", big)] == 3
    generation, prefill = (("kind", "generation"), ("model", "big")), (("kind", "prefill"), ("model", "big"))
    assert samples[("superfluid_engine_decodes_total", generation)] == 2
    assert samples[("superfluid_engine_decode_rows_total", generation)] == 12
    assert samples[("superfluid_engine_decode_seconds_total", generation)] == 0.5
    assert samples[("superfluid_engine_decode_rows_total", prefill)] == 300
    assert samples[("superfluid_engine_step_seconds_total", big)] == 1.75
    assert samples[("superfluid_engine_gathers_total", big)] == 2
    assert samples[("superfluid_engine_gather_seconds_total", big)] == 0.012
    assert samples[("superfluid_lanes_busy", big)] == 1 and samples[("superfluid_lanes", big)] == 4
    assert samples[("superfluid_queue_depth", (("model", "big"), ("qos", "background")))] == 1
    assert samples[("superfluid_kv_pool_usage_ratio", big)] == 0.3
    assert samples[("superfluid_model_loads_total", (("model", "big"), ("outcome", "ok")))] == 1
    assert samples[("superfluid_model_unloads_total", (("model", "big"), ("reason", "idle")))] == 1
    assert samples[("superfluid_model_load_duration_seconds_sum", big)] == 1.5
    assert samples[("superfluid_model_load_waiting", cold)] == 3
    assert samples[("superfluid_model_state", (("model", "cold"), ("state", "loading")))] == 1
    assert samples[("superfluid_model_loaded", cold)] == 0
    assert ("superfluid_lanes", cold) not in samples  # a model not loaded has no lanes
    assert samples[("superfluid_model_loaded", (("model", "speech"),))] == 1
    assert ("superfluid_lanes", (("model", "speech"),)) not in samples
