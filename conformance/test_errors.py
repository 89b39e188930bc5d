"""Error replies on the OpenAI surface: status, and the body {"error": {"message", "type", "param", "code"}}.

Every error body is also held to OpenAI's published ErrorResponse schema.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from conformance.reference import validate_openai

LIMIT = 100 * 1024 * 1024


def _error(response: httpx.Response, status: int) -> dict[str, Any]:
    assert response.status_code == status, f"expected {status}, got {response.status_code}: {response.text[:500]}"
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    validate_openai("ErrorResponse", body)
    assert set(body) == {"error"}
    error = body["error"]
    assert set(error) >= {"message", "type", "param", "code"}
    assert isinstance(error["message"], str) and error["message"]
    return dict(error)


def _chat(model: str, **extra: Any) -> dict[str, Any]:
    return {"model": model, "messages": [{"role": "user", "content": "hi"}], "max_tokens": 2,
            "temperature": 0, **extra}


# ---- request shape ----------------------------------------------------------------------------------


def test_missing_model(http: httpx.Client) -> None:
    response = http.post("/v1/chat/completions", json={"messages": [{"role": "user", "content": "hi"}]})
    error = _error(response, 400)
    assert error["param"] == "model"
    assert error["type"] == "invalid_request_error"


def test_missing_messages(http: httpx.Client, model: str) -> None:
    error = _error(http.post("/v1/chat/completions", json={"model": model}), 400)
    assert error["param"] == "messages"


def test_missing_prompt_on_completions(http: httpx.Client, model: str) -> None:
    error = _error(http.post("/v1/completions", json={"model": model}), 400)
    assert error["param"] == "prompt"


def test_unknown_model(http: httpx.Client) -> None:
    error = _error(http.post("/v1/chat/completions", json=_chat("no-such-model")), 404)
    assert error["param"] == "model"
    assert "no-such-model" in error["message"]


def test_unknown_model_on_completions(http: httpx.Client) -> None:
    response = http.post("/v1/completions", json={"model": "no-such-model", "prompt": "hi", "max_tokens": 2})
    _error(response, 404)


def test_unknown_model_on_models_route(http: httpx.Client) -> None:
    _error(http.get("/v1/models/no-such-model"), 404)


def test_malformed_json(http: httpx.Client) -> None:
    response = http.post("/v1/chat/completions", content=b'{"model": "x", "messages": [',
                         headers={"content-type": "application/json"})
    error = _error(response, 400)
    assert error["type"] == "invalid_request_error"


def test_body_that_is_not_an_object(http: httpx.Client) -> None:
    response = http.post("/v1/chat/completions", content=b"[1, 2, 3]", headers={"content-type": "application/json"})
    _error(response, 400)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("temperature", "hot"),
        ("max_tokens", "many"),
        ("stream", "yes"),
        ("messages", "hello"),
        ("n", 1.5),
        ("stop", 7),
    ],
)
def test_wrong_type_names_the_field(http: httpx.Client, model: str, field: str, value: Any) -> None:
    error = _error(http.post("/v1/chat/completions", json=_chat(model, **{field: value})), 400)
    assert error["param"] == field
    assert field in error["message"]


def test_wrong_type_inside_a_message_names_the_path(http: httpx.Client, model: str) -> None:
    body = {"model": model, "messages": [{"role": "user", "content": 42}], "max_tokens": 2}
    error = _error(http.post("/v1/chat/completions", json=body), 400)
    assert error["param"] is not None and error["param"].startswith("messages")


@pytest.mark.parametrize("n", [0, 129, -1])
def test_n_out_of_range(http: httpx.Client, model: str, n: int) -> None:
    error = _error(http.post("/v1/chat/completions", json=_chat(model, n=n)), 400)
    assert error["param"] == "n"


def test_n_at_the_upper_bound_is_accepted(http: httpx.Client, model: str) -> None:
    response = http.post("/v1/chat/completions", json=_chat(model, n=128, max_tokens=1))
    assert response.status_code == 200, response.text
    assert len(response.json()["choices"]) == 128


def test_unknown_fields_are_ignored(http: httpx.Client, model: str) -> None:
    body = _chat(model, superfluid_no_such_field={"nested": [1, 2]}, another_unknown="x", user="someone")
    response = http.post("/v1/chat/completions", json=body)
    assert response.status_code == 200, response.text
    assert response.json()["choices"][0]["message"]["role"] == "assistant"


def test_unknown_fields_are_ignored_on_completions(http: httpx.Client, model: str) -> None:
    body = {"model": model, "prompt": "Once", "max_tokens": 2, "temperature": 0, "not_a_field": True}
    assert http.post("/v1/completions", json=body).status_code == 200


# ---- context window and body size -------------------------------------------------------------------


def test_prompt_longer_than_the_window(http: httpx.Client, model: str) -> None:
    body = {"model": model, "messages": [{"role": "user", "content": "word " * 9000}], "max_tokens": 2}
    error = _error(http.post("/v1/chat/completions", json=body), 400)
    assert error["code"] == "context_length_exceeded"
    assert error["type"] == "invalid_request_error"


def test_completion_prompt_longer_than_the_window(http: httpx.Client, model: str) -> None:
    body = {"model": model, "prompt": "word " * 9000, "max_tokens": 2}
    error = _error(http.post("/v1/completions", json=body), 400)
    assert error["code"] == "context_length_exceeded"


def test_streaming_prompt_longer_than_the_window_fails_before_the_stream(http: httpx.Client, model: str) -> None:
    body = {"model": model, "messages": [{"role": "user", "content": "word " * 9000}], "max_tokens": 2,
            "stream": True}
    error = _error(http.post("/v1/chat/completions", json=body), 400)
    assert error["code"] == "context_length_exceeded"


def _raw_exchange(base_url: str, head: bytes, body: bytes) -> tuple[int, dict[str, str], bytes]:
    """Send a hand-written HTTP/1.1 request and read the whole reply (the server closes after it)."""
    parts = urlsplit(base_url)
    assert parts.hostname is not None and parts.port is not None
    with socket.create_connection((parts.hostname, parts.port), timeout=30) as sock:
        sock.sendall(head + body)
        data = b""
        while True:
            try:
                piece = sock.recv(65536)
            except ConnectionResetError:
                break
            if not piece:
                break
            data += piece
            if b"\r\n\r\n" in data:
                header_blob, _, rest = data.partition(b"\r\n\r\n")
                lines = header_blob.decode("latin-1").split("\r\n")
                headers = {k.strip().lower(): v.strip() for k, v in (ln.split(":", 1) for ln in lines[1:])}
                length = int(headers.get("content-length", "-1"))
                if 0 <= length <= len(rest):
                    return int(lines[0].split()[1]), headers, rest[:length]
    raise AssertionError(f"no complete reply: {data[:300]!r}")


def test_declared_body_over_the_limit_is_refused_before_reading(base_url: str) -> None:
    head = (
        b"POST /v1/chat/completions HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
        b"Content-Length: %d\r\nConnection: close\r\n\r\n" % (LIMIT + 1024 * 1024)
    )
    status, headers, body = _raw_exchange(base_url, head, b'{"model": "')
    assert status == 413
    assert headers["content-type"].startswith("application/json")
    parsed = json.loads(body)
    validate_openai("ErrorResponse", parsed)
    assert parsed["error"]["code"] == "payload_too_large"


def test_real_body_over_the_limit(http: httpx.Client, model: str) -> None:
    head = b'{"model": "%s", "messages": [{"role": "user", "content": "' % model.encode()
    body = head + b"a" * (LIMIT + 1024 * 1024) + b'"}]}'
    error = _error(http.post("/v1/chat/completions", content=body, headers={"content-type": "application/json"}),
                   413)
    assert error["code"] == "payload_too_large"


def test_chunked_body_over_the_limit(http: httpx.Client, model: str) -> None:
    """Without a Content-Length the limit is enforced while the body streams in."""

    def body() -> Iterator[bytes]:
        yield b'{"model": "%s", "messages": [{"role": "user", "content": "' % model.encode()
        block = b"a" * (1024 * 1024)
        for _ in range(LIMIT // len(block) + 1):
            yield block
        yield b'"}]}'

    response = http.post("/v1/chat/completions", content=body(), headers={"content-type": "application/json"})
    error = _error(response, 413)
    assert error["code"] == "payload_too_large"


def test_small_chunked_body_is_served(http: httpx.Client, model: str) -> None:
    """A request body sent with Transfer-Encoding: chunked (no Content-Length) is an ordinary request."""
    payload = json.dumps(_chat(model)).encode()

    def body() -> Iterator[bytes]:
        yield payload[:10]
        yield payload[10:]

    response = http.post("/v1/chat/completions", content=body(), headers={"content-type": "application/json"})
    assert response.request.headers.get("transfer-encoding") == "chunked"
    assert response.status_code == 200, response.text


def test_large_body_under_the_limit_reaches_the_model(http: httpx.Client, model: str) -> None:
    # 2 MiB of text is far under the limit but far over the window: it reaches the model check, not the guard.
    body = {"model": model, "messages": [{"role": "user", "content": "word " * (400 * 1024)}], "max_tokens": 2}
    error = _error(http.post("/v1/chat/completions", json=body), 400)
    assert error["code"] == "context_length_exceeded"


# ---- completions and fill-in-the-middle -------------------------------------------------------------


def test_prompt_array_on_completions(http: httpx.Client, model: str) -> None:
    body = {"model": model, "prompt": ["one", "two"], "max_tokens": 2}
    error = _error(http.post("/v1/completions", json=body), 400)
    assert error["param"] == "prompt"


def test_prompt_token_ids_on_completions(http: httpx.Client, model: str) -> None:
    body = {"model": model, "prompt": [1, 2, 3], "max_tokens": 2}
    error = _error(http.post("/v1/completions", json=body), 400)
    assert error["param"] == "prompt"


def test_suffix_on_a_model_without_fim(http: httpx.Client, model: str) -> None:
    body = {"model": model, "prompt": "def add(a, b):\n    ", "suffix": "\n\nprint(add(1, 2))", "max_tokens": 4}
    error = _error(http.post("/v1/completions", json=body), 400)
    assert error["code"] == "fim_unsupported"


def test_echo_with_suffix(http: httpx.Client, model: str) -> None:
    body = {"model": model, "prompt": "def add(a, b):\n    ", "suffix": "\n", "echo": True, "max_tokens": 4}
    error = _error(http.post("/v1/completions", json=body), 400)
    assert error["code"] == "unsupported_parameter"
    assert error["param"] == "echo"


def test_logprobs_with_suffix(http: httpx.Client, model: str) -> None:
    body = {"model": model, "prompt": "def add(a, b):\n    ", "suffix": "\n", "logprobs": 2, "max_tokens": 4}
    error = _error(http.post("/v1/completions", json=body), 400)
    assert error["code"] == "unsupported_parameter"
    assert error["param"] == "logprobs"


# ---- chat content and template variables ------------------------------------------------------------


def test_image_part_on_a_text_model(http: httpx.Client, model: str) -> None:
    content = [
        {"type": "text", "text": "What is in this picture?"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
    ]
    body = {"model": model, "messages": [{"role": "user", "content": content}], "max_tokens": 2}
    error = _error(http.post("/v1/chat/completions", json=body), 400)
    assert error["code"] == "unsupported_input"


def test_text_parts_are_accepted(http: httpx.Client, model: str) -> None:
    content = [{"type": "text", "text": "Say"}, {"type": "text", "text": "hello."}]
    body = {"model": model, "messages": [{"role": "user", "content": content}], "max_tokens": 2, "temperature": 0}
    assert http.post("/v1/chat/completions", json=body).status_code == 200


def test_template_variable_the_template_does_not_read(http: httpx.Client, model: str) -> None:
    body = _chat(model, chat_template_kwargs={"superfluid_unread_variable": True})
    error = _error(http.post("/v1/chat/completions", json=body), 400)
    assert error["param"] is not None and "superfluid_unread_variable" in error["param"]
    assert "superfluid_unread_variable" in error["message"]


def test_reasoning_effort_on_a_template_without_levels(http: httpx.Client, model: str) -> None:
    body = _chat(model, chat_template_kwargs={"reasoning_effort": "high"})
    error = _error(http.post("/v1/chat/completions", json=body), 400)
    assert "reasoning_effort" in (error["param"] or "")


def test_an_unknown_reasoning_level_is_refused_on_every_model(http: httpx.Client, model: str) -> None:
    # Known levels on a template without them are the template's business (above); an unknown one never is.
    error = _error(http.post("/v1/chat/completions", json=_chat(model, reasoning_effort="ultra")), 400)
    assert "reasoning_effort" in (error["param"] or "") and "ultra" in error["message"]


def test_a_body_that_is_not_json_typed_is_the_request_s_fault_in_every_dialect(http: httpx.Client,
                                                                                 model: str) -> None:
    body = json.dumps(_chat(model)).encode()
    openai = http.post("/v1/chat/completions", content=body, headers={"content-type": "text/plain"})
    anthropic = http.post("/v1/messages", content=body, headers={"content-type": "text/plain"})
    assert openai.status_code == anthropic.status_code == 415
    assert openai.json()["error"]["type"] == anthropic.json()["error"]["type"] == "invalid_request_error"


# ---- routes -----------------------------------------------------------------------------------------


def test_unknown_route(http: httpx.Client) -> None:
    error = _error(http.get("/v1/no-such-route"), 404)
    assert error["type"]


def test_unknown_route_post(http: httpx.Client) -> None:
    _error(http.post("/v1/no-such-route", json={}), 404)


def test_health(http: httpx.Client) -> None:
    response = http.get("/health")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}
