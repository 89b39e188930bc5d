"""Keys, roles and limits on the real server, seen by httpx and the official openai SDK; metrics and the access log.

One module server with several flags at once: a key policy and a key file, a per-IP rate limit, CORS, JSON logs and
--nonstream-keepalive. Every test speaks as its own client address (X-Forwarded-For, which uvicorn trusts from
loopback), so the per-IP limit counts each test on its own.
"""

from __future__ import annotations

import itertools
import json
import os
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anthropic
import httpx
import openai
import pytest
from prometheus_client.parser import text_string_to_metric_families

from conformance.server import DEFAULT_MODEL, SECOND_MODEL, RunningServer, start_server, stop_server
from superfluid.http.keys import digest

ADMIN, USER, PAIR, SLOW, CAPPED, FILE_KEY = "admin-k3y", "user-k3y", "pair-k3y", "slow-k3y", "capped-k3y", "file-k3y"
KEYS = (ADMIN, USER, PAIR, SLOW, CAPPED, FILE_KEY)
ORIGIN = "https://app.example"

POLICY = f"""
[[keys]]
id = "admin"
key = "{ADMIN}"
role = "admin"

[[keys]]
id = "user"
sha256 = "{digest(USER).hex()}"

[[keys]]
id = "pair"
key = "{PAIR}"
max_concurrent = 1

[[keys]]
id = "slow"
key = "{SLOW}"
rate = "30/m"
burst = 1

[[keys]]
id = "capped"
key = "{CAPPED}"
qos_ceiling = "agent"
models = ["{DEFAULT_MODEL}"]
"""

_addresses = (f"10.7.{i // 250}.{i % 250 + 1}" for i in itertools.count())


