"""What the schemathesis runs of both documents share: the configuration, the checks, keeping generated cases
cheap, and the count of what was sent and how the server answered.

test_schemathesis.py drives openapi/openai.yaml and test_ollama_schemathesis.py openapi/ollama.yaml; each
keeps what is particular to its document (its token caps, its generation routes, its extra checks).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
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

CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]


def config(max_examples: int, parameters: dict[str, Any], operations: list[dict[str, Any]] | None = None
           ) -> schemathesis.Config:
    """The shared configuration: a fixed seed, every phase but the stateful one, and generated ``model`` values
    drawn (with the probabilities in ``parameters``) from a dictionary holding the served model's id."""
    settings: dict[str, Any] = {
        # A fixed seed keeps runs reproducible; change it locally to explore further.
        "seed": 20250611,
        "suppress-health-check": ["too_slow", "filter_too_much"],
        "request-timeout": 120,
        "generation": {"mode": "all", "max-examples": max_examples, "database": "none"},
        "phases": {
            "examples": {"enabled": True},
            "coverage": {"enabled": True},
            "fuzzing": {"enabled": True},
            "stateful": {"enabled": False},
        },
        "dictionaries": {"models": {"values": [DEFAULT_MODEL]}},
        "parameters": parameters,
    }
    if operations is not None:
        settings["operations"] = operations
    return schemathesis.Config.from_dict(settings)


def capped(value: Any, ceiling: int, fill: tuple[int, ...] = ()) -> Any:
    """A positive integer above ``ceiling``, a missing value, or one of ``fill`` (budgets that mean "fill the
    window") becomes ``ceiling``; anything else stays, so a deliberately invalid value still reaches the
    server's validation."""
    if value is None or value in fill:
        return ceiling
    if isinstance(value, int) and not isinstance(value, bool) and value > ceiling:
        return ceiling
    return value


def phase(case: schemathesis.Case[Any]) -> str | None:
    return None if case.meta is None else case.meta.phase.name.value


def pin_body_model(case: schemathesis.Case[Any], body: dict[str, Any]) -> None:
    """Never the second model's lazy load (it would cost seconds per case and tests nothing asserted here).

    The coverage phase does not draw from the model dictionary; its boundary cases all name the model "",
    which would stop every one of them at the 404. They name the served model instead, so their boundary
    values reach the engine; unknown ids stay covered by the fuzzing phase."""
    if body.get("model") == SECOND_MODEL or (body.get("model") == "" and phase(case) == "coverage"):
        body["model"] = DEFAULT_MODEL


def generation_body(case: schemathesis.Case[Any], generation_paths: frozenset[str]) -> dict[str, Any] | None:
    """A case's JSON body with its model pinned (see ``pin_body_model``), for the caller to cap its decoding;
    None when there is no JSON body or the route runs no decoder."""
    body = case.body
    if not isinstance(body, dict):
        return None
    pin_body_model(case, body)
    return body if case.operation.path in generation_paths else None


@dataclass
class Tally:
    """Cases sent per operation label, and how the server answered them (label -> status -> count)."""

    sent: Counter[str] = field(default_factory=Counter)
    statuses: dict[str, Counter[int]] = field(default_factory=dict)

    def report(self, extra: Callable[[str], str] = lambda label: "") -> None:
        for label in sorted(self.statuses):
            answered = ", ".join(f"{status}x{count}" for status, count in sorted(self.statuses[label].items()))
            print(f"schemathesis {label}: {self.sent[label]} cases ({answered}){extra(label)}")

    @contextmanager
    def expect_cases(self, node_name: str) -> Iterator[None]:
        """Fail an operation's item when schemathesis sent it no case at all."""
        label = node_name.partition("[")[2].rstrip("]")
        before = self.sent[label]
        yield
        assert self.sent[label] > before, f"schemathesis generated no case for {label}"

    def autouse_fixtures(self, extra: Callable[[str], str] = lambda label: "") -> tuple[Any, Any]:
        """The two fixtures a test module assigns to module names of its own (pytest finds them there): one
        prints the counts once the module is done, the other fails an item that got no case."""

        @pytest.fixture(scope="module", autouse=True)
        def report_counts(server: object) -> Iterator[None]:
            yield
            self.report(extra)

        @pytest.fixture(autouse=True)
        def cases_ran(request: pytest.FixtureRequest) -> Iterator[None]:
            with self.expect_cases(request.node.name):
                yield

        return report_counts, cases_ran

    def call(self, case: schemathesis.Case[Any], base_url: str) -> Any:
        label = case.operation.label
        response = case.call(base_url=base_url)
        self.sent[label] += 1
        self.statuses.setdefault(label, Counter())[response.status_code] += 1
        return response


def validate(case: schemathesis.Case[Any], response: Any, not_implemented_tag: str) -> bool:
    """Check a response against the document; False for an operation tagged ``not_implemented_tag``, whose
    documented answer is 501 (so the server-error check does not apply to it; no other 5xx is allowed)."""
    if not_implemented_tag in (case.operation.tags or ()):
        assert response.status_code == 501 or response.status_code < 500, response.text[:300]
        case.validate_response(response, checks=CHECKS[1:])
        return False
    case.validate_response(response, checks=CHECKS)
    return True
