"""TypedJSONBodyValidator, through the real app: spec violations become 400s naming the field."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from superfluid.http.validation import OFFLOAD_BODY_BYTES
from superfluid.settings import Settings
from tests.conftest import FakeServices, app_client

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


MESSAGES = "/v1/messages"


def _anthropic_message(response: Any) -> str:
    assert response.status_code == 400
    body = response.json()
    assert body["type"] == "error" and body["error"]["type"] == "invalid_request_error"
    return str(body["error"]["message"])


@pytest.mark.parametrize(("block", "missing"), [
    ({"type": "text"}, "text"),
    ({"type": "image"}, "source"),
    ({"type": "tool_use", "name": "x", "input": {}}, "id"),
])
def test_a_content_block_is_judged_by_the_branch_its_type_names(
        fake_app: TestClient, block: dict[str, Any], missing: str) -> None:
    """A block's ``type`` picks its branch of the union: the error names the field that branch misses, not
    another branch's tag ("'text' is not one of ['image']")."""
    response = fake_app.post(MESSAGES, json={"model": "m", "max_tokens": 4,
                                             "messages": [{"role": "user", "content": [block]}]})
    message = _anthropic_message(response)
    assert f"missing required field 'messages[0].content[0].{missing}'" in message
    assert "is not one of" not in message


def test_an_unknown_block_type_lists_every_type_allowed(fake_app: TestClient) -> None:
    response = fake_app.post(MESSAGES, json={"model": "m", "max_tokens": 4,
                                             "messages": [{"role": "user", "content": [{"type": "bogus"}]}]})
    message = _anthropic_message(response)
    assert "messages[0].content[0].type" in message
    for allowed in ("'text'", "'image'", "'tool_use'", "'tool_result'", "'thinking'"):
        assert allowed in message


def test_a_wrong_field_inside_the_named_block_is_named(fake_app: TestClient) -> None:
    response = fake_app.post(MESSAGES, json={"model": "m", "max_tokens": 4, "messages": [
        {"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": 5}]}]})
    message = _anthropic_message(response)
    assert "messages[0].content[1].text" in message and "is not of type 'string'" in message


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


# ---- hostile bodies ---------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def roomy_app() -> Iterator[TestClient]:
    """The app with the default 100 MiB body limit (the shared fake_app allows 4 KiB)."""
    yield from app_client(Settings())


def _nested(depth: int) -> bytes:
    return b'{"model": "m", "messages": [{"role": "user", "content": "hi"}], "x": ' + b"[" * depth + b"]" * depth + b"}"


@pytest.mark.parametrize("depth", [200, 5000])
def test_deep_nesting_is_a_400_not_a_crash(roomy_app: TestClient, depth: int) -> None:
    response = roomy_app.post(CHAT, content=_nested(depth), headers={"content-type": "application/json"})
    assert response.status_code == 400
    error = _error(response)
    assert "nested too deeply" in error["message"] and "128" in error["message"]


def test_deep_nesting_on_an_ollama_route_is_a_400_in_its_shape(roomy_app: TestClient) -> None:
    body = b'{"model": "m", "prompt": "x", "options": ' + b"[" * 3000 + b"]" * 3000 + b"}"
    response = roomy_app.post("/api/generate", content=body)
    assert response.status_code == 400
    assert "nested too deeply" in response.json()["error"]


def test_nesting_at_the_limit_passes(roomy_app: TestClient) -> None:
    response = roomy_app.post(CHAT, content=_nested(126), headers={"content-type": "application/json"})
    assert response.status_code == 404  # past validation: the fake services know no model


def test_a_huge_rejected_value_is_cut_in_the_message_but_the_field_is_named(roomy_app: TestClient) -> None:
    response = roomy_app.post(CHAT, json=_valid_chat(stop=[f"stop-word-{i}" for i in range(100_000)]))
    assert response.status_code == 400
    assert len(response.content) < 2048
    error = _error(response)
    assert error["param"] == "stop" and "(stop)" in error["message"]
    assert "characters cut" in error["message"]


