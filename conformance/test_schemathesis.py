"""Property-based conformance: schemathesis drives every operation of openapi/openai.yaml against the real server.

Each operation becomes one pytest item. For every generated case the server must not answer 5xx, and its
status code, content type and body must be the ones the document declares.

Generation is kept cheap on purpose: a generation endpoint left alone would decode until the context is full,
so every case is capped to a handful of new tokens and at most two choices before it is sent (see
``_prepare``). Most generated ``model`` values are swapped for the served model's id (a dictionary binding
in the schemathesis configuration), so the engine path is exercised and not just the 404 path.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from conformance.server import DEFAULT_MODEL, SECOND_MODEL

SPEC_PATH = Path(__file__).resolve().parents[1] / "openapi" / "openai.yaml"

# Most new tokens and choices one generated case may ask for.
MAX_NEW_TOKENS = 4
MAX_CHOICES = 2
EXAMPLES_PER_OPERATION = 30

# Routes whose handlers run the decoder.
GENERATION_PATHS = frozenset({"/v1/chat/completions", "/v1/completions"})

CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]

_CONFIG = schemathesis.Config.from_dict(
    {
        # A fixed seed keeps runs reproducible; change it locally to explore further.
        "seed": 20250611,
        "suppress-health-check": ["too_slow", "filter_too_much"],
        "request-timeout": 120,
        "generation": {
            "mode": "all",
            "max-examples": EXAMPLES_PER_OPERATION,
            "database": "none",
        },
        "phases": {
            "examples": {"enabled": True},
            "coverage": {"enabled": True},
            "fuzzing": {"enabled": True},
            "stateful": {"enabled": False},
        },
        "dictionaries": {"models": {"values": [DEFAULT_MODEL]}},
        "parameters": {
            "body.model": {"dictionary": "models", "probability": 0.8},
            "path.model": {"dictionary": "models", "probability": 0.5},
            "query.model": {"dictionary": "models", "probability": 0.5},
        },
    }
)

schema = schemathesis.openapi.from_path(SPEC_PATH, config=_CONFIG)

# Cases sent per operation label, and how the server answered them (label -> status -> count).
SENT: Counter[str] = Counter()
STATUSES: dict[str, Counter[int]] = {}


def _capped(value: Any, ceiling: int) -> Any:
    """A positive integer above ``ceiling`` (or a missing value) becomes ``ceiling``; anything else stays, so
    a deliberately invalid value still reaches the server's validation."""
    if value is None:
        return ceiling
    if isinstance(value, int) and not isinstance(value, bool) and value > ceiling:
        return ceiling
    return value


def _prepare(case: schemathesis.Case[Any]) -> None:
    """Bound the work one case can cause on the engine: a few new tokens, at most two choices, and never the
    second model's lazy load (it would cost seconds per case and tests nothing this module asserts).

    The coverage phase does not draw from the model dictionary; its boundary cases all name the model "",
    which would stop every one of them at the 404. They name the served model instead, so their boundary
    values reach the engine; unknown ids stay covered by the fuzzing phase."""
    query = case.query
    if isinstance(query, dict) and query.get("model") == SECOND_MODEL:
        query["model"] = DEFAULT_MODEL
    body = case.body
    if not isinstance(body, dict):
        return
    if body.get("model") == SECOND_MODEL or (body.get("model") == "" and _phase(case) == "coverage"):
        body["model"] = DEFAULT_MODEL
    if case.operation.path not in GENERATION_PATHS:
        return
    body["max_tokens"] = _capped(body.get("max_tokens"), MAX_NEW_TOKENS)
    if case.operation.path == "/v1/chat/completions":
        body["max_completion_tokens"] = _capped(body.get("max_completion_tokens"), MAX_NEW_TOKENS)
        if "n" in body:
            body["n"] = _capped(body["n"], MAX_CHOICES)


def _phase(case: schemathesis.Case[Any]) -> str | None:
    return None if case.meta is None else case.meta.phase.name.value


@pytest.fixture(scope="module", autouse=True)
def _report_counts(server: object) -> Iterator[None]:
    yield
    for label in sorted(STATUSES):
        answered = ", ".join(f"{status}x{count}" for status, count in sorted(STATUSES[label].items()))
        print(f"schemathesis {label}: {SENT[label]} cases ({answered})")


@pytest.fixture(autouse=True)
def _cases_ran(request: pytest.FixtureRequest) -> Iterator[None]:
    """Fail an operation's item when schemathesis sent it no case at all."""
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
    if "retired" in (case.operation.tags or ()):
        # 501 route_retired is these routes' documented answer; no other 5xx is.
        assert response.status_code == 501 or response.status_code < 500, response.text[:300]
        case.validate_response(response, checks=CHECKS[1:])
        return
    case.validate_response(response, checks=CHECKS)
