"""Prometheus metrics (``GET /metrics``, ``/v1/metrics``), through prometheus-client, on a registry of the app's
own (no process-wide state).

Request figures are counted here as each request ends (RequestObserver). Engine figures are read at scrape time
from what each model's engine keeps (engine/scheduling/stats.py) and from snapshots of its lanes, so serving never
waits on a scrape and a scrape never waits on the engine. docs/metrics.md lists every metric.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily
from prometheus_client.registry import Collector

from superfluid.engine import QOS_CLASSES, EngineStats, LoadStats, ServedModel, backend_devices, placement_of
from superfluid.engine import Histogram as EngineHistogram

if TYPE_CHECKING:
    from superfluid.engine import LoadedModel
    from superfluid.http.observe import RequestRecord

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
REQUEST_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0)

ModelFigures = tuple[str, str, int, "LoadedModel | None", EngineStats, LoadStats]
"""What the registry reports per known model (ModelRegistry.figures)."""


class Metrics:
    """The app's metrics registry: request counters here, engine figures through EngineCollector."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self.requests = Counter("superfluid_requests", "HTTP requests by route, method, dialect, status and model",
                                ["route", "method", "dialect", "status", "model"], registry=self.registry)
        self.request_seconds = Histogram("superfluid_request_duration_seconds",
                                         "Seconds from a request's arrival to the end of its response",
                                         ["route", "dialect", "model"], buckets=REQUEST_BUCKETS,
                                         registry=self.registry)
        self.refusals = Counter("superfluid_rate_limited", "Requests refused with 429, by error code",
                                ["code"], registry=self.registry)
        self.auth_failures = Counter("superfluid_auth_failures", "Requests refused with 401 or 403, by error code",
                                     ["code"], registry=self.registry)
        self.in_flight = Gauge("superfluid_requests_in_flight", "HTTP requests being served now",
                               registry=self.registry)
        self._engine: EngineCollector | None = None

    def watch(self, figures: Callable[[], Sequence[ModelFigures]]) -> None:
        """Report the models' engine figures (called once the models exist, at start-up)."""
        if self._engine is None:
            self._engine = EngineCollector(figures)
            self.registry.register(self._engine)
        else:
            self._engine.figures = figures

    def observe(self, record: RequestRecord, duration_s: float) -> None:
        model = record.usage.model or ""
        self.requests.labels(record.route, record.method, record.dialect, str(record.status), model).inc()
        self.request_seconds.labels(record.route, record.dialect, model).observe(duration_s)
        if record.status == 429 and record.error_code:
            self.refusals.labels(record.error_code).inc()
        elif record.status in (401, 403) and record.error_code:
            self.auth_failures.labels(record.error_code).inc()

    def render(self) -> bytes:
        return bytes(generate_latest(self.registry))


def _histogram(family: HistogramMetricFamily, model: str, histogram: EngineHistogram) -> None:
    buckets = histogram.cumulative()
    family.add_metric([model], buckets, histogram.sum)


