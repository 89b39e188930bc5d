"""Property-based conformance: schemathesis drives every operation of openapi/ollama.yaml against the real server.

The approach of test_schemathesis.py: one pytest item per operation; for every generated case no 5xx, and the
status code, content type and body the document declares. NDJSON bodies, which schemathesis does not read,
are checked here line by line against the document's stream-line schema.

Generation is kept cheap: every case decodes at most a few tokens (``options.num_predict`` is capped, and
-1/-2, which would fill the window, become the cap), and the second model's lazy load is avoided.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import schemathesis
import yaml
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from conformance.server import DEFAULT_MODEL, SECOND_MODEL

SPEC_PATH = Path(__file__).resolve().parents[1] / "openapi" / "ollama.yaml"

MAX_NEW_TOKENS = 4
EXAMPLES = {"generation": 12, "default": 8, "distribution": 2}
GENERATION_PATHS = frozenset({"/api/chat", "/api/generate"})
STREAM_LINE_SCHEMAS = {"/api/chat": "ChatStreamLine", "/api/generate": "GenerateStreamLine"}

CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]


_CONFIG = schemathesis.Config.from_dict(
    {
        "seed": 20250611,
        "suppress-health-check": ["too_slow", "filter_too_much"],
        "request-timeout": 120,
        "generation": {"mode": "all", "max-examples": EXAMPLES["default"], "database": "none"},
        "phases": {
            "examples": {"enabled": True},
            "coverage": {"enabled": True},
            "fuzzing": {"enabled": True},
            "stateful": {"enabled": False},
        },
        "dictionaries": {"models": {"values": [DEFAULT_MODEL]}},
        "parameters": {"body.model": {"dictionary": "models", "probability": 0.8}},
        # Fewer cases where nothing varies (distribution routes answer 501), more where the engine runs.
        "operations": [
            {"include-tag": "distribution", "generation": {"max-examples": EXAMPLES["distribution"]}},
            {"include-tag": "inference", "generation": {"max-examples": EXAMPLES["generation"]}},
        ],
    }
)

schema = schemathesis.openapi.from_path(SPEC_PATH, config=_CONFIG)

SENT: Counter[str] = Counter()
STATUSES: dict[str, Counter[int]] = {}
NDJSON_CHECKED: Counter[str] = Counter()


def _capped_tokens(value: Any) -> Any:
    """Positive budgets above the cap, -1/-2 (fill the window) and a missing value become the cap; anything
    invalid stays, so it still reaches the server's validation."""
    if value is None or value in (-1, -2):
        return MAX_NEW_TOKENS
    if isinstance(value, int) and not isinstance(value, bool) and value > MAX_NEW_TOKENS:
        return MAX_NEW_TOKENS
    return value


def _prepare(case: schemathesis.Case[Any]) -> None:
    body = case.body
    if not isinstance(body, dict):
        return
    if body.get("model") == SECOND_MODEL or (body.get("model") == "" and _phase(case) == "coverage"):
        body["model"] = DEFAULT_MODEL
    if case.operation.path not in GENERATION_PATHS:
        return
    options = body.get("options")
    if options is None:
        body["options"] = {"num_predict": MAX_NEW_TOKENS}
    elif isinstance(options, dict):
        options["num_predict"] = _capped_tokens(options.get("num_predict"))


def _phase(case: schemathesis.Case[Any]) -> str | None:
    return None if case.meta is None else case.meta.phase.name.value


@cache
def _components() -> dict[str, Any]:
    with SPEC_PATH.open() as fh:
        return dict(yaml.safe_load(fh)["components"]["schemas"])


def _openapi_nullable(node: Any) -> Any:
    """OpenAPI 3.0 ``nullable`` as JSON Schema, for the few response schemas checked here by hand."""
    if isinstance(node, list):
        return [_openapi_nullable(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {k: _openapi_nullable(v) for k, v in node.items() if k != "nullable"}
    if node.get("nullable"):
        return {"anyOf": [out, {"type": "null"}]}
    return out


def _check_ndjson(case: schemathesis.Case[Any], response: Any) -> None:
    if not response.headers.get("content-type", [""])[0].startswith("application/x-ndjson"):
        return
    name = STREAM_LINE_SCHEMAS[case.operation.path]
    document = {"$ref": f"#/components/schemas/{name}", "components": {"schemas": _openapi_nullable(_components())}}
    lines = response.content.decode().splitlines()
    assert lines, "an NDJSON reply with no line"
    records = [json.loads(line) for line in lines]
    for record in records:
        jsonschema.Draft4Validator(document).validate(record)
    last = records[-1]
    assert last.get("done") is True or set(last) == {"error"}, "a stream ends with its terminal record"
    NDJSON_CHECKED[case.operation.label] += 1


@pytest.fixture(scope="module", autouse=True)
def _report_counts(server: object) -> Iterator[None]:
    yield
    for label in sorted(STATUSES):
        answered = ", ".join(f"{status}x{count}" for status, count in sorted(STATUSES[label].items()))
        print(f"schemathesis {label}: {SENT[label]} cases ({answered}); {NDJSON_CHECKED[label]} NDJSON replies")


@pytest.fixture(autouse=True)
def _cases_ran(request: pytest.FixtureRequest) -> Iterator[None]:
    label = request.node.name.partition("[")[2].rstrip("]")
    before = SENT[label]
    yield
    assert SENT[label] > before, f"schemathesis generated no case for {label}"


@schema.parametrize()
def test_operation_conforms(case: schemathesis.Case[Any], base_url: str) -> None:
    _prepare(case)
    label = case.operation.label
    response = case.call(base_url=base_url)
    SENT[label] += 1
    STATUSES.setdefault(label, Counter())[response.status_code] += 1
    if "distribution" in (case.operation.tags or ()):
        # 501 is these routes' documented answer, so the server-error check does not apply to it; no other 5xx.
        assert response.status_code == 501 or response.status_code < 500, response.text[:300]
        case.validate_response(response, checks=CHECKS[1:])
        return
    case.validate_response(response, checks=CHECKS)
    _check_ndjson(case, response)
