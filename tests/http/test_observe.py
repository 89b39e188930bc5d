"""RequestObserver: route labels from the API documents, the access log line, leases released at the end."""

from __future__ import annotations

import asyncio
import json
import logging

import pytest
from starlette.testclient import TestClient
from starlette.types import Message, Receive, Scope, Send

from superfluid.app import SPEC_DIR, SPECS
from superfluid.engine import request_scope
from superfluid.http.access import AccessControl, AccessGuard
from superfluid.http.access_log import ACCESS_LOGGER, JsonFormatter
from superfluid.http.observe import GENERATION_ROUTES, RequestObserver, RouteTable
from superfluid.settings import Settings

ROUTES = RouteTable.from_documents(SPEC_DIR / spec for spec in SPECS)


@pytest.mark.parametrize(("method", "path", "route"), [
    ("POST", "/v1/chat/completions", "/v1/chat/completions"),
    ("GET", "/v1/models/acme/Repo-GGUF", "/v1/models/{model}"),
    ("DELETE", "/v1/models/smollm2", "/v1/models/{model}"),
    ("POST", "/v1/models/load", "/v1/models/load"),
    ("GET", "/metrics", "/metrics"),
    ("HEAD", "/", "/"),
    ("POST", "/slots/3", "/slots/{id_slot}"),
    ("POST", "/api/chat", "/api/chat"),
    ("GET", "/v1/nowhere", "unmatched"),
    ("PUT", "/v1/chat/completions", "unmatched"),
])
def test_routes_are_the_documents_templates(method: str, path: str, route: str) -> None:
    assert ROUTES.match(method, path) == route


async def _model_user(scope: Scope, receive: Receive, send: Send) -> None:
    """Stands in for a handler that leased a model and generated: the engine fills the RequestScope."""
    current = request_scope.current()
    assert current is not None
    current.model = "smollm2"
    current.prompt_tokens, current.cached_tokens, current.completion_tokens, current.ttft_s = 12, 8, 5, 0.0421
    released.clear()
    current.hold(lambda: released.append(True))
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"{}"})


released: list[bool] = []


def test_one_access_line_per_request_with_the_engine_figures(caplog: pytest.LogCaptureFixture) -> None:
    app = RequestObserver(AccessGuard(_model_user, control=AccessControl.from_settings(
        Settings(api_keys=("top-secret-key",)))), routes=ROUTES)
    client = TestClient(app)
    with caplog.at_level(logging.INFO, logger=ACCESS_LOGGER):
        client.post("/v1/chat/completions", headers={"Authorization": "Bearer top-secret-key"}, json={})
        client.post("/v1/chat/completions", headers={"Authorization": "Bearer wrong-key-value"}, json={})
    lines = [r for r in caplog.records if r.name == ACCESS_LOGGER]
    assert len(lines) == 2
    ok, refused = (r.access for r in lines)  # type: ignore[attr-defined]
    assert released == [True]  # the lease went back when the response was over
    assert ok["status"] == 200 and ok["model"] == "smollm2" and ok["key_id"].startswith("key-")
    assert (ok["prompt_tokens"], ok["cached_tokens"], ok["completion_tokens"], ok["ttft_ms"]) == (12, 8, 5, 42.1)
    assert refused["status"] == 401 and refused["code"] == "invalid_api_key" and refused["key_id"] is None
    text = "\n".join(r.getMessage() for r in lines) + "\n".join(JsonFormatter().format(r) for r in lines)
    assert "top-secret-key" not in text and "wrong-key-value" not in text
    assert "method=POST path=/v1/chat/completions status=200 model=smollm2" in lines[0].getMessage()
    as_json = json.loads(JsonFormatter().format(lines[0]))
    assert as_json["status"] == 200 and as_json["logger"] == ACCESS_LOGGER and as_json["level"] == "info"



def test_a_post_to_a_generation_route_counts_among_the_arrivals_from_its_start_until_it_ends() -> None:
    counts: list[tuple[str, int]] = []
    before = request_scope.ARRIVALS.count

    async def reader(scope: Scope, receive: Receive, send: Send) -> None:
        counts.append(("before the body", request_scope.ARRIVALS.count))
        more = True
        while more:
            message = await receive()
            more = message.get("more_body", False)
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})

    async def serve(method: str, path: str) -> None:
        messages = [{"type": "http.request", "body": b"{}", "more_body": False}]

        async def receive() -> Message:
            return messages.pop(0)

        async def send(message: Message) -> None:
            pass

        scope = {"type": "http", "method": method, "path": path, "client": ("127.0.0.1", 1)}
        await RequestObserver(reader, routes=ROUTES)(scope, receive, send)

    for path in sorted(GENERATION_ROUTES):
        counts.clear()
        asyncio.run(serve("POST", path))
        assert counts == [("before the body", before + 1)], path
        assert request_scope.ARRIVALS.count == before  # it ended without reaching a model
    for method, path in (("GET", "/v1/chat/completions"), ("POST", "/v1/embeddings"), ("POST", "/v1/files"),
                         ("POST", "/v1/models/load"), ("POST", "/v1/messages/count_tokens")):
        counts.clear()
        asyncio.run(serve(method, path))
        assert counts == [("before the body", before)], path  # never queues a generation


def test_the_generation_routes_are_post_routes_of_the_documents() -> None:
    for route in GENERATION_ROUTES:
        assert ROUTES.match("POST", route) == route
