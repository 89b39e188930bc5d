"""Routing over several documents at one base path: every document's routes are reached."""

from __future__ import annotations

from starlette.testclient import TestClient

from superfluid.app import SPECS


def test_the_app_mounts_three_documents_at_the_root() -> None:
    assert len(SPECS) >= 3


def test_each_documents_routes_answer(fake_app: TestClient) -> None:
    assert fake_app.get("/health").status_code == 200  # openai.yaml, the first
    version = fake_app.get("/api/version")  # ollama.yaml, the middle one Connexion's own routing loses
    assert version.status_code == 200, version.text
    messages = fake_app.post("/v1/messages", json={"model": "m", "messages": [{"role": "user", "content": "hi"}]})
    assert messages.status_code == 400  # anthropic.yaml's own validation: max_tokens is required
    assert messages.json() == {"type": "error", "error": {
        "type": "invalid_request_error", "message": "max_tokens: missing required field 'max_tokens'"}}


def test_a_route_no_document_has_is_still_a_404(fake_app: TestClient) -> None:
    assert fake_app.get("/api/no-such-route").status_code == 404
    assert fake_app.post("/v1/messages/nothing").status_code == 404
