"""The API dialects as objects: which one a path speaks, and everything about a stream that is the dialect's and
not one reply's: its media type, how a message is framed, what a quiet stream sends, the marker after the last
message, and the frame that ends a stream that failed after its first byte. ``error_body`` is the body of a
reply that failed before it. Every error a client sees is rendered here: a replica's renderers, the audio
stream and the fleet head all write a mid-stream failure with ``Dialect.error_frame``."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from enum import Enum
from typing import Any

from superfluid.errors import SuperfluidError, as_superfluid_error
from superfluid.http.streams import SSE_COMMENT_KEEPALIVE, Frame, ndjson_line, sse_data, timed

SSE = "text/event-stream"
NDJSON = "application/x-ndjson"
OPENAI_DONE = b"data: [DONE]\n\n"
ANTHROPIC_PING = sse_data({"type": "ping"}, "ping")
"""The keep-alive of an Anthropic stream: an event the SDKs know to skip, not an SSE comment."""

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
    """OpenAI's chat, completion and audio streams; OpenAI's Responses API, whose stream is typed events with
    sequence numbers; Anthropic's Messages; Ollama's NDJSON records."""

    OPENAI = "openai"
    RESPONSES = "responses"
    ANTHROPIC = "anthropic"
    OLLAMA = "ollama"

    @classmethod
    def for_path(cls, path: str) -> Dialect:
        if path == "/v1/messages" or path.startswith("/v1/messages/"):
            return cls.ANTHROPIC
        if path == "/" or path.startswith("/api/"):
            return cls.OLLAMA
        if path == "/v1/responses" or path.startswith("/v1/responses/"):
            return cls.RESPONSES
        return cls.OPENAI

    @property
    def api(self) -> str:
        """The API family (the access log's ``dialect``): Responses is OpenAI's."""
        return "openai" if self is Dialect.RESPONSES else self.value

    @property
    def media_type(self) -> str:
        return NDJSON if self is Dialect.OLLAMA else SSE

    @property
    def end(self) -> bytes:
        """Written after a stream's last message, finished or failed: OpenAI's ``data: [DONE]``, else nothing."""
        return OPENAI_DONE if self is Dialect.OPENAI else b""

    @property
    def keepalive(self) -> bytes:
        """What a quiet stream sends: an SSE comment, Anthropic's ``ping`` event. Ollama's is a record naming the
        stream's model, which its renderer writes; the dialect has none of its own."""
        if self is Dialect.ANTHROPIC:
            return ANTHROPIC_PING
        return b"" if self is Dialect.OLLAMA else SSE_COMMENT_KEEPALIVE

    def frame(self, message: Frame, event: str | None = None) -> bytes:
        """One message: an NDJSON line, or an SSE message (``event`` names it where the dialect names events)."""
        return ndjson_line(message) if self is Dialect.OLLAMA else sse_data(message, event)

    def error_frame(self, error: SuperfluidError, *, sequence_number: int = 0) -> bytes:
        """The message that ends a stream that failed after its first byte (``end`` follows it): OpenAI's error
        body as a data message, Anthropic's as an ``error`` event, Ollama's as a record, and the Responses API's
        ``error`` event, whose code, message and param sit at the top, numbered ``sequence_number``."""
        if self is Dialect.RESPONSES:
            return sse_data({"type": "error", "code": error.code or error.error_type, "message": shorten(error.message),
                             "param": error.param, "sequence_number": sequence_number}, "error")
        body = error_body(self, error)
        return sse_data(body, "error") if self is Dialect.ANTHROPIC else self.frame(body)


def error_body(dialect: Dialect, error: SuperfluidError) -> dict[str, Any]:
    message = shorten(error.message)
    if dialect is Dialect.OLLAMA:
        return {"error": message}
    # Responses errors before the first byte are OpenAI's body.
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


async def sse(source: AsyncIterator[Any], dialect: Dialect, *, keepalive_s: float | None,
              event_name: Callable[[Frame], str | None] | None = None) -> AsyncIterator[bytes]:
    """Encode frames as SSE ``data:`` lines (named by ``event_name``) in ``dialect``: quiet periods send its
    keep-alive, a failure after the first byte its error frame, and its end marker comes last."""
    try:
        async for frame in timed(source, keepalive_s):
            if frame is None:
                yield dialect.keepalive
            elif isinstance(frame, bytes):
                yield frame
            elif isinstance(frame, str) or event_name is None:
                yield sse_data(frame)
            else:
                yield sse_data(frame, event_name(frame))
    except Exception as exc:  # an error after the first byte becomes a final frame
        yield dialect.error_frame(as_superfluid_error(exc))
    if dialect.end:
        yield dialect.end
