"""The Ollama document wired into the real app over fake services: routing, request checks before any model
lookup, the 501 routes, and Ollama's error body."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import yaml
from starlette.testclient import TestClient

from superfluid.app import create_app
from superfluid.engine.types import ChatPrompt, Finished, GenerationRequest, TextDelta, TextPrompt, Usage
from superfluid.errors import ContextLengthExceeded, EngineFailure
from superfluid.handlers.ollama import distribution as ollama_distribution
from superfluid.handlers.routes import DISTRIBUTION_METHODS, DISTRIBUTION_ROUTES, distribution_name, resolve
from superfluid.settings import Settings
from tests.conftest import FakeModel, FakeServices

SPEC = yaml.safe_load((Path(__file__).resolve().parents[2] / "openapi" / "ollama.yaml").read_text())


def _error(response: Any, status: int) -> str:
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error"} and isinstance(body["error"], str)
    return str(body["error"])


def test_root_and_version(fake_app: TestClient) -> None:
    root = fake_app.get("/")
    assert root.status_code == 200 and root.text == "superfluid is running"
    assert root.headers["content-type"].startswith("text/plain")
    assert fake_app.get("/api/version").json()["compatibility"] == "ollama-inference"


@pytest.mark.parametrize("path", ["/api/chat", "/api/generate"])
def test_requests_are_checked_before_the_model_is_looked_up(fake_app: TestClient, path: str) -> None:
    body = {"model": "m", "messages": [], "prompt": "p"}
    body = {k: v for k, v in body.items() if k != ("prompt" if path == "/api/chat" else "messages")}
    assert _error(fake_app.post(path, json={**body, "foo": 1}), 400) == "unsupported parameter: foo"
    assert "keep_alive" in _error(fake_app.post(path, json={**body, "keep_alive": "5m"}), 400)
    assert _error(fake_app.post(path, json={**body, "options": {"num_gpu": 1}}), 400) == "unsupported option: num_gpu"
    assert "temperature" in _error(fake_app.post(path, json={**body, "options": {"temperature": -1}}), 400)
    assert "model" in _error(fake_app.post(path, json={"stream": False}), 400)
    _error(fake_app.post(path, json=body), 404)  # valid: the fake services know no model


def test_generate_refusals(fake_app: TestClient) -> None:
    assert "template" in _error(fake_app.post("/api/generate", json={"model": "m", "template": "x"}), 400)
    body = {"model": "m", "prompt": "p", "raw": True, "system": "s"}
    assert "'system'" in _error(fake_app.post("/api/generate", json=body), 400)


def test_unknown_route_and_method_in_ollama_shape(fake_app: TestClient) -> None:
    _error(fake_app.get("/api/nothing"), 404)
    _error(fake_app.get("/api/chat"), 405)


@pytest.mark.parametrize("path", ["/api/pull", "/api/push", "/api/create", "/api/copy", "/api/delete",
                                  "/api/blobs/sha256:00"])
@pytest.mark.parametrize("method", ["GET", "POST", "PUT", "PATCH", "DELETE"])
def test_distribution_is_501_whatever_the_body(fake_app: TestClient, path: str, method: str) -> None:
    response = fake_app.request(method, path, content=b"not json", headers={"content-type": "application/json"})
    assert "not served" in _error(response, 501)
    assert fake_app.head(path).status_code == 501


def test_every_distribution_operation_has_its_handler() -> None:
    """Every method of each distribution route has a name of its own, and the route's names share one refusal."""
    for route in DISTRIBUTION_ROUTES:
        path = "/api/blobs/{digest}" if route == "blobs" else f"/api/{route}"
        ops = SPEC["paths"][path]
        assert {key for key in ops if key != "parameters"} == set(DISTRIBUTION_METHODS)
        assert {ops[m]["operationId"] for m in DISTRIBUTION_METHODS} == {
            distribution_name(route, m) for m in DISTRIBUTION_METHODS}
        assert {resolve(ops[m]["operationId"]) for m in DISTRIBUTION_METHODS} == {getattr(ollama_distribution, route)}