class EngineCollector(Collector):
    """Reads every known model's figures at scrape time (see the module)."""

    def __init__(self, figures: Callable[[], Sequence[ModelFigures]]) -> None:
        self.figures = figures

    def describe(self) -> Iterable[Any]:
        return []

    def collect(self) -> Iterator[Any]:
        models = list(self.figures())
        yield from self._lifecycle(models)
        yield from self._tokens(models)
        yield from self._latency(models)
        yield from self._engine_time(models)
        yield from self._lanes(models)
        yield from self._kv_disk(models)
        yield from self._devices(models)

    def _devices(self, models: list[ModelFigures]) -> Iterator[Any]:
        """Every backend device's memory, what the loaded models placed on each, and their offloaded layers."""
        total = GaugeMetricFamily("superfluid_device_memory_total_bytes", "Memory of each backend device",
                                  labels=["device", "type"])
        free = GaugeMetricFamily("superfluid_device_memory_free_bytes", "Free memory each backend device reports",
                                 labels=["device", "type"])
        used = GaugeMetricFamily("superfluid_device_memory_used_bytes",
                                 "Bytes the loaded models placed on each device (weights, KV cells, compute)",
                                 labels=["device"])
        placed = GaugeMetricFamily("superfluid_model_device_bytes", "Bytes a loaded model placed on each device",
                                   labels=["model", "device"])
        layers = GaugeMetricFamily("superfluid_model_offloaded_layers", "Layers of a loaded model on GPUs",
                                   labels=["model"])
        for device in backend_devices():
            total.add_metric([device.name, device.kind], device.total)
            free.add_metric([device.name, device.kind], device.free)
        sums: dict[str, int] = {}
        for model_id, _, _, served, _, _ in models:
            placement = placement_of(served) if served is not None else None
            if placement is None:
                continue
            layers.add_metric([model_id], placement.layers)
            for use in placement.devices:
                placed.add_metric([model_id, use.device], use.total)
                sums[use.device] = sums.get(use.device, 0) + use.total
        for name, size in sums.items():
            used.add_metric([name], size)
        yield from (total, free, used, placed, layers)

    def _kv_disk(self, models: list[ModelFigures]) -> Iterator[Any]:
        """The prefix cache's disk tier (docs/scheduling.md, "The RAM and disk tiers"), for models that have one."""
        families: dict[str, CounterMetricFamily | GaugeMetricFamily] = {
            "saves": CounterMetricFamily("superfluid_kv_disk_saves", "Lanes' KV cells saved to disk",
                                         labels=["model"]),
            "dropped_saves": CounterMetricFamily("superfluid_kv_disk_dropped_saves",
                                                 "Saves dropped because too many were waiting", labels=["model"]),
            "restores": CounterMetricFamily("superfluid_kv_disk_restores",
                                            "Prefixes loaded back from the RAM or disk tier", labels=["model"]),
            "restored_tokens": CounterMetricFamily("superfluid_kv_disk_restored_tokens",
                                                   "Prompt tokens served warm from the RAM or disk tier",
                                                   labels=["model"]),
            "ram_restores": CounterMetricFamily("superfluid_kv_ram_restores",
                                                "Prefixes loaded back from the RAM tier (no file read)",
                                                labels=["model"]),
            "ram_bytes": GaugeMetricFamily("superfluid_kv_ram_bytes", "Bytes of saved lanes the RAM tier holds",
                                           labels=["model"]),
            "ram_entries": GaugeMetricFamily("superfluid_kv_ram_entries", "Saved lanes the RAM tier holds",
                                             labels=["model"]),
            "removed": CounterMetricFamily("superfluid_kv_disk_removed",
                                           "Files removed (budget, superseded, unusable)", labels=["model"]),
            "bytes": GaugeMetricFamily("superfluid_kv_disk_bytes", "Bytes of saved KV cells", labels=["model"]),
            "files": GaugeMetricFamily("superfluid_kv_disk_files", "Files of saved KV cells", labels=["model"]),
        }
        for model_id, _, _, served, _, _ in models:
            view = getattr(served, "disk_view", None)
            figures = view() if view is not None else None
            if figures:
                for name, family in families.items():
                    family.add_metric([model_id], figures[name])
        yield from families.values()

    def _lifecycle(self, models: list[ModelFigures]) -> Iterator[Any]:
        loaded = GaugeMetricFamily("superfluid_model_loaded", "1 while the model is loaded", labels=["model"])
        state = GaugeMetricFamily("superfluid_model_state", "1 for the model's lifecycle state",
                                  labels=["model", "state"])
        waiting = GaugeMetricFamily("superfluid_model_load_waiting", "Requests waiting for the model to load",
                                    labels=["model"])
        loads = CounterMetricFamily("superfluid_model_loads", "Model loads by outcome", labels=["model", "outcome"])
        unloads = CounterMetricFamily("superfluid_model_unloads", "Model unloads by reason (admin, idle, lru)",
                                      labels=["model", "reason"])
        seconds = HistogramMetricFamily("superfluid_model_load_duration_seconds", "Seconds a model load took",
                                        labels=["model"])
        for model_id, model_state, load_waiting, served, _, lifecycle in models:
            loaded.add_metric([model_id], 1.0 if served is not None and model_state == "loaded" else 0.0)
            for name in ("loaded", "loading", "unloading", "unloaded"):
                state.add_metric([model_id, name], 1.0 if model_state == name else 0.0)
            waiting.add_metric([model_id], load_waiting)
            for outcome in ("ok", "failed"):
                loads.add_metric([model_id, outcome], dict(lifecycle.loads).get(outcome, 0))
            for reason, count in dict(lifecycle.unloads).items():
                unloads.add_metric([model_id, reason], count)
            _histogram(seconds, model_id, lifecycle.load_seconds)
        yield from (loaded, state, waiting, loads, unloads, seconds)

    def _tokens(self, models: list[ModelFigures]) -> Iterator[Any]:
        prompt = CounterMetricFamily("superfluid_prompt_tokens", "Prompt tokens of finished choices",
                                     labels=["model"])
        cached = CounterMetricFamily("superfluid_prompt_tokens_cached",
                                     "Prompt tokens served from the prefix cache", labels=["model"])
        completion = CounterMetricFamily("superfluid_completion_tokens", "Generated tokens", labels=["model"])
        hit = GaugeMetricFamily("superfluid_prefix_cache_hit_ratio",
                                "Cached prompt tokens / prompt tokens since start", labels=["model"])
        proposed = CounterMetricFamily("superfluid_draft_tokens_proposed", "Draft tokens proposed",
                                       labels=["model"])
        accepted = CounterMetricFamily("superfluid_draft_tokens_accepted", "Draft tokens accepted",
                                       labels=["model"])
        acceptance = GaugeMetricFamily("superfluid_draft_acceptance_ratio",
                                       "Accepted / proposed draft tokens since start", labels=["model"])
        finished = CounterMetricFamily("superfluid_choices_finished", "Finished choices by finish reason",
                                       labels=["model", "reason"])
        repeats = CounterMetricFamily("superfluid_tool_call_repeats",
                                      "Replies ended at a tool call that repeated an earlier one", labels=["model"])
        saved = CounterMetricFamily("superfluid_checkpoints_saved",
                                    "Checkpoints of recurrent state saved by prefilling lanes", labels=["model"])
        restores = CounterMetricFamily("superfluid_checkpoint_restores",
                                       "Requests whose cached prefix ended at a checkpoint of recurrent state",
                                       labels=["model"])
        for model_id, _, _, _, stats, _ in models:
            prompt.add_metric([model_id], stats.prompt_tokens)
            cached.add_metric([model_id], stats.cached_tokens)
            completion.add_metric([model_id], stats.completion_tokens)
            hit.add_metric([model_id], stats.prefix_hit_ratio)
            proposed.add_metric([model_id], stats.draft_proposed)
            accepted.add_metric([model_id], stats.draft_accepted)
            acceptance.add_metric([model_id], stats.draft_acceptance)
            for reason, count in dict(stats.finished).items():
                finished.add_metric([model_id, reason], count)
            repeats.add_metric([model_id], stats.repeated_calls)
            saved.add_metric([model_id], stats.checkpoints_saved)
            restores.add_metric([model_id], stats.checkpoint_restores)
        yield from (prompt, cached, completion, hit, proposed, accepted, acceptance, finished, repeats, saved, restores)

    def _latency(self, models: list[ModelFigures]) -> Iterator[Any]:
        ttft = HistogramMetricFamily("superfluid_time_to_first_token_seconds",
                                     "Seconds from a request reaching the engine to its first token",
                                     labels=["model"])
        itl = HistogramMetricFamily("superfluid_inter_token_latency_seconds",
                                    "Seconds between consecutive tokens of a reply", labels=["model"])
        queue = HistogramMetricFamily("superfluid_queue_wait_seconds", "Seconds a choice waited for a lane",
                                      labels=["model"])
        for model_id, _, _, _, stats, _ in models:
            _histogram(ttft, model_id, stats.ttft)
            _histogram(itl, model_id, stats.itl)
            _histogram(queue, model_id, stats.queue_wait)
        yield from (ttft, itl, queue)

    def _engine_time(self, models: list[ModelFigures]) -> Iterator[Any]:
        seconds = CounterMetricFamily("superfluid_engine_decode_seconds",
                                      "Seconds inside llama_decode, by kind (prefill: the batch carried prompt rows)",
                                      labels=["model", "kind"])
        calls = CounterMetricFamily("superfluid_engine_decodes", "llama_decode calls, by kind",
                                    labels=["model", "kind"])
        rows = CounterMetricFamily("superfluid_engine_decode_rows", "Batch rows (tokens) decoded, by kind",
                                   labels=["model", "kind"])
        steps = CounterMetricFamily("superfluid_engine_step_seconds",
                                    "Seconds of engine steps: each decode with the batch building, sampling, text "
                                    "output and stream writes around it", labels=["model"])
        gathers = CounterMetricFamily("superfluid_engine_gathers", "First decodes after idle that waited for a "
                                      "burst's requests still being read, validated or tokenized", labels=["model"])
        gather_s = CounterMetricFamily("superfluid_engine_gather_seconds", "Seconds those first decodes waited",
                                       labels=["model"])
        for model_id, _, _, _, stats, _ in models:
            for kind, totals in dict(stats.decodes).items():
                seconds.add_metric([model_id, kind], totals.seconds)
                calls.add_metric([model_id, kind], totals.calls)
                rows.add_metric([model_id, kind], totals.rows)
            steps.add_metric([model_id], stats.step_seconds)
            gathers.add_metric([model_id], stats.gathers)
            gather_s.add_metric([model_id], stats.gather_seconds)
        yield from (seconds, calls, rows, steps, gathers, gather_s)

    def _lanes(self, models: list[ModelFigures]) -> Iterator[Any]:
        lanes = GaugeMetricFamily("superfluid_lanes", "Lanes of the loaded model", labels=["model"])
        busy = GaugeMetricFamily("superfluid_lanes_busy", "Lanes decoding or prefilling now", labels=["model"])
        depth = GaugeMetricFamily("superfluid_queue_depth", "Choices waiting for a lane, by QoS class",
                                  labels=["model", "qos"])
        kv_size = GaugeMetricFamily("superfluid_kv_pool_tokens", "Cells in the model's KV pool, all lanes together",
                                    labels=["model"])
        kv_used = GaugeMetricFamily("superfluid_kv_pool_used_tokens", "KV cells holding lanes' tokens",
                                    labels=["model"])
        kv_ratio = GaugeMetricFamily("superfluid_kv_pool_usage_ratio", "Used / total KV cells", labels=["model"])
        for model_id, _, _, served, _, _ in models:
            if not isinstance(served, ServedModel):  # not loaded, or a model without lanes (embeddings, speech)
                continue
            snapshot = served.kv_snapshot()
            size = served.kv_pool_cells
            lanes.add_metric([model_id], snapshot["lanes"])
            busy.add_metric([model_id], snapshot["busy"])
            queued = served.queued_by_qos()
            for qos in QOS_CLASSES:
                depth.add_metric([model_id, qos], queued.get(qos, 0))
            kv_size.add_metric([model_id], size)
            kv_used.add_metric([model_id], snapshot["cached_tokens"])
            kv_ratio.add_metric([model_id], snapshot["cached_tokens"] / size if size else 0.0)
        yield from (lanes, busy, depth, kv_size, kv_used, kv_ratio)
