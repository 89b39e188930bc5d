"""Our own documents as a response checker: given a request's method and path and the response the server sent,
is that response one the document promised?

Driven by openapi/*.yaml alone, so a route a new document declares is checked without code here. The
conventions this relies on (docs/api.md, "Where the documents are served"): a streamed media type's schema
describes one event: for ``text/event-stream`` the event itself (``{"data": "...", "event": ..., "id": ...}``,
as schemathesis and OpenAPI 3.2's ``itemSchema`` read it), whose ``data`` property names the schema of its
JSON in ``x-data-schema`` (``[DONE]`` ends OpenAI streams); for ``application/x-ndjson`` one line.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import httpx
import jsonschema

from superfluid.http.documents import document_paths, load_document

SPEC_DIR = Path(__file__).resolve().parents[1] / "openapi"
METHODS = ("get", "put", "post", "delete", "patch", "head", "options")


def as_json_schema(node: Any) -> Any:
    """An OpenAPI 3.0 schema as JSON Schema: ``nullable`` becomes a null alternative."""
    if isinstance(node, list):
        return [as_json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {k: as_json_schema(v) for k, v in node.items() if k not in ("nullable", "example", "examples")}
    if node.get("nullable"):
        return {"anyOf": [out, {"type": "null"}]}
    return out


@dataclass(frozen=True)
class Operation:
    document: str
    method: str
    template: str
    spec: dict[str, Any]
    components: dict[str, Any]
    openapi: str

    @property
    def label(self) -> str:
        return f"{self.method.upper()} {self.template}"

    def declared(self, status: int) -> dict[str, Any] | None:
        responses = self.spec.get("responses", {})
        for key in (str(status), f"{status // 100}XX", "default"):
            if key in responses:
                return self.resolve(responses[key])
        return None

    def resolve(self, node: dict[str, Any]) -> dict[str, Any]:
        while "$ref" in node:
            kind, name = node["$ref"].removeprefix("#/components/").split("/", 1)
            node = self.components[kind][name]
        return node

    def validator(self, schema: dict[str, Any]) -> jsonschema.protocols.Validator:
        if self.openapi.startswith("3.0"):
            document = {**as_json_schema(schema), "components": as_json_schema(self.components)}
            return jsonschema.Draft4Validator(document)
        return jsonschema.Draft202012Validator({**schema, "components": self.components})

    def check(self, status: int, content_type: str, body: bytes) -> int:
        """Raise AssertionError when the response breaks the document; return how many payloads were held
        to a schema (1 for a plain body, one per event for a stream)."""
        response = self.declared(status)
        assert response is not None, f"{self.label} answered {status}, which its document does not declare"
        content = response.get("content") or {}
        if not content:
            assert not body.strip(), f"{self.label} {status} declares no body but sent {body[:200]!r}"
            return 0
        media = content_type.split(";")[0].strip().lower()
        assert media in content, f"{self.label} {status} sent {media!r}; the document declares {sorted(content)}"
        schema = content[media].get("schema")
        if schema is None:
            return 0
        payloads = _payloads(media, body)
        if media == "text/event-stream":
            schema, payloads = self._sse(schema, payloads)
        validator = self.validator(schema)
        for payload in payloads:
            errors = sorted(validator.iter_errors(payload), key=lambda e: list(e.path))
            assert not errors, (f"{self.label} {status} {media}: {errors[0].message} at "
                                f"{list(errors[0].absolute_path)} in {json.dumps(payload)[:400]}")
        return len(payloads)


    def _sse(self, schema: dict[str, Any], events: list[Any]) -> tuple[dict[str, Any], list[Any]]:
        """The schema SSE events are held to, and the events: their JSON data where the envelope's ``data``
        names a schema in ``x-data-schema``, else the envelopes themselves."""
        data = self.resolve(schema).get("properties", {}).get("data", {})
        if "x-data-schema" in data:
            return data["x-data-schema"], [json.loads(event["data"]) for event in events if event["data"] != "[DONE]"]
        return schema, events


def _payloads(media: str, body: bytes) -> list[Any]:
    text = body.decode("utf-8")
    if media == "text/event-stream":
        events: list[dict[str, str]] = []
        event: dict[str, str] = {}
        for line in text.split("\n"):
            if line == "":
                if event:
                    events.append(event)
                    event = {}
            elif not line.startswith(":"):
                name, _, value = line.partition(":")
                value = value.removeprefix(" ")
                event[name] = event[name] + "\n" + value if name == "data" and name in event else value
        return list(events)
    if media == "application/x-ndjson":
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    if media == "application/json":
        return [json.loads(text)]
    return [text]


class Contract:
    """Every operation of every document in ``spec_dir``."""

    def __init__(self, spec_dir: Path = SPEC_DIR) -> None:
        self.spec_dir = spec_dir

    @cached_property
    def operations(self) -> list[Operation]:
        found = []
        for path in document_paths(self.spec_dir):
            document = load_document(path)
            for template, item in document.get("paths", {}).items():
                for method in METHODS:
                    if method in item:
                        spec = {**item[method], "parameters": [*item.get("parameters", []),
                                                               *item[method].get("parameters", [])]}
                        found.append(Operation(path.stem, method, template, spec, document.get("components", {}),
                                               str(document.get("openapi", "3.0.3"))))
        return found

    def operation(self, method: str, path: str) -> Operation | None:
        for operation in self.operations:
            pattern = "^" + re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(operation.template)) + "$"
            if operation.method == method.lower() and re.match(pattern, path):
                return operation
        return None

    def check(self, response: httpx.Response) -> int:
        """Hold a read response to the operation its request was routed to."""
        request = response.request
        operation = self.operation(request.method, request.url.path)
        assert operation is not None, f"no document declares {request.method} {request.url.path}"
        return operation.check(response.status_code, response.headers.get("content-type", ""), response.content)