# ---- over a fake engine -----------------------------------------------------------------------------


class _Stream:
    """A GenerationStream double: replays events, optionally failing after them."""

    def __init__(self, events: list[Any], fail: Exception | None = None) -> None:
        self._events = events
        self._fail = fail
        self.cancelled = False
        self.restored_tokens = 0

    async def admitted(self) -> int:
        return 0

    async def events(self) -> Any:
        for event in self._events:
            yield event
        if self._fail is not None:
            raise self._fail

    async def timed_events(self, keepalive_s: float | None) -> Any:
        async for event in self.events():
            yield event

    def cancel(self) -> None:
        self.cancelled = True

    async def collect(self) -> Any:
        from superfluid.engine.types import ChoiceResult, GenerationResult

        choice = ChoiceResult(index=0)
        async for event in self.events():
            if isinstance(event, TextDelta):
                choice.content += event.content
            else:
                choice.finish_reason = event.finish_reason
        return GenerationResult([choice], prompt_tokens=3, completion_tokens=2, cached_tokens=1)


class _Model(FakeModel):
    id = "fake"
    n_ctx = 1024
    template = SimpleNamespace(variables=frozenset(), thinks=False, thinking_switch=None, name="fake")

    def __init__(self) -> None:
        self.requests: list[GenerationRequest] = []
        self.events: list[Any] = [TextDelta(0, content="Hel"), TextDelta(0, content="lo"),
                                  Finished(0, "length", Usage(3, 2, 1))]
        self.fail: Exception | None = None
        self.profile = SimpleNamespace(dialect=lambda: {"enable_thinking": False, "reasoning_effort": False})

    def generate(self, request: GenerationRequest, prepared: object = None, direct: object = None,
                 disk: object = None, whole: bool = False) -> _Stream:
        self.requests.append(request)
        return _Stream(self.events, self.fail)


class _Registry:
    def __init__(self, model: _Model) -> None:
        self.model = model
        self.sources = {"fake": object()}
        self.loaded = {"fake": model}

    async def get(self, model_id: str) -> _Model:
        assert model_id == "fake"
        return self.model


class _Services(FakeServices):
    def __init__(self, settings: Settings) -> None:
        super().__init__(settings)
        self.engine = _Model()

    @property
    def models(self) -> Any:
        return _Registry(self.engine)


@pytest.fixture
def fake_engine() -> Iterator[tuple[TestClient, _Model]]:
    settings = Settings(keepalive_s=30)
    services = _Services(settings)
    app = create_app(settings, services=services)  # type: ignore[arg-type]
    with TestClient(app, raise_server_exceptions=False) as client:
        yield client, services.engine


def test_chat_becomes_the_engine_request(fake_engine: tuple[TestClient, _Model]) -> None:
    client, model = fake_engine
    tool = {"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}
    body = {"model": "fake:latest", "stream": False, "tools": [tool], "think": False, "logprobs": True,
            "top_logprobs": 3, "messages": [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}],
            "options": {"temperature": 0.5, "seed": 9, "num_predict": -1, "stop": ["x"], "num_ctx": 1024}}
    reply = client.post("/api/chat", json=body)
    assert reply.status_code == 200, reply.text
    request = model.requests[-1]
    assert isinstance(request.prompt, ChatPrompt)
    assert [(m.role, m.content) for m in request.prompt.messages] == [("system", "s"), ("user", "u")]
    assert request.prompt.template_kwargs == {"enable_thinking": False}
    assert request.sampling.temperature == 0.5 and request.sampling.seed == 9
    assert request.max_tokens == 1024 and request.stop == ("x",) and request.logprobs == 3
    assert request.tools is not None and [t.name for t in request.tools.tools] == ["f"]
    record = reply.json()
    assert record["message"] == {"role": "assistant", "content": "Hello"}
    assert (record["done"], record["done_reason"], record["prompt_eval_count"], record["prompt_eval_cached_count"],
            record["eval_count"]) == (True, "length", 3, 1, 2)
    assert record["logprobs"] == []


