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
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import schemathesis
import yaml

from conformance.schemathesis_harness import Tally, capped, config, generation_body, validate

SPEC_PATH = Path(__file__).resolve().parents[1] / "openapi" / "ollama.yaml"

MAX_NEW_TOKENS = 4
EXAMPLES = {"generation": 12, "default": 8, "distribution": 2}
GENERATION_PATHS = frozenset({"/api/chat", "/api/generate"})
STREAM_LINE_SCHEMAS = {"/api/chat": "ChatStreamLine", "/api/generate": "GenerateStreamLine"}

_CONFIG = config(
    EXAMPLES["default"],
    {"body.model": {"dictionary": "models", "probability": 0.8}},
    # Fewer cases where nothing varies (distribution routes answer 501), more where the engine runs.
    operations=[
        {"include-tag": "distribution", "generation": {"max-examples": EXAMPLES["distribution"]}},
        {"include-tag": "inference", "generation": {"max-examples": EXAMPLES["generation"]}},
    ],
)

schema = schemathesis.openapi.from_path(SPEC_PATH, config=_CONFIG)

TALLY = Tally()
NDJSON_CHECKED: Counter[str] = Counter()
_report_counts, _cases_ran = TALLY.autouse_fixtures(lambda label: f"; {NDJSON_CHECKED[label]} NDJSON replies")


def _prepare(case: schemathesis.Case[Any]) -> None:
    body = generation_body(case, GENERATION_PATHS)
    if body is None:
        return
    options = body.get("options")
    if options is None:
        body["options"] = {"num_predict": MAX_NEW_TOKENS}
    elif isinstance(options, dict):
        # -1 and -2 would fill the window.
        options["num_predict"] = capped(options.get("num_predict"), MAX_NEW_TOKENS, fill=(-1, -2))


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


@schema.parametrize()
def test_operation_conforms(case: schemathesis.Case[Any], base_url: str) -> None:
    _prepare(case)
    response = TALLY.call(case, base_url)
    if validate(case, response, not_implemented_tag="distribution"):
        _check_ndjson(case, response)
