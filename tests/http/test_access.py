"""AccessGuard and AccessControl: keys, roles, QoS ceilings, per-key and per-IP limits, in front of an echo app."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from starlette.types import Message, Receive, Scope, Send

from superfluid.engine import request_scope
from superfluid.http.access import AccessControl, AccessGuard, is_admin_route, is_liveness
from superfluid.http.keys import digest
from superfluid.http.observe import KEY_ID, RequestObserver, RouteTable
from superfluid.settings import Settings


async def echo_app(scope: Scope, receive: Receive, send: Send) -> None:
    """Answers 200 with what a handler would see: the key id, the QoS header and the model allow-list."""
    while (await receive()).get("more_body"):
        pass
    current = request_scope.current()
    headers = {k.decode(): v.decode() for k, v in scope.get("headers", ())}
    body = json.dumps({"key_id": scope.get(KEY_ID), "qos": headers.get("x-superfluid-qos"),
                       "models": sorted(current.allowed_models) if current and current.allowed_models else None})
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]})
    await send({"type": "http.response.body", "body": body.encode()})


POLICY = """
[[keys]]
id = "boss"
key = "admin-key"
role = "admin"

[[keys]]
id = "user"
key = "user-key"

[[keys]]
id = "slow"
key = "slow-key"
rate = "1/m"
burst = 2

