"""TypedJSONBodyValidator, through the real app: spec violations become 400s naming the field."""

from __future__ import annotations

from typing import Any

import pytest
from starlette.testclient import TestClient

CHAT = "/v1/chat/completions"


def _valid_chat(**overrides: Any) -> dict[str, Any]:
    return {"model": "m", "messages": [{"role": "user", "content": "hi"}], **overrides}


def _error(response: Any) -> dict[str, Any]:
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert set(body) == {"error"}
    assert set(body["error"]) == {"message", "type", "param", "code"}
    return dict(body["error"])


def test_a_valid_body_reaches_the_handler(fake_app: TestClient) -> None:
    response = fake_app.post(CHAT, json=_valid_chat())
    assert response.status_code == 404  # the fake services know no models: the handler ran
    assert _error(response)["param"] == "model"


@pytest.mark.parametrize("field", ["model", "messages"])
def test_missing_required_field_is_named(fake_app: TestClient, field: str) -> None:
    body = _valid_chat()
    del body[field]
    response = fake_app.post(CHAT, json=body)
    assert response.status_code == 400
    error = _error(response)
    assert error["type"] == "invalid_request_error"
    assert error["param"] == field
    assert field in error["message"]


def test_missing_nested_required_field_names_its_path(fake_app: TestClient) -> None:
    response = fake_app.post(CHAT, json=_valid_chat(messages=[{"role": "user", "content": "a"}, {"content": "b"}]))
    assert response.status_code == 400
    assert _error(response)["param"] == "messages[1].role"


def test_wrong_type_in_a_message_names_the_path(fake_app: TestClient) -> None:
    response = fake_app.post(CHAT, json=_valid_chat(messages=[{"role": "user", "content": 5}]))
    assert response.status_code == 400
    error = _error(response)
    assert error["param"] == "messages[0].content"
    assert "messages[0].content" in error["message"]


def test_wrong_type_deep_inside_a_content_part(fake_app: TestClient) -> None:
    parts = [{"type": "text", "text": "ok"}, {"type": "text", "text": 3}]
    response = fake_app.post(CHAT, json=_valid_chat(messages=[{"role": "user", "content": parts}]))
    assert response.status_code == 400
    assert _error(response)["param"] == "messages[0].content[1].text"


def test_wrong_type_at_the_top_level(fake_app: TestClient) -> None:
    response = fake_app.post(CHAT, json=_valid_chat(temperature="hot"))
    assert response.status_code == 400
    error = _error(response)
    assert error["param"] == "temperature"
    assert "'hot'" in error["message"]


def test_out_of_range_value(fake_app: TestClient) -> None:
    response = fake_app.post(CHAT, json=_valid_chat(top_p=1.5))
    assert response.status_code == 400
    assert _error(response)["param"] == "top_p"


def test_bad_enum_value(fake_app: TestClient) -> None:
    response = fake_app.post(CHAT, json=_valid_chat(messages=[{"role": "narrator", "content": "x"}]))
    assert response.status_code == 400
    assert _error(response)["param"] == "messages[0].role"


def test_unknown_fields_are_ignored(fake_app: TestClient) -> None:
    response = fake_app.post(CHAT, json=_valid_chat(some_future_field={"x": 1}))
    assert response.status_code == 404  # got past validation to the handler


def test_malformed_json_is_a_400(fake_app: TestClient) -> None:
    response = fake_app.post(CHAT, content=b'{"model": ', headers={"content-type": "application/json"})
    assert response.status_code == 400
    error = _error(response)
    assert error["message"].startswith("malformed JSON body")
    assert error["param"] is None


def test_invalid_utf8_is_a_400(fake_app: TestClient) -> None:
    response = fake_app.post(CHAT, content=b'{"model": "\xff"}', headers={"content-type": "application/json"})
    assert response.status_code == 400
    assert _error(response)["message"].startswith("malformed JSON body")


@pytest.mark.parametrize("raw", [b"[]", b'"text"', b"42", b"null"])
def test_body_that_is_not_an_object(fake_app: TestClient, raw: bytes) -> None:
    response = fake_app.post(CHAT, content=raw, headers={"content-type": "application/json"})
    assert response.status_code == 400
    assert "JSON object" in _error(response)["message"]


def test_empty_body_is_a_400(fake_app: TestClient) -> None:
    response = fake_app.post(CHAT, content=b"", headers={"content-type": "application/json"})
    assert response.status_code == 400
    assert _error(response)["type"] == "invalid_request_error"


def test_completions_missing_prompt(fake_app: TestClient) -> None:
    response = fake_app.post("/v1/completions", json={"model": "m"})
    assert response.status_code == 400
    assert _error(response)["param"] == "prompt"


def test_chunked_body_without_content_length_is_validated_like_any_other(fake_app: TestClient) -> None:
    """HTTP/1.1 clients may stream a request body with Transfer-Encoding: chunked and no Content-Length."""

    def chunks() -> Any:
        yield b'{"model": "m", '
        yield b'"messages": [{"role": "user", "content": "hi"}]}'

    response = fake_app.post(CHAT, content=chunks(), headers={"content-type": "application/json"})
    assert "content-length" not in response.request.headers
    assert response.status_code == 404, response.text  # validated, then the handler found no model
