"""Which API dialect a path speaks, and how each dialect writes an error: the body of a reply that failed
before its first byte (``error_body``), and the frame that ends a stream that failed after it
(``stream_error``). Every error a client sees is rendered here, the fleet head's included."""

from __future__ import annotations

import logging
from enum import Enum
from typing import Any

from superfluid.errors import EngineFailure, SuperfluidError

log = logging.getLogger(__name__)

_ANTHROPIC_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    408: "invalid_request_error",
    413: "request_too_large",
    431: "invalid_request_error",
    429: "rate_limit_error",
    500: "api_error",
    501: "api_error",
    503: "overloaded_error",
}


MAX_MESSAGE_CHARS = 1000
"""Longest error message sent: a message that quotes a huge value (a 20 MB ``stop`` list) is cut in the middle;
its start names the field."""


def shorten(text: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    """``text`` itself when short, else its head and tail around a note of how much was cut."""
    if len(text) <= limit:
        return text
    keep = limit // 2
    return f"{text[:keep]} ...({len(text) - 2 * keep:,} characters cut)... {text[-keep:]}"


class Dialect(Enum):
    OPENAI = "openai"
    ANTHROPIC = "anthropic"
    OLLAMA = "ollama"

    @classmethod
    def for_path(cls, path: str) -> Dialect:
        if path == "/v1/messages" or path.startswith("/v1/messages/"):
            return cls.ANTHROPIC
        if path == "/" or path.startswith("/api/"):
            return cls.OLLAMA
        return cls.OPENAI


def error_body(dialect: Dialect, error: SuperfluidError) -> dict[str, Any]:
    message = shorten(error.message)
    if dialect is Dialect.OLLAMA:
        return {"error": message}
    if dialect is Dialect.ANTHROPIC:
        # Anthropic's body has no param field; like the hosted API, the message leads with the field's path.
        # A status without a type of its own (405, 409, 415) keeps the error's kind: a request's fault is
        # invalid_request_error here as on OpenAI's routes, anything else api_error.
        kind = _ANTHROPIC_TYPES.get(error.status) or (
            "invalid_request_error" if error.error_type == "invalid_request_error" else "api_error")
        message = shorten(f"{error.param}: {error.message}" if error.param else error.message)
        return {"type": "error", "error": {"type": kind, "message": message}}
    body = error.openai_body()
    body["error"]["message"] = message
    return body


def stream_error(dialect: Dialect, error: SuperfluidError, *, typed_events: bool = False) -> dict[str, Any]:
    """The last frame of a stream that failed after its first byte. OpenAI's chat and completion streams send
    the error body as a data message, Anthropic's an ``error`` event with its body, Ollama's a record with
    ``error``. ``typed_events`` is the Responses API's ``error`` event, whose code, message and param sit at
    the top (the caller numbers it in its stream's sequence)."""
    if typed_events:
        return {"type": "error", "code": error.code or error.error_type, "message": shorten(error.message),
                "param": error.param}
    return error_body(dialect, error)


def as_superfluid_error(exc: Exception) -> SuperfluidError:
    """``exc`` as the error a client is told of; anything unexpected is logged whole and reported as an engine
    failure, never with its text."""
    if isinstance(exc, SuperfluidError):
        return exc
    log.exception("stream failed", exc_info=exc)
    return EngineFailure("the engine failed while streaming; see the server log")
