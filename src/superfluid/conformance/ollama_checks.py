"""Ollama dialect: the official ollama SDK, NDJSON framing, error shapes, bodies and records against Ollama's
published schemas, and the rules of superfluid's product document for /api/* (options and their limits)."""

from __future__ import annotations

import json
from typing import Any

import httpx

from superfluid.conformance.published import validate
from superfluid.conformance.suite import Checks, Target
from superfluid.conformance.wire import content_type, ndjson_records

CHECKS = Checks("ollama")

CHAT = "POST /api/chat"
GENERATE = "POST /api/generate"
HELLO = [{"role": "user", "content": "Say hello."}]
FEW = {"num_predict": 8, "temperature": 0}


def sdk(target: Target) -> Any:
    try:
        from ollama import Client
    except ImportError as exc:  # pragma: no cover - the extra is missing
        raise RuntimeError("the ollama SDK is needed: pip install 'superfluid[conformance]'") from exc
    return Client(host=target.base_url, timeout=target.timeout_s,
                  headers={"authorization": f"Bearer {target.api_key}"})


def ok_json(response: httpx.Response) -> Any:
    assert response.status_code == 200, f"status {response.status_code}: {response.text[:300]}"
    assert content_type(response) == "application/json", f"content-type {content_type(response)!r}"
    return response.json()


def error_of(response: httpx.Response, status: int) -> str:
    """The message of an error answer, which must have ``status`` and Ollama's {"error": "..."} shape."""
    assert response.status_code == status, f"status {response.status_code}, not {status}: {response.text[:300]}"
    body = response.json()
    validate("ollama", "ErrorResponse", body)
    assert set(body) == {"error"} and isinstance(body["error"], str) and body["error"], body
    return str(body["error"])


def streamed(target: Target, path: str, body: dict[str, Any]) -> list[dict[str, Any]]:
    with target.http.stream("POST", path, json=body) as response:
        assert response.status_code == 200, f"status {response.status_code}: {response.read()[:300]!r}"
        return ndjson_records(response)


def check_records(records: list[dict[str, Any]], schema: str, text_of: Any) -> None:
    """Every record matches ``schema``; only the last is done; no record before it is empty."""
    for record in records:
        validate("ollama", schema, record)
    assert records[-1].get("done") is True, f"the last record is not done: {records[-1]}"
    assert all(record.get("done") is False for record in records[:-1]), "a done record before the last"
    for record in records[:-1]:
        assert text_of(record) != "" or record.get("message", {}).get("tool_calls") or record.get("thinking"), \
            f"an empty record before the terminal one: {record}"


@CHECKS.check("version", "GET /api/version")
def version(target: Target) -> None:
    """GET /api/version matches VersionResponse."""
    validate("ollama", "VersionResponse", ok_json(target.http.get("/api/version")))


@CHECKS.check("list", "GET /api/tags")
def list_models(target: Target) -> None:
    """ollama.list() names the model; the body matches ListResponse."""
    names = [model.model for model in sdk(target).list().models]
    assert any(name in (target.model, f"{target.model}:latest") for name in names), f"{target.model} not in {names}"
    validate("ollama", "ListResponse", ok_json(target.http.get("/api/tags")))


@CHECKS.check("ps", "GET /api/ps")
def ps(target: Target) -> None:
    """GET /api/ps matches PsResponse."""
    sdk(target).ps()
    validate("ollama", "PsResponse", ok_json(target.http.get("/api/ps")))


@CHECKS.check("show", "POST /api/show")
def show(target: Target) -> None:
    """ollama.show(model) answers; the body matches ShowResponse."""
    sdk(target).show(target.model)
    validate("ollama", "ShowResponse", ok_json(target.http.post("/api/show", json={"model": target.model})))


@CHECKS.check("chat", CHAT)
def chat(target: Target) -> None:
    """ollama.chat(stream=False): an assistant message; the body matches ChatResponse, done with a reason."""
    reply = sdk(target).chat(model=target.model, messages=HELLO, options=FEW, stream=False)
    assert reply.message.role == "assistant" and reply.done
    body = ok_json(target.http.post("/api/chat", json={"model": target.model, "messages": HELLO, "stream": False,
                                                       "options": FEW}))
    validate("ollama", "ChatResponse", body)
    assert body["done"] is True and body.get("done_reason") in ("stop", "length"), body


