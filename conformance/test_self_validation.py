"""Our documents tell the truth: every operation of every openapi/*.yaml is called on the real server, and
each response (status, content type, body; every SSE and NDJSON event) is held to the operation's own
document, not only to the official references.

Requests come from the documents: a request body's ``example``, else one built from its schema (required
fields only). Each operation is provoked into the answers any route can give: its example (streamed and not,
when the body has ``stream``), a multipart Content-Type without a boundary (400, or 415 where only JSON is
read), an unknown model (404), a body of the wrong type (400), a body not labelled
JSON (415 where the dialect insists on the label), a path parameter of the wrong type (404: no such route),
a body over the size limit (413); a form route gets JSON (415) and a form naming an unknown model (404);
a stored response is read back and deleted; a file is uploaded, read, listed and deleted, and batches on it
are run, read, listed and cancelled (a file a batch reads cannot be deleted, an ended batch cannot be
cancelled: 409). On a server started
with a key policy, no key (401), a QoS class above the key's ceiling (403) and a key over its request rate
(429): the access guard answers those on every route but the liveness ones. Embedding, rerank and audio
routes are also called on the plain server's models of their kind (speech made with espeak-ng, in every
response_format and streamed). Every status a document declares must be
seen at least once, except the ones in ``UNPROVOKED`` (which say why), so a document cannot promise a status
the route does not send, and a route cannot send one the document does not promise.
"""

from __future__ import annotations

import copy
import json
import socket
import time
from collections import defaultdict
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from conformance.conftest import ADMIN_KEY, CAPPED_KEY, SLOW_KEY
from conformance.contract import Contract, Operation
from conformance.server import DEFAULT_MODEL, RunningServer
from conformance.speech import speak

CONTRACT = Contract()
UNKNOWN_MODEL = "no-such-model-anywhere"
# Fields that bound how much a generated request decodes, wherever a body schema has them.
TOKEN_CAPS = {"max_tokens": 4, "max_completion_tokens": 4, "max_output_tokens": 4, "num_predict": 4}

# Declared statuses no request from outside can provoke on demand, and why; any other declared status that
# this module never sees fails it.
UNPROVOKED: dict[int, str] = {
    500: "an engine failure; nothing a client sends causes one",
    503: "a model that is loading or unloading at that moment",
}
# Per-operation exceptions: (method path, status) -> why.
UNPROVOKED_ON: dict[tuple[str, int], str] = {}
# Operations (by tag) for another kind of model than the shared server's generation models (which they refuse
# with 400 unsupported_model), and the model of that kind the plain server (conftest's media_server) serves.
MEDIA_MODELS = {"embeddings": "all-minilm-l6-v2", "audio": "whisper-base"}
SPEECH_TEXT = "The quick brown fox jumps over the lazy dog."


def sample(operation: Operation, schema: dict[str, Any], name: str = "") -> Any:
    """A small valid instance of ``schema``: its example, else its required fields filled in."""
    schema = operation.resolve(schema)
    if name == "model":  # whatever shape a document gives it, a request names the served model
        return DEFAULT_MODEL
    if "example" in schema:
        return copy.deepcopy(schema["example"])
    if "allOf" in schema:
        merged: dict[str, Any] = {}
        for part in schema["allOf"]:
            merged.update(sample(operation, part, name))
        return merged
    for key in ("oneOf", "anyOf"):
        if key in schema:
            return sample(operation, schema[key][0], name)
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type", "object")
    if kind == "object":
        properties = schema.get("properties", {})
        return {key: sample(operation, properties.get(key, {}), key) for key in schema.get("required", [])}
    if kind == "array":
        return [sample(operation, schema.get("items", {}), name)] * max(1, schema.get("minItems", 1))
    if kind == "string":
        return DEFAULT_MODEL if name == "model" else "Say hello."
    if kind in ("integer", "number"):
        return schema.get("minimum", 1)
    return False


def body_schema(operation: Operation) -> dict[str, Any] | None:
    content = operation.resolve(operation.spec.get("requestBody", {})).get("content", {})
    media = content.get("application/json")
    return None if media is None else operation.resolve(media.get("schema", {}))


def properties(operation: Operation, schema: dict[str, Any]) -> set[str]:
    schema = operation.resolve(schema)
    names = set(schema.get("properties", {}))
    for part in schema.get("allOf", []):
        names |= properties(operation, part)
    return names


def happy_body(operation: Operation) -> dict[str, Any] | None:
    schema = body_schema(operation)
    if schema is None:
        return None
    media = operation.resolve(operation.spec["requestBody"])["content"]["application/json"]
    body = copy.deepcopy(media["example"]) if "example" in media else sample(operation, schema)
    names = properties(operation, schema)
    for field, cap in TOKEN_CAPS.items():
        if field in names:
            body[field] = min(body.get(field) or cap, cap)
    if "options" in names:
        body["options"] = {**(body.get("options") or {}), "num_predict": TOKEN_CAPS["num_predict"]}
    return dict(body)