def test_a_huge_string_in_the_wrong_place_is_described_not_quoted(roomy_app: TestClient) -> None:
    response = roomy_app.post(CHAT, json=_valid_chat(temperature="t" * 300_000))
    assert response.status_code == 400
    error = _error(response)
    assert error["param"] == "temperature"
    assert "<text of 300,000 characters>" in error["message"] and len(response.content) < 2048


def test_a_long_prompt_validates_like_a_short_one() -> None:
    from superfluid.http.validation import LONG_TEXT, LongText, stand_in

    body = {"messages": [{"role": "user", "content": "x" * (LONG_TEXT + 10)}], "stop": ["a"]}
    shadow = stand_in(body)
    text = shadow["messages"][0]["content"]
    assert isinstance(text, LongText) and len(text) == LONG_TEXT + 10 and isinstance(text, str)
    assert shadow["stop"] is body["stop"]  # untouched parts are shared, not copied
    assert stand_in({"a": "short"})["a"] == "short"


def test_parse_body_counts_depth_by_walking_only_when_it_could_be_too_deep() -> None:
    from superfluid.errors import InvalidRequest
    from superfluid.http.validation import nesting_depth_exceeds, parse_body

    assert parse_body(b'{"a": [[1]], "b": "' + b"[" * 500 + b'"}', 4) is not None  # brackets inside a string
    with pytest.raises(InvalidRequest):
        parse_body(b'{"a": [[[[1]]]]}', 4)
    assert not nesting_depth_exceeds({"a": [[1]]}, 3) and nesting_depth_exceeds({"a": [[[1]]]}, 3)


@pytest.fixture(scope="module")
def offloading_app() -> Iterator[TestClient]:
    """The app with the default body limit and the server's preparation pool (worker threads and processes)."""
    from superfluid.app import create_app
    from superfluid.http.offload import Offload

    settings = Settings()
    services = FakeServices(settings)
    services.offload = Offload(1)  # type: ignore[attr-defined]
    app = create_app(settings, services=services)  # type: ignore[arg-type]
    with TestClient(app, raise_server_exceptions=False) as client:
        yield client
    services.offload.close()  # type: ignore[attr-defined]


def test_a_big_body_is_parsed_in_the_server_only_after_the_worker_passed_it(
        offloading_app: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """A big body goes to a worker process as bytes: one it refuses (a 2 MB stop list, deep nesting, a wrong
    type) costs the server process no parse, the walk that bounds nesting included, and gets the answer the
    loop gives a small body; one it passes is parsed in the server once."""
    from superfluid.http import validation

    parsed: list[int] = []
    real = validation.parse_checked
    monkeypatch.setattr(validation, "parse_checked", lambda raw: parsed.append(len(raw)) or real(raw))
    refused = offloading_app.post(CHAT, json=_valid_chat(stop=["x" * 100] * 20_000))
    assert refused.status_code == 400 and _error(refused)["param"] == "stop"
    deep = offloading_app.post(CHAT, content=_nested(200) + b" " * OFFLOAD_BODY_BYTES,
                               headers={"content-type": "application/json"})
    assert deep.status_code == 400 and "nested too deeply" in _error(deep)["message"]
    small = _valid_chat(messages=[{"role": "user", "content": "hi"}, {"role": "user", "content": 5}])
    big = _valid_chat(messages=[{"role": "user", "content": "x" * OFFLOAD_BODY_BYTES},
                                {"role": "user", "content": 5}])
    answers = [_error(offloading_app.post(CHAT, json=body)) for body in (small, big)]
    assert answers[0] == answers[1] and answers[0]["param"] == "messages[1].content"
    assert parsed == []
    long_prompt = [{"role": "user", "content": "x" * OFFLOAD_BODY_BYTES}]
    valid = offloading_app.post(CHAT, json=_valid_chat(messages=long_prompt))
    assert valid.status_code == 404 and _error(valid)["param"] == "model" and len(parsed) == 1