@CHECKS.check("chat.stream", CHAT)
def chat_stream(target: Target) -> None:
    """A chat stream (the default): NDJSON records matching ChatStreamEvent, none empty, the last done."""
    parts = list(sdk(target).chat(model=target.model, messages=HELLO, options=FEW, stream=True))
    assert parts and parts[-1].done
    records = streamed(target, "/api/chat", {"model": target.model, "messages": HELLO, "options": FEW})
    check_records(records, "ChatStreamEvent", lambda record: record.get("message", {}).get("content"))


@CHECKS.check("generate", GENERATE)
def generate(target: Target) -> None:
    """ollama.generate(stream=False); the body matches GenerateResponse."""
    reply = sdk(target).generate(model=target.model, prompt="Say hello.", options=FEW, stream=False)
    assert reply.done and isinstance(reply.response, str)
    body = ok_json(target.http.post("/api/generate", json={"model": target.model, "prompt": "Say hello.",
                                                           "stream": False, "options": FEW}))
    validate("ollama", "GenerateResponse", body)


@CHECKS.check("generate.stream", GENERATE)
def generate_stream(target: Target) -> None:
    """A generate stream: NDJSON records matching GenerateStreamEvent, none empty, the last done."""
    records = streamed(target, "/api/generate", {"model": target.model, "prompt": "Say hello.", "options": FEW})
    check_records(records, "GenerateStreamEvent", lambda record: record.get("response"))


@CHECKS.check("chat.format_schema", CHAT)
def chat_format_schema(target: Target) -> None:
    """format as a JSON schema (as pydantic writes it) ends with done_reason stop and JSON matching it."""
    schema = {"type": "object", "properties": {"name": {"type": "string", "maxLength": 20}}, "required": ["name"]}
    reply = sdk(target).chat(model=target.model, format=schema, stream=False, options={"num_predict": 48},
                             messages=[{"role": "user", "content": "Name a planet, as JSON."}])
    assert reply.done_reason == "stop", f"done_reason {reply.done_reason}: {reply.message.content!r}"
    parsed = json.loads(reply.message.content or "")
    assert isinstance(parsed, dict) and isinstance(parsed.get("name"), str), parsed


@CHECKS.check("chat.num_predict", CHAT)
def chat_num_predict(target: Target) -> None:
    """options.num_predict caps the reply: done_reason length and eval_count within the cap."""
    body = ok_json(target.http.post("/api/chat", json={
        "model": target.model, "stream": False, "options": {"num_predict": 2},
        "messages": [{"role": "user", "content": "Count from one to fifty in words."}]}))
    assert body.get("done_reason") == "length", body
    assert body.get("eval_count", 0) <= 2, body


@CHECKS.check("errors.unknown_model", CHAT)
def errors_unknown_model(target: Target) -> None:
    """An unknown model is a 404 {"error": "..."} (the SDK raises ResponseError with status 404)."""
    from ollama import ResponseError

    try:
        sdk(target).chat(model="no-such-model-anywhere", messages=HELLO, stream=False)
    except ResponseError as exc:
        assert exc.status_code == 404, exc.status_code
    else:
        raise AssertionError("no ResponseError for an unknown model")
    error_of(target.http.post("/api/chat", json={"model": "no-such-model-anywhere", "messages": HELLO}), 404)


@CHECKS.check("errors.missing_model", CHAT)
def errors_missing_model(target: Target) -> None:
    """A chat without model is a 400 {"error": "..."}."""
    error_of(target.http.post("/api/chat", json={"messages": HELLO, "stream": False}), 400)


@CHECKS.check("errors.option_limits", CHAT)
def errors_option_limits(target: Target) -> None:
    """Options outside their documented limits (temperature < 0, top_p > 1, num_predict 0) are a 400."""
    for options in ({"temperature": -1}, {"top_p": 2}, {"num_predict": 0}):
        body = {"model": target.model, "messages": HELLO, "stream": False, "options": options}
        error_of(target.http.post("/api/chat", json=body), 400)


@CHECKS.check("errors.unknown_option", CHAT)
def errors_unknown_option(target: Target) -> None:
    """An option the server does not apply is a 400 naming it, never silently ignored."""
    body = {"model": target.model, "messages": HELLO, "stream": False, "options": {"mirostat": 1}}
    assert "mirostat" in error_of(target.http.post("/api/chat", json=body), 400)
