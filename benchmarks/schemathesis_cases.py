"""The cases benchmarks/schemathesis_long.py runs (through pytest, one document per run; not collected by CI).

Environment: FUZZ_SPEC (a document), FUZZ_BASE_URL, FUZZ_EXAMPLES (per operation), FUZZ_COUNTS (a JSON file
the counts are written to). Every response is held to schemathesis's checks (no 5xx but a documented 501,
status, content type, body) and to our own document, SSE and NDJSON events included (conformance.contract).
The stateful phase runs when the document declares links.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from conformance.contract import Contract
from conformance.schemathesis_harness import CHECKS, capped, config, pin_body_model
from conformance.test_self_validation import body_schema, properties

SPEC = Path(os.environ.get("FUZZ_SPEC", Path(__file__).resolve().parents[1] / "openapi" / "openai.yaml"))
BASE_URL = os.environ.get("FUZZ_BASE_URL", "http://127.0.0.1:8453")
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "5"))
CAPS = ("max_tokens", "max_completion_tokens", "max_output_tokens")
MAX_NEW_TOKENS = 4

CONTRACT = Contract(SPEC.parent)
COUNTS: Counter[str] = Counter()

schema = schemathesis.openapi.from_path(SPEC, config=config(EXAMPLES, {
    "body.model": {"dictionary": "models", "probability": 0.8},
    "path.model": {"dictionary": "models", "probability": 0.5},
    "query.model": {"dictionary": "models", "probability": 0.5},
}))


def _declares_links() -> bool:
    """Whether any response of the document declares OpenAPI links (the word alone, in a description, is not)."""
    return any(isinstance(response, dict) and "links" in response
               for item in (schema.raw_schema.get("paths") or {}).values() if isinstance(item, dict)
               for operation in item.values() if isinstance(operation, dict)
               for response in (operation.get("responses") or {}).values())


@pytest.fixture(scope="session", autouse=True)
def _write_counts() -> Iterator[None]:
    yield
    Path(os.environ.get("FUZZ_COUNTS", "/dev/null")).write_text(json.dumps(COUNTS))


def _prepare(case: schemathesis.Case[Any]) -> None:
    """Bound what one case decodes (a few tokens, two choices) and keep it on the served model."""
    for container in (case.query, case.path_parameters):
        if isinstance(container, dict) and "model" in container and container["model"] != "":
            pin_body_model(case, container)
    body = case.body
    if not isinstance(body, dict):
        return
    pin_body_model(case, body)
    operation = CONTRACT.operation(case.operation.method, case.operation.path)
    declared = properties(operation, body_schema(operation) or {}) if operation else set()
    for field in CAPS:
        if field in declared:
            body[field] = capped(body.get(field), MAX_NEW_TOKENS)
    if "n" in body:
        body["n"] = capped(body["n"], 2)
    options = body.get("options")
    if isinstance(options, dict):
        options["num_predict"] = capped(options.get("num_predict"), MAX_NEW_TOKENS, fill=(-1, -2))
    elif options is None and "options" in declared:
        body["options"] = {"num_predict": MAX_NEW_TOKENS}


def _never_succeeds(case: schemathesis.Case[Any]) -> bool:
    declared = {str(key) for key in case.operation.definition.raw.get("responses", {})}
    return "501" in declared and not any(key.startswith("2") for key in declared)


def _check(case: schemathesis.Case[Any], response: Any) -> None:
    COUNTS["requests"] += 1
    COUNTS[f"status {response.status_code}"] += 1
    if response.status_code >= 500:
        COUNTS["5xx"] += 1
    checks = CHECKS[1:] if _never_succeeds(case) else CHECKS
    if _never_succeeds(case):
        assert response.status_code == 501 or response.status_code < 500, response.text[:300]
    case.validate_response(response, checks=checks)
    operation = CONTRACT.operation(case.method, case.formatted_path)
    if operation is None:  # the coverage phase also sends methods the path does not declare
        assert response.status_code == 405, f"{case.method} {case.formatted_path}: {response.status_code}"
        return
    content_type = (response.headers.get("content-type") or [""])[0]
    try:
        COUNTS["events checked"] += operation.check(response.status_code, content_type, response.content)
    except AssertionError as exc:
        raise AssertionError(f"{exc}\n{response.text[:300]}\nreproduce: {case.as_curl_command()}") from None


@schema.parametrize()
def test_operation(case: schemathesis.Case[Any]) -> None:
    _prepare(case)
    _check(case, case.call(base_url=BASE_URL))


if _declares_links():
    class Stateful(schema.as_state_machine()):  # type: ignore[misc]
        def before_call(self, case: schemathesis.Case[Any]) -> None:
            _prepare(case)

        def call(self, case: schemathesis.Case[Any], **kwargs: Any) -> Any:
            return case.call(base_url=BASE_URL, **kwargs)

        def validate_response(self, response: Any, case: schemathesis.Case[Any], **kwargs: Any) -> None:
            _check(case, response)

    TestStateful = Stateful.TestCase