def test_generate_becomes_the_engine_request(fake_engine: tuple[TestClient, _Model]) -> None:
    client, model = fake_engine
    client.post("/api/generate", json={"model": "fake", "prompt": "p", "raw": True, "stream": False})
    assert model.requests[-1].prompt == TextPrompt("p")
    client.post("/api/generate", json={"model": "fake", "prompt": "p", "format": "json", "stream": False})
    request = model.requests[-1]
    assert isinstance(request.prompt, ChatPrompt) and request.constraint is not None


def test_stream_is_ndjson_ending_in_the_terminal_record(fake_engine: tuple[TestClient, _Model]) -> None:
    client, _ = fake_engine
    reply = client.post("/api/generate", json={"model": "fake", "prompt": "p"})
    assert reply.headers["content-type"].startswith("application/x-ndjson")
    lines = [json.loads(line) for line in reply.text.splitlines()]
    assert [line["response"] for line in lines] == ["Hel", "lo", ""]
    assert [line["done"] for line in lines] == [False, False, True]


def test_an_error_mid_stream_is_one_error_line(fake_engine: tuple[TestClient, _Model]) -> None:
    client, model = fake_engine
    model.events = model.events[:1]
    model.fail = EngineFailure("the lane failed")
    reply = client.post("/api/chat", json={"model": "fake", "messages": [{"role": "user", "content": "u"}]})
    assert reply.status_code == 200
    lines = [json.loads(line) for line in reply.text.splitlines()]
    assert lines[0]["message"]["content"] == "Hel"
    assert lines[-1] == {"error": "the lane failed"}


def test_an_error_before_the_body_keeps_its_status(fake_engine: tuple[TestClient, _Model]) -> None:
    client, model = fake_engine

    def refuse(request: GenerationRequest, prepared: object = None, direct: object = None,
                 disk: object = None, whole: bool = False) -> _Stream:
        raise ContextLengthExceeded("the prompt is too long")

    model.generate = refuse  # type: ignore[method-assign]
    reply = client.post("/api/chat", json={"model": "fake", "messages": [{"role": "user", "content": "u"}]})
    assert reply.status_code == 400 and reply.json() == {"error": "the prompt is too long"}


def test_num_ctx_and_preload_over_the_fake(fake_engine: tuple[TestClient, _Model]) -> None:
    client, model = fake_engine
    bad = client.post("/api/chat", json={"model": "fake", "messages": [], "options": {"num_ctx": 2048}})
    assert "1024" in _error(bad, 400)
    loaded = client.post("/api/chat", json={"model": "fake", "stream": False})
    assert loaded.json()["done_reason"] == "load" and not model.requests


# ---- the document itself ----------------------------------------------------------------------------


def test_the_document_is_valid_openapi_without_template_text() -> None:
    from openapi_spec_validator import validate

    path = Path(__file__).resolve().parents[2] / "openapi" / "ollama.yaml"
    validate(yaml.safe_load(path.read_text()))
    text = path.read_text()
    assert not any(opener in text for opener in ("{{", "{%", "{#")), "Connexion renders the document with Jinja"


def test_every_operation_names_a_handler() -> None:
    for item in SPEC["paths"].values():
        for key, operation in item.items():
            if key == "parameters":
                continue
            assert operation["operationId"].startswith("ollama"), operation["operationId"]
            assert resolve(operation["operationId"]).__module__.startswith("superfluid.handlers.ollama."), operation


def test_scheduling_class_header(fake_engine: tuple[TestClient, _Model]) -> None:
    client, model = fake_engine
    body = {"model": "fake", "stream": False, "messages": [{"role": "user", "content": "u"}]}
    client.post("/api/chat", json=body, headers={"x-superfluid-qos": "background"})
    assert model.requests[-1].qos == "background"
    client.post("/api/generate", json={"model": "fake", "prompt": "p", "stream": False})
    assert model.requests[-1].qos == "interactive"
    assert "x-superfluid-qos" in _error(client.post("/api/chat", json=body, headers={"x-superfluid-qos": "vip"}),
                                        400)
