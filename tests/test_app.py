"""create_app: the guards and error rendering wired around the real spec, over a fake Services."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient
from starlette.types import Message

from superfluid.app import create_app
from superfluid.settings import Settings
from tests.conftest import FakeServices, app_client


def test_health_is_served(fake_app: TestClient) -> None:
    response = fake_app.get("/health")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


def test_lifespan_starts_the_injected_services_and_leaves_closing_to_their_owner() -> None:
    settings = Settings()
    services = FakeServices(settings)
    app = create_app(settings, services=services)  # type: ignore[arg-type]
    with TestClient(app):
        assert services.started
    assert not services.closed


def test_unknown_route_is_a_404_in_openai_shape(fake_app: TestClient) -> None:
    response = fake_app.get("/v1/nothing-here")
    assert response.status_code == 404
    assert response.json()["error"]["type"] == "not_found_error"


def test_wrong_method_keeps_its_status(fake_app: TestClient) -> None:
    response = fake_app.get("/v1/chat/completions")
    assert response.status_code == 405
    assert response.json()["error"]["type"] == "invalid_request_error"


def test_declared_body_over_the_limit_is_a_413(fake_app: TestClient, app_settings: Settings) -> None:
    response = fake_app.post("/v1/chat/completions", content=b" " * (app_settings.max_body_bytes + 1),
                             headers={"content-type": "application/json"})
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "payload_too_large"


def test_body_longer_than_declared_is_refused_with_a_413(app_settings: Settings) -> None:
    """The streamed-body check raises from inside receive(); the app's error handler must render it."""
    app = create_app(app_settings, services=FakeServices(app_settings))  # type: ignore[arg-type]
    parts = [b'{"model":"m","messages":[{"role":"user","content":"'] + [b"x" * 1024] * 5 + [b'"}]}']
    inbox: list[Message] = [
        {"type": "http.request", "body": p, "more_body": i < len(parts) - 1} for i, p in enumerate(parts)
    ]
    sent: list[Message] = []

    async def receive() -> Message:
        return inbox.pop(0) if inbox else {"type": "http.disconnect"}

    async def send(message: Message) -> None:
        sent.append(message)

    scope: dict[str, Any] = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST", "scheme": "http",
        "path": "/v1/chat/completions", "raw_path": b"/v1/chat/completions", "query_string": b"",
        "root_path": "", "client": ("127.0.0.1", 1), "server": ("testserver", 80), "state": {},
        "headers": [(b"host", b"testserver"), (b"content-type", b"application/json"), (b"content-length", b"60")],
    }
    asyncio.run(app(scope, receive, send))
    assert sent[0]["status"] == 413
    body = json.loads(b"".join(m.get("body", b"") for m in sent[1:]))
    assert body["error"]["code"] == "payload_too_large"


@pytest.fixture(scope="module")
def keyed_app() -> Iterator[TestClient]:
    yield from app_client(Settings(api_keys=("k3y",)))


def test_api_key_guard_is_installed(keyed_app: TestClient) -> None:
    assert keyed_app.get("/v1/models").status_code == 401
    assert keyed_app.get("/health").status_code == 200
    response = keyed_app.get("/v1/models", headers={"Authorization": "Bearer k3y"})
    assert response.status_code == 404  # authenticated; the fake services know no models


@pytest.fixture(scope="module")
def cors_app() -> Iterator[TestClient]:
    yield from app_client(Settings(cors_origins=("https://app.example",), api_keys=("k3y",)))


def test_cors_preflight_from_an_allowed_origin_needs_no_key(cors_app: TestClient) -> None:
    response = cors_app.options("/v1/chat/completions", headers={
        "Origin": "https://app.example", "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization, content-type"})
    assert response.status_code == 200
    assert response.headers["access-control-allow-origin"] == "https://app.example"
    refused = cors_app.options("/v1/chat/completions", headers={
        "Origin": "https://evil.example", "Access-Control-Request-Method": "POST"})
    assert refused.status_code == 400
    assert "access-control-allow-origin" not in refused.headers
    # a refusal is still readable by the allowed origin's page
    unauthorized = cors_app.get("/v1/models", headers={"Origin": "https://app.example"})
    assert unauthorized.status_code == 401
    assert unauthorized.headers["access-control-allow-origin"] == "https://app.example"


def test_without_cors_origins_no_cors_headers_are_sent(fake_app: TestClient) -> None:
    response = fake_app.get("/health", headers={"Origin": "https://app.example"})
    assert "access-control-allow-origin" not in response.headers


def test_metrics_are_served_on_both_paths(fake_app: TestClient) -> None:
    for path in ("/metrics", "/v1/metrics"):
        response = fake_app.get(path)
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/plain; version=0.0.4")
        assert "superfluid_requests_total" in response.text


def _operations(document: str) -> dict[str, str]:
    """"METHOD /path" -> operationId in one of openapi/'s documents."""
    from pathlib import Path

    import yaml

    doc = yaml.safe_load((Path(__file__).resolve().parents[1] / "openapi" / f"{document}.yaml").read_text())
    return {f"{method.upper()} {path}": operation["operationId"] for path, item in doc["paths"].items()
            for method, operation in item.items() if isinstance(operation, dict) and "operationId" in operation}


def test_the_openai_document_is_valid() -> None:
    from pathlib import Path

    import yaml
    from openapi_spec_validator import OpenAPIV30SpecValidator

    doc = yaml.safe_load((Path(__file__).resolve().parents[1] / "openapi" / "openai.yaml").read_text())
    errors = list(OpenAPIV30SpecValidator(doc).iter_errors())
    assert not errors, errors


def test_every_operation_has_a_public_name_and_a_handler() -> None:
    """operationIds are names, not import paths: unique across the three documents, camelCase, each served by
    a handler through the resolver's table (and the table names nothing the documents lack)."""
    import re

    from superfluid.handlers.routes import OPERATIONS, resolve

    names = [name for document in ("openai", "anthropic", "ollama") for name in _operations(document).values()]
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)
    assert all(re.fullmatch(r"[a-z][a-zA-Z0-9]*", name) for name in names), names
    assert set(names) == set(OPERATIONS)
    for name in names:
        assert callable(resolve(name)), name
    # /metrics and /v1/metrics: two operations, one handler
    assert resolve("getMetrics") is resolve("getMetricsV1")


def test_openai_operations_carry_openai_names() -> None:
    """Where OpenAI's published description has the same method and path (less /v1), the name is OpenAI's."""
    from superfluid.conformance.published import shipped

    published = shipped()["openai"]["operations"]
    ours = _operations("openai")
    same = {key: name for key, name in ours.items()
            if (theirs := published.get(key.replace(" /v1/", " /", 1))) is not None and theirs != name}
    assert not same, same
    shared = [key for key in ours if key.replace(" /v1/", " /", 1) in published]
    assert len(shared) >= 20, shared  # chat, completions, models, responses, embeddings, audio, files, batches
