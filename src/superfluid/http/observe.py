"""The outermost middleware: one RequestRecord per request, the engine's RequestScope made current, model leases
released when the response is over, then the request's metrics and its access-log line.

Guards and error renderers write into the record (the key id, the error code of a refusal); handlers never do:
the engine fills the RequestScope (model, tokens, time to first token) as the request passes through it.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from superfluid.config_files import read_document
from superfluid.engine import CURRENT, RequestScope
from superfluid.errors import SuperfluidError
from superfluid.http.access_log import log_access
from superfluid.http.dialect import Dialect

if TYPE_CHECKING:
    from superfluid.http.metrics import Metrics

RECORD = "superfluid.record"
"""Scope key of the request's RequestRecord."""

KEY_ID = "superfluid.key_id"
BATCH_OWNER = "superfluid.batch_owner"
"""Set only on in-process batch lines (batches/dispatch.py): the id of the key that created the batch, or None."""
WEB_KEY = "superfluid.web_key"
"""Set only on in-process requests of the web listener's sessions (web/replies.py): the id of the key named by
--web-key, or None without keys."""
"""Scope key of the authenticated key's id (absent when the server asks for no key). Later features that own
data per key (files, batches) read it with ``key_id(scope)``."""

GENERATION_ROUTES = frozenset({"/v1/chat/completions", "/v1/completions", "/v1/responses", "/v1/messages",
                               "/api/chat", "/api/generate"})
"""The routes whose POSTs queue generations: they count among the ARRIVALS (request_scope) from their start."""

UNMATCHED = "unmatched"
_METHODS = ("get", "post", "put", "patch", "delete", "head", "options")


@dataclass
class RequestRecord:
    method: str
    path: str
    route: str
    """The route's template in the API documents (``/v1/models/{model}``), or ``unmatched``."""
    dialect: str
    client: str
    started: float = field(default_factory=time.monotonic)
    usage: RequestScope = field(default_factory=RequestScope)
    key_id: str | None = None
    status: int = 0
    error_code: str | None = None

    def fields(self, duration_s: float) -> dict[str, Any]:
        usage = self.usage
        return {
            "method": self.method, "path": self.path, "status": self.status, "model": usage.model,
            "prompt_tokens": usage.prompt_tokens, "cached_tokens": usage.cached_tokens,
            "completion_tokens": usage.completion_tokens,
            "ttft_ms": None if usage.ttft_s is None else round(usage.ttft_s * 1000, 1),
            "duration_ms": round(duration_s * 1000, 1), "client": self.client, "key_id": self.key_id,
            "code": self.error_code,
        }


def record_of(scope: Mapping[str, Any]) -> RequestRecord | None:
    record = scope.get(RECORD)
    return record if isinstance(record, RequestRecord) else None


def key_id(scope: Mapping[str, Any]) -> str | None:
    """The id of the key that authenticated this request (None when the server asks for no key)."""
    value = scope.get(KEY_ID)
    return value if isinstance(value, str) else None


def note_error(scope: Mapping[str, Any], error: SuperfluidError) -> None:
    """Remember the code of the error a request is answered with (refusals are counted by code)."""
    record = record_of(scope)
    if record is not None:
        record.error_code = error.code


class RouteTable:
    """Request paths -> route templates, from the API documents, for bounded metric labels."""

    def __init__(self, routes: Iterable[tuple[str, str, re.Pattern[str]]]) -> None:
        self._routes = list(routes)

    @classmethod
    def from_documents(cls, paths: Iterable[Path]) -> RouteTable:
        routes = []
        for path in paths:
            document = read_document(path)
            for template, item in (document.get("paths") or {}).items():
                for method in _METHODS:
                    operation = item.get(method) if isinstance(item, dict) else None
                    if isinstance(operation, dict):
                        routes.append((method.upper(), template, _pattern(template, operation)))
        return cls(routes)

    def match(self, method: str, path: str) -> str:
        method = "GET" if method == "HEAD" else method
        for route_method, template, pattern in self._routes:
            if route_method == method and pattern.fullmatch(path):
                return template
        return UNMATCHED


def _pattern(template: str, operation: Mapping[str, Any]) -> re.Pattern[str]:
    wide = {p.get("name") for p in operation.get("parameters") or () if isinstance(p, dict)
            and (p.get("schema") or {}).get("format") == "path"}
    parts = re.split(r"(\{[^}]+\})", template)
    regex = "".join((".+" if part[1:-1] in wide else "[^/]+") if part.startswith("{") else re.escape(part)
                    for part in parts)
    return re.compile(regex)


class RequestObserver:
    def __init__(self, app: ASGIApp, *, routes: RouteTable, metrics: Metrics | None = None) -> None:
        self.app = app
        self.routes = routes
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path, method = scope.get("path", ""), scope.get("method", "GET")
        client = scope.get("client")
        record = RequestRecord(method=method, path=path, route=self.routes.match(method, path),
                               dialect=Dialect.for_path(path).api, client=client[0] if client else "-")
        scope[RECORD] = record
        token = CURRENT.set(record.usage)
        if self.metrics is not None:
            self.metrics.in_flight.inc()

        async def observed(message: Message) -> None:
            if message["type"] == "http.response.start":
                record.status = int(message["status"])
            await send(message)

        if method == "POST" and record.route in GENERATION_ROUTES:
            # On its way to an engine from now: its task starts behind whatever the event loop is doing (another
            # request of the same burst, say), and reads its body only once the middlewares ahead are through.
            record.usage.arriving()
        try:
            await self.app(scope, receive, observed)
        except BaseException:
            record.status = record.status or 500
            raise
        finally:
            record.usage.landed()
            CURRENT.reset(token)
            record.usage.release()
            duration = time.monotonic() - record.started
            if self.metrics is not None:
                self.metrics.in_flight.dec()
                self.metrics.observe(record, duration)
            log_access(record.fields(duration))
