"""Log output: one format for every line (``--log-format text|json``), and the access log's one line per request.

The access log goes to the ``superfluid.access`` logger at INFO. A line names the method, path, status, model,
token counts, time to first token, duration, client address and key id; never the key, and no other header.
In text form its fields are ``key=value`` pairs (logfmt); in JSON form they are the record's fields.
"""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime
from typing import Any

ACCESS_LOGGER = "superfluid.access"
LOG_FORMATS = ("text", "json")
_TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time (UTC, to the microsecond), level, logger, message, and an access record's
    fields when present."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, tz=UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        fields = getattr(record, "access", None)
        if isinstance(fields, dict):  # the fields themselves, not their logfmt text
            out["message"] = f"{fields.get('method')} {fields.get('path')} {fields.get('status')}"
            out.update(fields)
        if record.exc_info:
            out["exception"] = self.formatException(record.exc_info)
        return json.dumps(out, ensure_ascii=False, default=str)


def configure_logging(level: str, log_format: str) -> None:
    """The root logger's one handler, in the chosen format (uvicorn's loggers propagate to it)."""
    handler = logging.StreamHandler()
    handler.setFormatter(JsonFormatter() if log_format == "json" else logging.Formatter(_TEXT_FORMAT))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())


def _logfmt(value: Any) -> str:
    text = "-" if value is None else str(value)
    if not text or any(c in text for c in ' "=\\') or not text.isprintable():
        return json.dumps(text, ensure_ascii=False)
    return text


def log_access(fields: dict[str, Any]) -> None:
    """Write one access line; ``fields`` must never hold a key or a header."""
    logger = logging.getLogger(ACCESS_LOGGER)
    if not logger.isEnabledFor(logging.INFO):
        return
    text = " ".join(f"{name}={_logfmt(value)}" for name, value in fields.items())
    logger.info("%s", text, extra={"access": fields})