def url(operation: Operation, model: str = DEFAULT_MODEL, **overrides: Any) -> tuple[str, dict[str, Any]]:
    path, query = operation.template, {}
    for parameter in operation.spec.get("parameters", []):
        parameter = operation.resolve(parameter)
        value = overrides.get(parameter["name"], model if parameter["name"] == "model" else
                              sample(operation, parameter.get("schema", {}), parameter["name"]))
        if parameter["in"] == "path":
            path = path.replace("{" + parameter["name"] + "}", str(value))
        elif parameter["in"] == "query" and (parameter.get("required") or parameter["name"] == "model"):
            query[parameter["name"]] = value
    return path, query


def requests(operation: Operation) -> Iterator[tuple[str, dict[str, Any]]]:
    """(what, httpx request arguments) for every answer this module provokes from ``operation``."""
    path, query = url(operation)
    method = operation.method.upper()
    body = happy_body(operation)
    yield "multipart without a boundary", {"method": method, "url": path, "params": query,
                                           "headers": {"content-type": "multipart/form-data"}}
    if body is None:
        yield "example", {"method": method, "url": path, "params": query}
    else:
        streams = [False, True] if "stream" in properties(operation, body_schema(operation) or {}) else [None]
        for stream in streams:
            sent = body if stream is None else {**body, "stream": stream}
            yield f"example stream={stream}", {"method": method, "url": path, "params": query, "json": sent}
        yield "wrong body type", {"method": method, "url": path, "params": query, "json": ["not", "an", "object"]}
        yield "not labelled JSON", {"method": method, "url": path, "params": query, "content": json.dumps(body),
                                    "headers": {"content-type": "text/plain"}}
    for parameter in operation.spec.get("parameters", []):
        parameter = operation.resolve(parameter)
        if parameter["in"] == "path" and parameter.get("schema", {}).get("type") in ("integer", "number"):
            typed_path, typed_query = url(operation, **{parameter["name"]: "not-a-number"})
            yield "path parameter of the wrong type", {"method": method, "url": typed_path, "params": typed_query}
    content = operation.resolve(operation.spec.get("requestBody", {})).get("content", {})
    if "multipart/form-data" in content:  # a form route: JSON is refused, and the form names the model
        yield "JSON to a form route", {"method": method, "url": path, "params": query,
                                       "json": {"model": DEFAULT_MODEL}}
        yield "unknown model", {"method": method, "url": path, "params": query,
                                "files": {"file": ("a.wav", b"RIFF", "audio/wav")}, "data": {"model": UNKNOWN_MODEL}}
    elif body is not None and ("model" in body or "model" in properties(operation, body_schema(operation) or {})):
        unknown = {**body, "model": UNKNOWN_MODEL}
        yield "unknown model", {"method": method, "url": path, "params": query, "json": unknown}
    elif "{model}" in operation.template or "model" in query:
        unknown_path, unknown_query = url(operation, model=UNKNOWN_MODEL)
        yield "unknown model", {"method": method, "url": unknown_path, "params": unknown_query}


