"""The Anthropic document wired into the real app over fake services: a valid document whose operations all
resolve, request checks before any model lookup, and Anthropic's error body."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from openapi_spec_validator import validate
from starlette.testclient import TestClient

from superfluid.handlers.routes import resolve

SPEC = yaml.safe_load((Path(__file__).resolve().parents[2] / "openapi" / "anthropic.yaml").read_text())
OK = {"model": "m", "max_tokens": 4, "messages": [{"role": "user", "content": "hi"}]}


def _error(response: Any, status: int) -> str:
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"type", "error"} and body["type"] == "error" and set(body["error"]) == {"type", "message"}
    return str(body["error"]["message"])


def test_the_document_is_valid_and_every_operation_resolves() -> None:
    validate(SPEC)
    for item in SPEC["paths"].values():
        for operation in item.values():
            assert resolve(operation["operationId"]).__module__ == "superfluid.handlers.anthropic.messages"


@pytest.mark.parametrize(("change", "field"), [
    ({"max_tokens": None}, "max_tokens"),
    ({"max_tokens": 0}, "max_tokens"),
    ({"messages": []}, "messages"),
    ({"messages": [{"role": "tool", "content": "x"}]}, "messages[0].role"),
    ({"messages": [{"role": "user", "content": [{"type": "video"}]}]}, "messages[0].content"),
    ({"tool_choice": {"type": "maybe"}}, "tool_choice.type"),
    ({"tools": [{"type": "web_search_20250305"}]}, "tools[0]"),
    ({"thinking": {"type": "sometimes"}}, "thinking.type"),
    ({"temperature": 1.5}, "temperature"),
    ({"seed": "abc"}, "seed"),
    ({"logit_bias": 5}, "logit_bias"),
    ({"min_p": "x"}, "min_p"),
])
def test_requests_are_checked_before_the_model_is_looked_up(fake_app: TestClient, change: dict[str, Any],
                                                            field: str) -> None:
    body = {k: v for k, v in {**OK, **change}.items() if v is not None}
    assert _error(fake_app.post("/v1/messages", json=body), 400).startswith(field)


def test_unknown_fields_and_headers_pass_to_the_model_lookup(fake_app: TestClient) -> None:
    headers = {"anthropic-version": "2023-06-01", "anthropic-beta": "anything", "x-api-key": "k"}
    body = {**OK, "no_such_field": [1], "metadata": {"user_id": "u"}, "service_tier": "auto"}
    assert "no-engine-in-unit-tests" in _error(fake_app.post("/v1/messages", json=body, headers=headers), 404)
    counted = fake_app.post("/v1/messages/count_tokens", json={"model": "m", "messages": OK["messages"]})
    _error(counted, 404)  # max_tokens is not required here


def test_unknown_route_and_method_in_anthropic_shape(fake_app: TestClient) -> None:
    _error(fake_app.get("/v1/messages"), 405)
    _error(fake_app.post("/v1/messages/batches"), 404)