[[keys]]
id = "capped"
sha256 = "{capped}"
qos_ceiling = "agent"
models = ["small"]
""".replace("{capped}", digest("capped-key").hex())


def _control(tmp_path: Path, policy: str = POLICY, **settings: Any) -> AccessControl:
    path = tmp_path / "keys.toml"
    path.write_text(policy)
    return AccessControl.from_settings(Settings(key_policy=path, **settings))


def _client(control: AccessControl, app: Any = echo_app) -> TestClient:
    return TestClient(RequestObserver(AccessGuard(app, control=control), routes=RouteTable([])))


@pytest.fixture
def client(tmp_path: Path) -> TestClient:
    return _client(_control(tmp_path, api_keys=("s3cret",)))


def test_missing_key_is_401_in_openai_shape(client: TestClient) -> None:
    response = client.post("/v1/chat/completions", json={})
    assert response.status_code == 401
    error = response.json()["error"]
    assert (error["type"], error["code"]) == ("authentication_error", "invalid_api_key")
    assert error["message"].startswith("missing API key")


def test_wrong_key_is_401(client: TestClient) -> None:
    response = client.get("/v1/models", headers={"Authorization": "Bearer nope"})
    assert response.status_code == 401
    assert response.json()["error"]["message"].startswith("invalid API key")


def test_wrong_key_on_an_ollama_path_uses_ollama_errors(client: TestClient) -> None:
    response = client.post("/api/chat", headers={"X-Api-Key": "nope"}, json={})
    assert response.status_code == 401
    assert set(response.json()) == {"error"} and isinstance(response.json()["error"], str)


def test_wrong_key_on_the_anthropic_path(client: TestClient) -> None:
    response = client.post("/v1/messages", headers={"X-Api-Key": "nope"}, json={})
    assert response.status_code == 401
    assert response.json() == {"type": "error", "error": {"type": "authentication_error",
                                                          "message": response.json()["error"]["message"]}}


@pytest.mark.parametrize("headers", [
    {"Authorization": "Bearer s3cret"}, {"Authorization": "bearer s3cret"}, {"Authorization": "Bearer   s3cret  "},
    {"X-Api-Key": "s3cret"}, {"Authorization": "Basic dXNlcjpwYXNz", "X-Api-Key": "s3cret"},
])
def test_right_key_passes_and_its_id_is_on_the_scope(client: TestClient, headers: dict[str, str]) -> None:
    response = client.post("/v1/chat/completions", headers=headers, content=b"abc")
    assert response.status_code == 200
    assert response.json()["key_id"] == "key-" + digest("s3cret").hex()[:8]


def test_key_prefix_or_extension_is_not_enough(client: TestClient) -> None:
    assert client.get("/v1/models", headers={"Authorization": "Bearer s3cre"}).status_code == 401
    assert client.get("/v1/models", headers={"Authorization": "Bearer s3cret2"}).status_code == 401
    assert client.get("/v1/models", headers={"Authorization": "s3cret"}).status_code == 401


def test_liveness_routes_need_no_key(client: TestClient) -> None:
    assert client.get("/health").status_code == 200
    assert client.get("/").status_code == 200
    assert client.head("/").status_code == 200
    assert client.post("/").status_code == 401  # only the probe is open
    assert is_liveness("GET", "/") and not is_liveness("DELETE", "/")


def test_without_keys_everything_passes(tmp_path: Path) -> None:
    open_client = _client(AccessControl.from_settings(Settings()))
    assert open_client.get("/v1/models").json()["key_id"] is None
    assert open_client.post("/v1/models/load", json={}).status_code == 200


def test_admin_routes_refuse_user_keys(client: TestClient, tmp_path: Path) -> None:
    guarded = _client(_control(tmp_path))
    for method, path in [("POST", "/v1/models/load"), ("POST", "/v1/models/unload"), ("DELETE", "/v1/models/x"),
                         ("POST", "/v1/lora/load"), ("POST", "/v1/lora/unload")]:
        assert is_admin_route(method, path)
        refused = guarded.request(method, path, headers={"X-Api-Key": "user-key"})
        assert refused.status_code == 403, path
        assert refused.json()["error"]["code"] == "admin_required"
        assert refused.json()["error"]["type"] == "permission_error"
        assert guarded.request(method, path, headers={"X-Api-Key": "admin-key"}).status_code == 200
    # --api-key keys are admin keys
    assert client.post("/v1/models/load", headers={"X-Api-Key": "s3cret"}).status_code == 200


def test_qos_above_the_ceiling_is_403_and_a_missing_class_runs_at_the_ceiling(tmp_path: Path) -> None:
    guarded = _client(_control(tmp_path))
    key = {"X-Api-Key": "capped-key"}
    over = guarded.post("/v1/chat/completions", headers={**key, "x-superfluid-qos": "interactive"})
    assert over.status_code == 403 and over.json()["error"]["code"] == "admin_required"
    assert "ceiling" in over.json()["error"]["message"]
    assert guarded.post("/v1/chat/completions", headers={**key, "x-superfluid-qos": "background"}).status_code == 200
    assert guarded.post("/v1/chat/completions", headers=key).json()["qos"] == "agent"
    # an uncapped key keeps the route's own default
    assert guarded.post("/v1/chat/completions", headers={"X-Api-Key": "user-key"}).json()["qos"] is None


def test_the_allow_list_reaches_the_request_scope(tmp_path: Path) -> None:
    guarded = _client(_control(tmp_path))
    assert guarded.get("/v1/models", headers={"X-Api-Key": "capped-key"}).json()["models"] == ["small"]
    assert guarded.get("/v1/models", headers={"X-Api-Key": "user-key"}).json()["models"] is None


def test_per_key_rate_is_429_rate_limit_exceeded_with_retry_after(tmp_path: Path) -> None:
    guarded = _client(_control(tmp_path))
    key = {"X-Api-Key": "slow-key"}
    assert [guarded.get("/v1/models", headers=key).status_code for _ in range(2)] == [200, 200]
    refused = guarded.get("/v1/models", headers=key)
    assert refused.status_code == 429
    assert refused.json()["error"]["code"] == "rate_limit_exceeded"
    assert 55 <= int(refused.headers["retry-after"]) <= 60
    assert guarded.get("/v1/models", headers={"X-Api-Key": "user-key"}).status_code == 200  # others unaffected


def test_per_ip_rate_without_keys(tmp_path: Path) -> None:
    limited = _client(AccessControl.from_settings(Settings(rate_limit=0.5, rate_limit_burst=3)))
    statuses = [limited.get("/v1/models").status_code for _ in range(4)]
    assert statuses == [200, 200, 200, 429]
    assert limited.get("/health").status_code == 200  # liveness is exempt
    refused = limited.post("/api/chat", json={})
    assert refused.json() == {"error": refused.json()["error"]} and int(refused.headers["retry-after"]) >= 1


def test_per_key_concurrency_counts_posts_in_flight(tmp_path: Path) -> None:
    control = _control(tmp_path, POLICY + '\n[[keys]]\nid = "pair"\nkey = "pair-key"\nmax_concurrent = 2\n')
    release = asyncio.Event()

    async def held(scope: Scope, receive: Receive, send: Send) -> None:
        await release.wait()
        await echo_app(scope, receive, send)

    guard = AccessGuard(held, control=control)

    async def call(method: str = "POST") -> tuple[int, dict[str, str], Any]:
        scope: Scope = {"type": "http", "method": method, "path": "/v1/chat/completions", "query_string": b"",
                        "headers": [(b"x-api-key", b"pair-key")], "client": ("10.0.0.1", 1)}
        sent: list[Message] = []

        async def receive() -> Message:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message: Message) -> None:
            sent.append(message)

        await guard(scope, receive, send)
        headers = {k.decode(): v.decode() for k, v in sent[0]["headers"]}
        return sent[0]["status"], headers, json.loads(sent[1]["body"])

    async def scenario() -> list[tuple[int, dict[str, str], Any]]:
        first = [asyncio.ensure_future(call()) for _ in range(2)]
        await asyncio.sleep(0.01)
        refused = await call()
        a_get = asyncio.ensure_future(call("GET"))  # GETs do not count
        await asyncio.sleep(0.01)
        release.set()
        done = [*(await asyncio.gather(*first)), refused, await a_get]
        assert control.in_flight.count("pair") == 0
        return [*done, await call()]

    results = asyncio.run(scenario())
    assert [r[0] for r in results] == [200, 200, 429, 200, 200]
    _, headers, body = results[2]
    assert body["error"]["code"] == "concurrency_limit_exceeded"
    assert headers["retry-after"] == "1"


def test_sighup_reload_swaps_keys_and_a_broken_file_keeps_the_old_ones(tmp_path: Path) -> None:
    control = _control(tmp_path)
    guarded = _client(control)
    assert guarded.get("/v1/models", headers={"X-Api-Key": "user-key"}).status_code == 200
    (tmp_path / "keys.toml").write_text('[[keys]]\nid = "new"\nkey = "new-key"\n')
    assert control.reload()
    assert guarded.get("/v1/models", headers={"X-Api-Key": "user-key"}).status_code == 401
    assert guarded.get("/v1/models", headers={"X-Api-Key": "new-key"}).status_code == 200
    (tmp_path / "keys.toml").write_text("[[keys]]\nrole = 'root'\n")
    assert not control.reload()
    assert guarded.get("/v1/models", headers={"X-Api-Key": "new-key"}).status_code == 200


def test_a_key_file_holds_admin_keys(tmp_path: Path) -> None:
    path = tmp_path / "keys.txt"
    path.write_text("# team keys\nfile-key-1\n\n  file-key-2  \n")
    guarded = _client(AccessControl.from_settings(Settings(api_key_file=path)))
    for key in ("file-key-1", "file-key-2"):
        assert guarded.post("/v1/models/load", headers={"X-Api-Key": key}).status_code == 200
    assert guarded.get("/v1/models", headers={"X-Api-Key": "# team keys"}).status_code == 401
