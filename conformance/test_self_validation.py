"""Our documents tell the truth: every operation of every openapi/*.yaml is called on the real server, and
each response (status, content type, body; every SSE and NDJSON event) is held to the operation's own
document, not only to the official references.

Requests come from the documents: a request body's ``example``, else one built from its schema (required
fields only). Each operation is provoked into the answers any route can give: its example (streamed and not,
when the body has ``stream``), a multipart Content-Type without a boundary (400, or 415 where only JSON is
read), an unknown model (404), a body of the wrong type (400), a body not labelled
JSON (415 where the dialect insists on the label), a path parameter of the wrong type (404: no such route),
a body over the size limit (413) and, on a server started
with --api-key, no key (401). Every status a document declares must be
seen at least once, except the ones in ``UNPROVOKED`` (which say why), so a document cannot promise a status
the route does not send, and a route cannot send one the document does not promise.
"""

from __future__ import annotations

import copy
import json
import socket
from collections import defaultdict
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from conformance.contract import Contract, Operation
from conformance.server import DEFAULT_MODEL, RunningServer, start_server, stop_server

CONTRACT = Contract()
UNKNOWN_MODEL = "no-such-model-anywhere"
# Fields that bound how much a generated request decodes, wherever a body schema has them.
TOKEN_CAPS = {"max_tokens": 4, "max_completion_tokens": 4, "max_output_tokens": 4, "num_predict": 4}

# Declared statuses no request from outside can provoke on demand, and why; any other declared status that
# this module never sees fails it.
UNPROVOKED: dict[int, str] = {
    403: "needs a non-admin key from a key file, or a QoS header above a key's ceiling (conformance/test_security.py)",
    429: "needs a full queue or an empty FIM token bucket (conformance/test_scheduler.py, test_fim.py send it)",
    500: "an engine failure; nothing a client sends causes one",
    503: "a model that is loading or unloading at that moment",
}
# Per-operation exceptions: (method path, status) -> why.
UNPROVOKED_ON: dict[tuple[str, int], str] = {
    ("POST /api/embed", 200): "the bundled models generate; none embeds (the route answers 400 unsupported_model)",
    ("POST /api/embeddings", 200): "the bundled models generate; none embeds",
}


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
    if body is not None and "model" in body:
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


@pytest.fixture(scope="module")
def keyed_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    running = start_server([DEFAULT_MODEL, "--api-key", "contract-key"],
                           tmp_path_factory.mktemp("keyed") / "serve.log")
    yield running
    stop_server(running)


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