@pytest.fixture(scope="module")
def secured(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    base = tmp_path_factory.mktemp("secured")
    (base / "policy.toml").write_text(POLICY)
    (base / "keys.txt").write_text(f"# admin keys\n{FILE_KEY}\n")
    running = start_server(
        [DEFAULT_MODEL, SECOND_MODEL, "--parallel", "2", "--ctx-size", "2048", "--threads", "1",
         "--key-policy", str(base / "policy.toml"), "--api-key-file", str(base / "keys.txt"),
         "--rate-limit", "5/s", "--rate-limit-burst", "12", "--cors-origin", ORIGIN, "--log-format", "json",
         "--nonstream-keepalive", "0.2"],
        base / "serve.log",
    )
    yield running
    stop_server(running)


def _client(server: RunningServer, key: str | None = None) -> httpx.Client:
    headers = {"X-Forwarded-For": next(_addresses)}
    if key is not None:
        headers["Authorization"] = f"Bearer {key}"
    return httpx.Client(base_url=server.base_url, headers=headers, timeout=120)


def _sdk(server: RunningServer, key: str, *, retries: int = 0) -> openai.OpenAI:
    return openai.OpenAI(base_url=server.base_url + "/v1", api_key=key, max_retries=retries, timeout=120,
                         default_headers={"X-Forwarded-For": next(_addresses)})


def _chat(**extra: Any) -> dict[str, Any]:
    return {"model": DEFAULT_MODEL, "messages": [{"role": "user", "content": "Say hi."}], "max_tokens": 4,
            "temperature": 0, **extra}


# ---- 401 -------------------------------------------------------------------------------------------------


def test_a_missing_or_wrong_key_is_401_in_each_dialect(secured: RunningServer) -> None:
    with _client(secured) as http:
        openai_error = http.post("/v1/chat/completions", json=_chat()).json()["error"]
        assert (openai_error["type"], openai_error["code"]) == ("authentication_error", "invalid_api_key")
        ollama = http.post("/api/chat", json={"model": DEFAULT_MODEL, "messages": []},
                           headers={"X-Api-Key": "nope"})
        assert ollama.status_code == 401 and set(ollama.json()) == {"error"}
        assert isinstance(ollama.json()["error"], str) and "invalid API key" in ollama.json()["error"]
        anthropic = http.post("/v1/messages", json={}, headers={"X-Api-Key": "nope"})
        assert anthropic.status_code == 401
        assert anthropic.json()["type"] == "error" and anthropic.json()["error"]["type"] == "authentication_error"
        for path in ("/v1/models", "/metrics", "/slots", "/api/tags"):
            assert http.get(path).status_code == 401, path


def test_liveness_answers_without_a_key(secured: RunningServer) -> None:
    with _client(secured) as http:
        assert http.get("/health").json() == {"status": "ok"}
        assert http.get("/").text == "superfluid is running"
        assert http.head("/").status_code == 200


def test_every_key_source_authenticates(secured: RunningServer) -> None:
    with _client(secured) as http:
        for key in KEYS:
            assert http.get("/v1/models", headers={"X-Api-Key": key}).status_code == 200, key


def test_the_sdk_sees_authentication_error(secured: RunningServer) -> None:
    with pytest.raises(openai.AuthenticationError) as caught:
        _sdk(secured, "wrong-key").models.list()
    assert caught.value.status_code == 401 and caught.value.code == "invalid_api_key"


# ---- 403 -------------------------------------------------------------------------------------------------


def test_admin_routes_refuse_user_keys(secured: RunningServer) -> None:
    with _client(secured, USER) as http:
        for method, path, body in [("POST", "/v1/models/load", {"model": SECOND_MODEL}),
                                   ("POST", "/v1/models/unload", {"model": DEFAULT_MODEL}),
                                   ("DELETE", f"/v1/models/{DEFAULT_MODEL}", None)]:
            refused = http.request(method, path, json=body)
            assert refused.status_code == 403, path
            assert refused.json()["error"]["code"] == "admin_required"
    with pytest.raises(openai.PermissionDeniedError) as caught:
        _sdk(secured, USER).models.delete(DEFAULT_MODEL)
    assert caught.value.code == "admin_required"
    # the key file's keys are admin keys
    with _client(secured, FILE_KEY) as http:
        assert http.post("/v1/models/unload", json={"model": SECOND_MODEL}).status_code == 200


def test_a_qos_class_above_the_ceiling_is_403(secured: RunningServer) -> None:
    sdk = _sdk(secured, CAPPED)
    with pytest.raises(openai.PermissionDeniedError) as caught:
        sdk.chat.completions.create(**_chat(), extra_headers={"x-superfluid-qos": "interactive"})
    assert caught.value.code == "admin_required"
    for qos in ("agent", "background"):
        reply = sdk.chat.completions.create(**_chat(), extra_headers={"x-superfluid-qos": qos})
        assert reply.choices[0].finish_reason in ("stop", "length")
    assert sdk.chat.completions.create(**_chat()).choices  # no header: runs at the ceiling


def test_the_model_allow_list_hides_other_models(secured: RunningServer) -> None:
    with _client(secured, CAPPED) as http:
        assert [m["id"] for m in http.get("/v1/models").json()["data"]] == [DEFAULT_MODEL]
        assert [m["name"] for m in http.get("/api/tags").json()["models"]] == [DEFAULT_MODEL]
        hidden = http.post("/v1/chat/completions", json=_chat(model=SECOND_MODEL),
                           headers={"x-superfluid-qos": "agent"})
        assert hidden.status_code == 404 and "does not exist" in hidden.json()["error"]["message"]
        assert http.get(f"/v1/models/{SECOND_MODEL}").status_code == 404
        assert http.post("/api/show", json={"model": SECOND_MODEL}).status_code == 404
    with _client(secured, USER) as http:
        assert len(http.get("/v1/models").json()["data"]) == 2


# ---- 429 -------------------------------------------------------------------------------------------------


def test_per_key_concurrency_is_429_with_retry_after(secured: RunningServer) -> None:
    opened = threading.Event()
    finish: list[str] = []

    def hold_a_stream() -> None:
        body = _chat(max_tokens=60, ignore_eos=True, stream=True)
        with _client(secured, PAIR) as http, http.stream("POST", "/v1/chat/completions", json=body) as response:
            for line in response.iter_lines():
                opened.set()
                if line.startswith("data: {") and '"finish_reason":"length"' in line:
                    finish.append("length")

    holder = threading.Thread(target=hold_a_stream)
    holder.start()
    assert opened.wait(60)
    with _client(secured, PAIR) as http:
        refused = http.post("/v1/chat/completions", json=_chat())
        assert refused.status_code == 429
        assert refused.json()["error"]["code"] == "concurrency_limit_exceeded"
        assert refused.headers["retry-after"] == "1"
        assert http.get("/v1/models").status_code == 200  # GETs are not counted
    holder.join(120)
    assert finish == ["length"]
    with _client(secured, PAIR) as http:
        assert http.post("/v1/chat/completions", json=_chat()).status_code == 200


def test_per_key_rate_is_429_and_the_sdk_retry_honours_retry_after(secured: RunningServer) -> None:
    time.sleep(2.1)  # the key's bucket (30/m, burst 1) refills from its use in an earlier test of this module
    with _client(secured, SLOW) as http:
        assert http.get("/v1/models").status_code == 200
        refused = http.get("/v1/models")
        assert refused.status_code == 429 and refused.json()["error"]["code"] == "rate_limit_exceeded"
        wait = int(refused.headers["retry-after"])
        assert 1 <= wait <= 2
    with pytest.raises(openai.RateLimitError) as caught:
        _sdk(secured, SLOW).models.list()
    assert caught.value.code == "rate_limit_exceeded"
    started = time.monotonic()
    models = _sdk(secured, SLOW, retries=2).models.list()  # waits as Retry-After says, then succeeds
    assert time.monotonic() - started >= 1.0
    assert [m.id for m in models.data] == [DEFAULT_MODEL, SECOND_MODEL]


def test_per_ip_rate_is_429_in_each_dialect(secured: RunningServer) -> None:
    with _client(secured, ADMIN) as http:
        statuses = []
        while len(statuses) < 100 and 429 not in statuses:
            statuses.append(http.get("/api/version").status_code)
        assert statuses[:12] == [200] * 12 and statuses[-1] == 429
        refused = http.get("/api/tags")
        assert refused.status_code == 429 and set(refused.json()) == {"error"}
        assert int(refused.headers["retry-after"]) >= 1
        assert http.get("/health").status_code == 200  # liveness is never limited


# ---- CORS, keep-alive -----------------------------------------------------------------------------------


def test_cors_preflight_allowed_and_refused(secured: RunningServer) -> None:
    with _client(secured) as http:
        asked = {"Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization"}
        allowed = http.options("/v1/chat/completions", headers={"Origin": ORIGIN, **asked})
        assert allowed.status_code == 200
        assert allowed.headers["access-control-allow-origin"] == ORIGIN
        assert "authorization" in allowed.headers["access-control-allow-headers"].lower()
        refused = http.options("/v1/chat/completions", headers={"Origin": "https://evil.example", **asked})
        assert refused.status_code == 400 and "access-control-allow-origin" not in refused.headers
        real = http.get("/v1/models", headers={"Origin": ORIGIN, "Authorization": f"Bearer {USER}"})
        assert real.headers["access-control-allow-origin"] == ORIGIN


def test_nonstream_keepalive_pads_a_json_reply(secured: RunningServer) -> None:
    with _client(secured, ADMIN) as http:
        reply = http.post("/v1/chat/completions", json=_chat(max_tokens=48, ignore_eos=True))
        assert reply.status_code == 200 and reply.headers["x-superfluid-keepalive"] == "whitespace"
        assert int(reply.headers["x-superfluid-warm"]) >= 0
        assert json.loads(reply.text)["usage"]["completion_tokens"] == 48
        completion = http.post("/v1/completions", json={"model": DEFAULT_MODEL, "prompt": "Once", "max_tokens": 4})
        assert completion.headers["x-superfluid-keepalive"] == "whitespace" and completion.json()["choices"]
    assert _sdk(secured, ADMIN).chat.completions.create(**_chat()).choices[0].message.content is not None


def test_nonstream_keepalive_pads_an_anthropic_message(secured: RunningServer) -> None:
    body = {"model": DEFAULT_MODEL, "max_tokens": 48, "messages": [{"role": "user", "content": "Say hi."}],
            "temperature": 0, "ignore_eos": True}
    with _client(secured, ADMIN) as http:
        reply = http.post("/v1/messages", json=body, headers={"anthropic-version": "2023-06-01"})
    assert reply.status_code == 200 and reply.headers["x-superfluid-keepalive"] == "whitespace"
    assert int(reply.headers["x-superfluid-warm"]) >= 0
    message = json.loads(reply.text)  # leading spaces (the padding) are valid JSON
    assert message["type"] == "message" and message["usage"]["output_tokens"] == 48
    sdk = anthropic.Anthropic(base_url=secured.base_url, api_key=ADMIN, max_retries=0, timeout=120,
                              default_headers={"X-Forwarded-For": next(_addresses)})
    assert sdk.messages.create(model=DEFAULT_MODEL, max_tokens=4,
                               messages=[{"role": "user", "content": "Say hi."}]).type == "message"


# ---- metrics and the access log -------------------------------------------------------------------------


def _scrape(http: httpx.Client) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    text = http.get("/v1/metrics").text
    return {(s.name, frozenset(s.labels.items())): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def test_metrics_move_by_the_right_amounts(secured: RunningServer) -> None:
    model = frozenset({("model", DEFAULT_MODEL)})
    ok = frozenset({("route", "/v1/chat/completions"), ("method", "POST"), ("dialect", "openai"),
                    ("status", "200"), ("model", DEFAULT_MODEL)})
    with _client(secured, ADMIN) as http:
        before = _scrape(http)
        replies = [http.post("/v1/chat/completions", json=_chat(max_tokens=5, ignore_eos=True)).json()
                   for _ in range(2)]
        with _client(secured) as anonymous:
            assert anonymous.get("/v1/models").status_code == 401
        after = _scrape(http)

    def moved(name: str, labels: frozenset[tuple[str, str]]) -> float:
        return after.get((name, labels), 0.0) - before.get((name, labels), 0.0)

    assert moved("superfluid_requests_total", ok) == 2
    assert moved("superfluid_completion_tokens_total", model) == 10
    assert moved("superfluid_prompt_tokens_total", model) == sum(r["usage"]["prompt_tokens"] for r in replies)
    cached = sum(r["usage"]["prompt_tokens_details"]["cached_tokens"] for r in replies)
    assert moved("superfluid_prompt_tokens_cached_total", model) == cached
    assert moved("superfluid_time_to_first_token_seconds_count", model) == 2
    assert moved("superfluid_inter_token_latency_seconds_count", model) == 8
    assert moved("superfluid_choices_finished_total", model | {("reason", "length")}) == 2
    assert moved("superfluid_auth_failures_total", frozenset({("code", "invalid_api_key")})) == 1
    # Engine time: one prefill decode per request (short prompts), then the other 4 tokens of each reply from
    # generation decodes (fewer calls than tokens only if drafts stood); steps hold their decodes.
    prefill, generation = model | {("kind", "prefill")}, model | {("kind", "generation")}
    assert moved("superfluid_engine_decodes_total", prefill) == 2
    assert 2 <= moved("superfluid_engine_decodes_total", generation) <= 8
    assert moved("superfluid_engine_decode_rows_total", generation) >= 8
    assert moved("superfluid_engine_decode_rows_total", prefill) >= sum(
        r["usage"]["prompt_tokens"] - r["usage"]["prompt_tokens_details"]["cached_tokens"] for r in replies)
    decode_s = sum(moved("superfluid_engine_decode_seconds_total", kind) for kind in (prefill, generation))
    assert 0 < decode_s <= moved("superfluid_engine_step_seconds_total", model)
    assert moved("superfluid_engine_gathers_total", model) == 0  # one request at a time: no burst to wait for
    assert after[("superfluid_lanes", model)] == 2
    assert after[("superfluid_model_loaded", model)] == 1
    for name in ("superfluid_lanes_busy", "superfluid_kv_pool_usage_ratio", "superfluid_prefix_cache_hit_ratio",
                 "superfluid_draft_acceptance_ratio"):
        assert (name, model) in after, name
    assert ("superfluid_queue_depth", model | {("qos", "background")}) in after
    refusals = {labels for name, labels in after if name == "superfluid_rate_limited_total"}
    assert {frozenset({("code", c)}) for c in ("rate_limit_exceeded", "concurrency_limit_exceeded")} <= refusals


def test_the_access_log_is_json_with_key_ids_and_never_a_key(secured: RunningServer) -> None:
    time.sleep(0.2)
    lines = [json.loads(line) for line in secured.log_path.read_text().splitlines() if line.startswith("{")]
    access = [line for line in lines if line.get("logger") == "superfluid.access"]
    assert access, "no access lines"
    chat = [a for a in access if a["path"] == "/v1/chat/completions" and a["method"] == "POST" and a["status"] == 200]
    assert chat and all(a["key_id"] for a in chat)
    assert {"method", "path", "status", "model", "prompt_tokens", "completion_tokens", "ttft_ms", "duration_ms",
            "key_id"} <= set(chat[-1])
    assert chat[-1]["model"] == DEFAULT_MODEL and chat[-1]["ttft_ms"] > 0
    assert {a["key_id"] for a in access} >= {"admin", "user", "pair", "slow", "capped"}
    text = secured.log_path.read_text()
    for key in KEYS:
        assert key not in text, "a key was logged"


# ---- SIGHUP (last: it changes the keys) -------------------------------------------------------------------


def test_sighup_reloads_the_policy_without_dropping_requests(secured: RunningServer) -> None:
    policy = secured.log_path.parent / "policy.toml"
    result: dict[str, Any] = {}

    def stream_through_the_reload() -> None:
        body = _chat(max_tokens=60, ignore_eos=True, stream=True)
        with _client(secured, USER) as http, http.stream("POST", "/v1/chat/completions", json=body) as response:
            result["status"] = response.status_code
            result["lines"] = [line for line in response.iter_lines() if line.startswith("data: ")]

    streaming = threading.Thread(target=stream_through_the_reload)
    streaming.start()
    time.sleep(0.3)
    policy.write_text(POLICY.replace(f'sha256 = "{digest(USER).hex()}"', 'key = "rotated-k3y"'))
    os.kill(secured.process.pid, signal.SIGHUP)
    deadline = time.monotonic() + 10
    with _client(secured) as http:
        while time.monotonic() < deadline:
            if http.get("/v1/models", headers={"X-Api-Key": "rotated-k3y"}).status_code == 200:
                break
            time.sleep(0.1)
        assert http.get("/v1/models", headers={"X-Api-Key": "rotated-k3y"}).status_code == 200
        assert http.get("/v1/models", headers={"X-Api-Key": USER}).status_code == 401
    streaming.join(120)
    assert result["status"] == 200 and result["lines"][-1] == "data: [DONE]"
    final = json.loads(result["lines"][-2][len("data: "):])
    assert final["choices"][0]["finish_reason"] == "length" and final["usage"]["completion_tokens"] == 60
    assert secured.process.poll() is None  # SIGHUP did not stop the server
    # a broken file leaves the keys in force
    policy.write_text("[[keys]]\nrole = 'root'\n")
    os.kill(secured.process.pid, signal.SIGHUP)
    time.sleep(0.5)
    with _client(secured, "rotated-k3y") as http:
        assert http.get("/v1/models").status_code == 200
    assert "keys not reloaded" in Path(secured.log_path).read_text()