def over_limit(base_url: str, method: str, path: str) -> httpx.Response:
    """Announce a body over the 100 MiB limit and send none of it: the guard answers from the headers."""
    address = urlsplit(base_url)
    head = (f"{method} {path} HTTP/1.1\r\nHost: {address.netloc}\r\ncontent-type: application/json\r\n"
            f"content-length: {101 * 2**20}\r\nconnection: close\r\n\r\n").encode()
    with socket.create_connection((address.hostname, address.port), timeout=30) as sock:
        sock.sendall(head)
        raw = b""
        while chunk := sock.recv(65536):
            raw += chunk
    header_text, _, body = raw.partition(b"\r\n\r\n")
    lines = header_text.decode("latin-1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:])
    request = httpx.Request(method, base_url + path)
    return httpx.Response(int(lines[0].split()[1]), headers=headers, content=body, request=request)


SEEN: dict[str, set[int]] = defaultdict(set)


def _hold(response: httpx.Response, operation: Operation, what: str) -> None:
    try:
        CONTRACT.check(response)
    except AssertionError as exc:
        raise AssertionError(f"{what}: {exc}") from None
    SEEN[operation.label].add(response.status_code)


@pytest.mark.parametrize("operation", CONTRACT.operations, ids=lambda operation: operation.label)
def test_responses_are_the_documented_ones(operation: Operation, http: httpx.Client, base_url: str) -> None:
    for what, request in requests(operation):
        _hold(http.request(**request, timeout=120), operation, what)
    if operation.spec.get("requestBody"):
        _hold(over_limit(base_url, operation.method.upper(), url(operation)[0]), operation, "body over the limit")


def test_without_the_key_every_guarded_route_is_a_documented_401(keyed_server: RunningServer) -> None:
    with httpx.Client(base_url=keyed_server.base_url, timeout=60) as client:
        for operation in CONTRACT.operations:
            path, query = url(operation)
            response = client.request(operation.method.upper(), path, params=query, json=happy_body(operation))
            if response.status_code == 401:
                _hold(response, operation, "no key")
            else:
                assert operation.declared(401) is None, f"{operation.label} declares 401 but answered " \
                                                        f"{response.status_code} without a key"


def test_over_a_keys_limits_every_guarded_route_is_a_documented_403_and_429(keyed_server: RunningServer) -> None:
    refusals = ((403, {"Authorization": f"Bearer {CAPPED_KEY}", "x-superfluid-qos": "interactive"}),
                (429, {"Authorization": f"Bearer {SLOW_KEY}"}))
    with httpx.Client(base_url=keyed_server.base_url, timeout=60) as client:
        assert client.get("/v1/models", headers=refusals[1][1]).status_code == 200  # the slow key's one request
        for operation in CONTRACT.operations:
            path, query = url(operation)
            for status, headers in refusals:
                response = client.request(operation.method.upper(), path, params=query, headers=headers,
                                          json=happy_body(operation))
                if response.status_code == status:
                    _hold(response, operation, f"the access guard's {status}")
                else:
                    assert operation.declared(status) is None, f"{operation.label} declares {status} but " \
                                                               f"answered {response.status_code} over the key's limits"


def test_an_adapter_loads_and_unloads_as_documented(keyed_server: RunningServer) -> None:
    admin = {"Authorization": f"Bearer {ADMIN_KEY}"}
    with httpx.Client(base_url=keyed_server.base_url, headers=admin, timeout=120) as client:
        for path, body in (("/v1/lora/load", {"path": "styles/formal.gguf", "scale": 0.5}), ("/v1/lora", None),
                           ("/v1/lora/unload", {"path": "styles/formal.gguf"})):
            response = client.request("GET" if body is None else "POST", path, json=body)
            assert response.status_code == 200, response.text
            operation = CONTRACT.operation(response.request.method, path)
            assert operation is not None
            _hold(response, operation, f"{path} with an adapter")
        assert response.json()["data"] == []


def test_a_stored_response_is_read_and_deleted_as_documented(http: httpx.Client) -> None:
    create = CONTRACT.operation("POST", "/v1/responses")
    assert create is not None
    created = http.post("/v1/responses", json=happy_body(create), timeout=120)
    _hold(created, create, "a response to store")
    stored = f"/v1/responses/{created.json()['id']}"
    for method, path in (("GET", stored), ("GET", f"{stored}/input_items"), ("DELETE", stored)):
        response = http.request(method, path, timeout=60)
        assert response.status_code == 200, f"{method} {path}: {response.text[:300]}"
        operation = CONTRACT.operation(method, path)
        assert operation is not None
        _hold(response, operation, f"{method} of a stored response")


# A batch's input (test_generated_client.py uploads it too): four chat lines long enough (up to 24 tokens of
# counting each) that a batch is still running when the next request, sent at once, tries to delete its file or
# cancel it.
BATCH_LINES = [{"custom_id": f"line-{i}", "method": "POST", "url": "/v1/chat/completions",
                "body": {"model": DEFAULT_MODEL, "max_tokens": 24,
                         "messages": [{"role": "user", "content": "Count from one to fifty in words."}]}}
               for i in range(4)]
ENDED = ("completed", "failed", "cancelled", "expired")


def batch_input() -> bytes:
    return "".join(json.dumps(line) + "\n" for line in BATCH_LINES).encode()


def upload_request() -> dict[str, Any]:
    return {"method": "POST", "url": "/v1/files", "data": {"purpose": "batch"},
            "files": {"file": ("input.jsonl", batch_input(), "application/jsonl")}}


def batch_request(file_id: str) -> dict[str, Any]:
    return {"method": "POST", "url": "/v1/batches",
            "json": {"input_file_id": file_id, "endpoint": "/v1/chat/completions", "completion_window": "24h"}}


def test_files_and_batches_answer_as_documented(http: httpx.Client) -> None:
    """Upload, read, list and delete a file; run, read, list and cancel batches on it; a file a batch still
    reads cannot be deleted (409 file_in_use), a batch that completed cannot be cancelled (409
    batch_not_cancellable), and a batch needs a file of purpose batch (400)."""

    def call(status: int, what: str, request: dict[str, Any]) -> dict[str, Any]:
        response = http.request(**request, timeout=120)
        assert response.status_code == status, f"{what}: {response.status_code} {response.text[:300]}"
        operation = CONTRACT.operation(request["method"], request["url"])
        assert operation is not None, request["url"]
        _hold(response, operation, what)
        return dict(response.json()) if response.headers["content-type"].startswith("application/json") else {}

    def ended(batch_id: str) -> dict[str, Any]:
        for _ in range(600):
            batch = call(200, "a batch", {"method": "GET", "url": f"/v1/batches/{batch_id}"})
            if batch["status"] in ENDED:
                return batch
            time.sleep(0.5)
        raise AssertionError(f"batch {batch_id} did not end: {batch}")

    file_id = call(200, "an upload", upload_request())["id"]
    stored = f"/v1/files/{file_id}"
    call(200, "a file", {"method": "GET", "url": stored})
    call(200, "a file's bytes", {"method": "GET", "url": f"{stored}/content"})
    call(200, "the batch files", {"method": "GET", "url": "/v1/files", "params": {"purpose": "batch"}})
    running = call(200, "a batch", batch_request(file_id))["id"]
    busy = call(409, "deleting a file a batch reads", {"method": "DELETE", "url": stored})
    assert busy["error"]["code"] == "file_in_use", busy
    call(200, "cancelling a batch", {"method": "POST", "url": f"/v1/batches/{running}/cancel"})
    assert ended(running)["status"] == "cancelled"
    completed = call(200, "a batch", batch_request(file_id))["id"]
    assert ended(completed)["status"] == "completed"
    done = call(409, "cancelling a completed batch", {"method": "POST", "url": f"/v1/batches/{completed}/cancel"})
    assert done["error"]["code"] == "batch_not_cancellable", done
    call(200, "the batches", {"method": "GET", "url": "/v1/batches"})
    other = call(200, "an upload", {**upload_request(), "data": {"purpose": "user_data"}})["id"]
    call(400, "a batch on a file of another purpose", batch_request(other))
    for gone in (stored, f"/v1/files/{other}"):
        call(200, "deleting a file", {"method": "DELETE", "url": gone})
    call(404, "a batch on a deleted file", batch_request(file_id))


def media_model(operation: Operation) -> str | None:
    return next((MEDIA_MODELS[tag] for tag in operation.spec.get("tags", []) if tag in MEDIA_MODELS), None)


def media_requests(operation: Operation, model: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """The requests a model of the operation's kind answers: its example (streamed and not) as JSON, or for a
    multipart body, speech in every response_format and streamed."""
    path, query = url(operation, model=model)
    method = operation.method.upper()
    content = operation.resolve(operation.spec["requestBody"])["content"]
    if "multipart/form-data" not in content:
        body = {**(happy_body(operation) or {}), "model": model}
        streams = [False, True] if "stream" in properties(operation, body_schema(operation) or {}) else [None]
        for stream in streams:
            sent = body if stream is None else {**body, "stream": stream}
            yield f"example on {model} stream={stream}", {"method": method, "url": path, "params": query,
                                                            "json": sent}
        return
    schema = operation.resolve(content["multipart/form-data"]["schema"])
    speech = ("speech.wav", speak(SPEECH_TEXT), "audio/wav")
    forms = [{"response_format": fmt} for fmt in schema["properties"]["response_format"]["enum"]]
    for form in [*forms, {"stream": "true"}]:
        yield f"speech on {model} {form}", {"method": method, "url": path, "params": query,
                                             "files": {"file": speech}, "data": {"model": model, **form}}


@pytest.mark.parametrize("operation", [o for o in CONTRACT.operations if media_model(o)], ids=lambda o: o.label)
def test_media_routes_answer_a_model_of_their_kind_as_documented(operation: Operation,
                                                                 media_server: RunningServer) -> None:
    model = media_model(operation)
    assert model is not None
    with httpx.Client(base_url=media_server.base_url, timeout=300) as client:
        for what, request in media_requests(operation, model):
            response = client.request(**request)
            assert response.status_code == 200, f"{what}: {response.status_code} {response.text[:300]}"
            _hold(response, operation, what)


def test_every_declared_status_was_seen() -> None:
    missing = []
    for operation in CONTRACT.operations:
        for key in operation.spec.get("responses", {}):
            status = int(key) if key.isdigit() else None
            if status is None or status in UNPROVOKED or (operation.label, status) in UNPROVOKED_ON:
                continue
            if status not in SEEN[operation.label]:
                missing.append(f"{operation.label} {status}")
    assert not missing, f"declared but never provoked (fix the document, or say why in UNPROVOKED): {missing}"
