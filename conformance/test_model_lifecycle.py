"""Many models on the real server: load on demand (shared, visible in /slots and metrics), --idle-timeout,
--models-max, unload after running requests, the admin routes, and discovery that never loads.

One module server knows three models through a --models file: the bundled default (never idles out), Gemma 3 270M
(idles out after --idle-timeout) and "twin" (the default's file under another id); at most two are loaded. The
tests run in order and each leaves the server as the next expects.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest
from prometheus_client.parser import text_string_to_metric_families

from conformance.server import (
    DEFAULT_MODEL,
    SECOND_MODEL,
    RunningServer,
    bundled_model_file,
    metric,
    start_server,
    stop_server,
)

IDLE_S = 6


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    base = tmp_path_factory.mktemp("fleet")
    (base / "twin.gguf").symlink_to(bundled_model_file())
    (base / "broken.gguf").write_bytes(b"GGUF but not a model at all")
    (base / "models.toml").write_text(f"""
[[models]]
model = "{DEFAULT_MODEL}"
idle_timeout = 0

[[models]]
model = "{SECOND_MODEL}"

[[models]]
model = "twin.gguf"
alias = "twin"
idle_timeout = 0
""")
    running = start_server(["--models", str(base / "models.toml"), "--idle-timeout", str(IDLE_S), "--gather-ms", "20",
                            "--models-max", "2", "--parallel", "2", "--ctx-size", "1024", "--threads", "1"],
                           base / "serve.log")
    yield running
    stop_server(running)


@pytest.fixture
def http(fleet: RunningServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=fleet.base_url, timeout=180) as client:
        yield client


def _chat(model: str, **extra: Any) -> dict[str, Any]:
    return {"model": model, "messages": [{"role": "user", "content": "Say hi."}], "max_tokens": 4,
            "temperature": 0, **extra}


def _state(http: httpx.Client, model: str) -> str:
    for family in text_string_to_metric_families(http.get("/metrics").text):
        for sample in family.samples:
            if sample.name == "superfluid_model_state" and sample.labels["model"] == model and sample.value == 1:
                return sample.labels["state"]
    raise AssertionError(f"no state for {model}")


def _until(check: Callable[[], bool], timeout_s: float, what: str) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def _in_background(call: Callable[[], Any]) -> tuple[threading.Thread, list[Any]]:
    out: list[Any] = []
    thread = threading.Thread(target=lambda: out.append(call()))
    thread.start()
    return thread, out


def test_discovery_routes_never_load_a_cold_model(http: httpx.Client) -> None:
    assert _state(http, SECOND_MODEL) == "unloaded"
    listed = {m["id"]: m["loaded"] for m in http.get("/v1/models").json()["data"]}
    assert listed == {DEFAULT_MODEL: True, SECOND_MODEL: False, "twin": False}
    assert http.get(f"/v1/models/{SECOND_MODEL}").json()["loaded"] is False
    assert SECOND_MODEL in [m["name"] for m in http.get("/api/tags").json()["models"]]
    assert "capabilities" not in http.post("/api/show", json={"model": SECOND_MODEL}).json()
    assert http.get("/props", params={"model": SECOND_MODEL}).json()["loaded"] is False
    assert [m["name"] for m in http.get("/api/ps").json()["models"]] == [DEFAULT_MODEL]
    assert http.get("/slots", params={"model": SECOND_MODEL}).status_code == 404
    assert _state(http, SECOND_MODEL) == "unloaded"
    assert metric(http, "superfluid_model_loads_total", model=SECOND_MODEL, outcome="ok") == 0


def test_concurrent_requests_share_one_load_and_the_wait_shows(fleet: RunningServer, http: httpx.Client) -> None:
    def ask() -> int:
        with httpx.Client(base_url=fleet.base_url, timeout=180) as own:
            return own.post("/v1/chat/completions", json=_chat(SECOND_MODEL)).status_code

    asking = [_in_background(ask) for _ in range(3)]
    seen: dict[str, Any] = {}

    def waiting_shows() -> bool:
        slot = http.get("/slots", params={"model": SECOND_MODEL})
        if slot.status_code == 200 and slot.json()[0]["state"] == "loading":
            seen["slot"] = slot.json()[0]
            seen["metric"] = metric(http, "superfluid_model_load_waiting", model=SECOND_MODEL)
            return bool(seen["slot"]["load_waiting"] == 3 and seen["metric"] == 3)  # all three wait (not counted)
        return False

    _until(waiting_shows, 60, "the load to show in /slots and metrics")
    assert seen["slot"]["lanes"] == [] and seen["slot"]["waiting"] >= 1
    # Requests waiting for a load are seconds from any queue: the default model's idle engine does not wait for
    # them before its first decode (this server runs with --gather-ms 20; docs/scheduling.md, "Bursts").
    gathers = metric(http, "superfluid_engine_gathers_total", model=DEFAULT_MODEL)
    assert http.post("/v1/chat/completions", json=_chat(DEFAULT_MODEL)).status_code == 200
    assert metric(http, "superfluid_engine_gathers_total", model=DEFAULT_MODEL) == gathers
    for thread, _ in asking:
        thread.join(180)
    assert [out[0] for _, out in asking] == [200, 200, 200]
    assert metric(http, "superfluid_model_loads_total", model=SECOND_MODEL, outcome="ok") == 1
    assert http.get("/slots", params={"model": SECOND_MODEL}).json()[0]["state"] == "loaded"


def test_two_models_serve_together_and_the_idle_one_unloads(fleet: RunningServer, http: httpx.Client) -> None:
    assert _state(http, SECOND_MODEL) == "loaded"

    def stream(model: str) -> str:
        body = _chat(model, max_tokens=24, ignore_eos=True, stream=True)
        with httpx.Client(base_url=fleet.base_url, timeout=180) as own, \
                own.stream("POST", "/v1/chat/completions", json=body) as response:
            return [line for line in response.iter_lines() if line.startswith("data: ")][-2]

    both = [_in_background(lambda m=m: stream(m)) for m in (DEFAULT_MODEL, SECOND_MODEL)]  # type: ignore[misc]
    for thread, _ in both:
        thread.join(180)
    assert all('"finish_reason":"length"' in out[0] for _, out in both)
    # The default model keeps serving; Gemma, unused, unloads after --idle-timeout.
    started = time.monotonic()
    while _state(http, SECOND_MODEL) == "loaded":
        assert http.post("/v1/chat/completions", json=_chat(DEFAULT_MODEL)).status_code == 200
        assert time.monotonic() - started < IDLE_S + 30, "the idle model never unloaded"
        time.sleep(0.5)
    assert time.monotonic() - started >= IDLE_S - 1
    # The state turns "unloading" when the unload starts; it counts once the model's memory is freed.
    _until(lambda: _state(http, SECOND_MODEL) == "unloaded", 30, "the idle model's unload to finish")
    assert metric(http, "superfluid_model_unloads_total", model=SECOND_MODEL, reason="idle") == 1
    assert _state(http, DEFAULT_MODEL) == "loaded"


def test_models_max_unloads_the_least_recently_used(http: httpx.Client) -> None:
    assert http.post("/v1/chat/completions", json=_chat(SECOND_MODEL)).status_code == 200
    assert http.post("/v1/chat/completions", json=_chat(DEFAULT_MODEL)).status_code == 200
    assert http.post("/v1/chat/completions", json=_chat("twin")).status_code == 200  # a third: Gemma goes
    assert metric(http, "superfluid_model_unloads_total", model=SECOND_MODEL, reason="lru") == 1
    assert sorted(m["name"] for m in http.get("/api/ps").json()["models"]) == sorted([DEFAULT_MODEL, "twin"])


STREAM_TOKENS = 600


def test_unload_waits_for_running_requests_and_new_ones_wait_for_the_reload(fleet: RunningServer,
                                                                             http: httpx.Client) -> None:
    assert _state(http, "twin") == "loaded"
    reloads = metric(http, "superfluid_model_loads_total", model="twin", outcome="ok")
    first_line = threading.Event()

    def long_stream() -> str:
        # Long enough to outlast the checks below on a quiet machine too (60 tokens took under 0.5 s there).
        body = _chat("twin", max_tokens=STREAM_TOKENS, ignore_eos=True, stream=True)
        with httpx.Client(base_url=fleet.base_url, timeout=180) as own, \
                own.stream("POST", "/v1/chat/completions", json=body) as response:
            lines = []
            for line in response.iter_lines():
                first_line.set()
                if line.startswith("data: "):
                    lines.append(line)
            return lines[-2]

    def post(path: str, body: dict[str, Any]) -> httpx.Response:
        with httpx.Client(base_url=fleet.base_url, timeout=180) as own:
            return own.post(path, json=body)

    streaming, streamed = _in_background(long_stream)
    assert first_line.wait(60)
    unloading, unloaded = _in_background(lambda: post("/v1/models/unload", {"model": "twin"}))
    _until(lambda: _state(http, "twin") == "unloading", 10, "the unload to start")
    assert http.get("/slots", params={"model": "twin"}).json()[0]["state"] == "unloading"
    later, answered = _in_background(lambda: post("/v1/chat/completions", _chat("twin")))
    time.sleep(0.3)
    assert streaming.is_alive() and unloading.is_alive() and later.is_alive()
    streaming.join(180)
    assert '"finish_reason":"length"' in streamed[0] and f'"completion_tokens":{STREAM_TOKENS}' in streamed[0]
    unloading.join(60)
    assert unloaded[0].status_code == 200 and unloaded[0].json() == {"id": "twin", "object": "model", "loaded": False}
    later.join(180)
    assert answered[0].status_code == 200  # it waited, then the model loaded again
    assert metric(http, "superfluid_model_loads_total", model="twin", outcome="ok") == reloads + 1
    assert metric(http, "superfluid_model_unloads_total", model="twin", reason="admin") == 1


def test_load_route_statuses(fleet: RunningServer, http: httpx.Client) -> None:
    base = fleet.log_path.parent
    loaded = http.post("/v1/models/load", json={"model": SECOND_MODEL})
    assert loaded.status_code == 200 and loaded.json()["loaded"] is True and loaded.json()["id"] == SECOND_MODEL
    broken = http.post("/v1/models/load", json={"model": str(base / "broken.gguf")})
    assert broken.status_code == 400
    assert broken.json()["error"]["code"] == "unsupported_runtime"
    assert "cannot read" in broken.json()["error"]["message"]
    assert "broken" not in [m["id"] for m in http.get("/v1/models").json()["data"]]
    runtime = http.post("/v1/models/load", json={"model": SECOND_MODEL, "runtime": "mlx"})
    assert runtime.status_code == 400 and runtime.json()["error"]["code"] == "unsupported_runtime"
    assert runtime.json()["error"]["param"] == "runtime"
    missing = http.post("/v1/models/load", json={"model": str(base / "missing.gguf")})
    assert missing.status_code == 404 and missing.json()["error"]["param"] == "model"
    # Not in the Hugging Face cache and no network to fetch it from: 404 at once, not a 500 after retries.
    started = time.monotonic()
    offline = http.post("/v1/models/load", json={"model": "superfluid-tests/not-cached-GGUF:Q4_K_M"})
    assert offline.status_code == 404 and offline.json()["error"]["param"] == "model", offline.text
    assert time.monotonic() - started < 10
    assert "superfluid-tests/not-cached-GGUF" not in [m["id"] for m in http.get("/v1/models").json()["data"]]
    fixed = http.post("/v1/models/load", json={"model": SECOND_MODEL, "ctx_size": 512})
    assert fixed.status_code == 400 and fixed.json()["error"]["param"] == "ctx_size"
    added = http.post("/v1/models/load", json={"model": str(base / "twin.gguf"), "alias": "twin-b",
                                               "ctx_size": 512, "parallel": 1})
    assert added.status_code == 200, added.text
    assert (added.json()["id"], added.json()["meta"]["n_ctx"], added.json()["loaded"]) == ("twin-b", 512, True)
    assert http.get("/props", params={"model": "twin-b"}).json()["total_slots"] == 1
    assert http.post("/v1/chat/completions", json=_chat("twin-b")).status_code == 200
    assert len([m for m in http.get("/api/ps").json()["models"]]) <= 2


def test_the_sdk_deletes_a_model_by_unloading_it(fleet: RunningServer, http: httpx.Client) -> None:
    sdk = openai.OpenAI(base_url=fleet.base_url + "/v1", api_key="unused", max_retries=0)
    deleted = sdk.models.delete("twin-b")
    assert (deleted.id, deleted.deleted) == ("twin-b", True)
    assert http.get("/v1/models/twin-b").json()["loaded"] is False  # still known
    with pytest.raises(openai.NotFoundError):
        sdk.models.delete("no-such-model")
    assert http.post("/v1/chat/completions", json=_chat("twin-b")).status_code == 200  # loads again on demand
    assert Path(fleet.log_path).read_text().count("loaded twin-b in") == 2
