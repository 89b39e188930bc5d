"""Which dialect a path speaks, and the error body each dialect writes."""

from __future__ import annotations

import pytest

from superfluid.errors import (
    AuthenticationFailed,
    EngineFailure,
    InvalidRequest,
    ModelNotFound,
    PayloadTooLarge,
    RateLimited,
    RouteRetired,
    SuperfluidError,
)
from superfluid.http.dialect import Dialect, error_body


@pytest.mark.parametrize(
    ("path", "dialect"),
    [
        ("/v1/messages", Dialect.ANTHROPIC),
        ("/v1/messages/count_tokens", Dialect.ANTHROPIC),
        ("/v1/messagesx", Dialect.OPENAI),
        ("/api/chat", Dialect.OLLAMA),
        ("/api/generate", Dialect.OLLAMA),
        ("/api/tags", Dialect.OLLAMA),
        ("/", Dialect.OLLAMA),
        ("/v1/chat/completions", Dialect.OPENAI),
        ("/v1/completions", Dialect.OPENAI),
        ("/v1/models", Dialect.OPENAI),
        ("/health", Dialect.OPENAI),
        ("/apis", Dialect.OPENAI),
        ("", Dialect.OPENAI),
    ],
)
def test_for_path(path: str, dialect: Dialect) -> None:
    assert Dialect.for_path(path) is dialect


def test_openai_error_body() -> None:
    error = InvalidRequest("bad temperature", param="temperature")
    assert error_body(Dialect.OPENAI, error) == {
        "error": {"message": "bad temperature", "type": "invalid_request_error", "param": "temperature",
                  "code": None}
    }


def test_ollama_error_body_is_just_the_message() -> None:
    assert error_body(Dialect.OLLAMA, ModelNotFound("nope")) == {"error": ModelNotFound("nope").message}


@pytest.mark.parametrize(
    ("error", "kind"),
    [
        (InvalidRequest("x"), "invalid_request_error"),
        (AuthenticationFailed("x"), "authentication_error"),
        (ModelNotFound("m"), "not_found_error"),
        (PayloadTooLarge("x"), "request_too_large"),
        (RateLimited("x", retry_after_s=1), "rate_limit_error"),
        (EngineFailure("x"), "api_error"),
        (RouteRetired("x"), "api_error"),
    ],
)
def test_anthropic_error_body(error: SuperfluidError, kind: str) -> None:
    message = f"{error.param}: {error.message}" if error.param else error.message
    assert error_body(Dialect.ANTHROPIC, error) == {"type": "error", "error": {"type": kind, "message": message}}


def test_anthropic_error_message_leads_with_the_field() -> None:
    """Anthropic's error body has no param field: the message names it, as the hosted API's messages do."""
    error = InvalidRequest("model reads text only", param="messages[0].content[1]")
    assert error_body(Dialect.ANTHROPIC, error)["error"]["message"] == "messages[0].content[1]: model reads text only"


def test_anthropic_unknown_status_falls_back_to_api_error() -> None:
    class Teapot(SuperfluidError):
        status = 418

    assert error_body(Dialect.ANTHROPIC, Teapot("short and stout"))["error"]["type"] == "api_error"


def test_anthropic_keeps_a_request_error_s_kind_whatever_its_status() -> None:
    class UnsupportedMediaType(InvalidRequest):
        status = 415

    # 415 (a body without content-type: application/json) is the request's fault on every route.
    assert error_body(Dialect.ANTHROPIC, UnsupportedMediaType("send JSON"))["error"]["type"] == "invalid_request_error"
    assert error_body(Dialect.OPENAI, UnsupportedMediaType("send JSON"))["error"]["type"] == "invalid_request_error"
