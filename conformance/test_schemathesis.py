"""Property-based conformance: schemathesis drives every operation of openapi/openai.yaml against the real server.

Each operation becomes one pytest item. For every generated case the server must not answer 5xx, and its
status code, content type and body must be the ones the document declares.

Generation is kept cheap on purpose: a generation endpoint left alone would decode until the context is full,
so every case is capped to a handful of new tokens and at most two choices before it is sent (see
``_prepare``). Most generated ``model`` values are swapped for the served model's id (a dictionary binding
in the schemathesis configuration), so the engine path is exercised and not just the 404 path.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import schemathesis

from conformance.schemathesis_harness import Tally, capped, config, generation_body, validate
from conformance.server import DEFAULT_MODEL, SECOND_MODEL

SPEC_PATH = Path(__file__).resolve().parents[1] / "openapi" / "openai.yaml"

# Most new tokens and choices one generated case may ask for.
MAX_NEW_TOKENS = 4
MAX_CHOICES = 2
EXAMPLES_PER_OPERATION = 30

# Routes whose handlers run the decoder.
GENERATION_PATHS = frozenset({"/v1/chat/completions", "/v1/completions", "/v1/responses"})

_CONFIG = config(EXAMPLES_PER_OPERATION, {
    "body.model": {"dictionary": "models", "probability": 0.8},
    "path.model": {"dictionary": "models", "probability": 0.5},
    "query.model": {"dictionary": "models", "probability": 0.5},
})

schema = schemathesis.openapi.from_path(SPEC_PATH, config=_CONFIG)

TALLY = Tally()
_report_counts, _cases_ran = TALLY.autouse_fixtures()


def _prepare(case: schemathesis.Case[Any]) -> None:
    """Bound the work one case can cause on the engine: a few new tokens, at most two choices, and never the
    second model's lazy load (see ``pin_body_model``)."""
    query = case.query
    if isinstance(query, dict) and query.get("model") == SECOND_MODEL:
        query["model"] = DEFAULT_MODEL
    if "admin" in (case.operation.tags or ()):
        _unknown_model(case)  # loading and unloading the shared server's models is test_model_lifecycle.py's
        return
    body = generation_body(case, GENERATION_PATHS)
    if body is None:
        return
    if case.operation.path == "/v1/responses":
        body["max_output_tokens"] = capped(body.get("max_output_tokens"), MAX_NEW_TOKENS)
        return
    body["max_tokens"] = capped(body.get("max_tokens"), MAX_NEW_TOKENS)
    if case.operation.path == "/v1/chat/completions":
        body["max_completion_tokens"] = capped(body.get("max_completion_tokens"), MAX_NEW_TOKENS)
        if "n" in body:
            body["n"] = capped(body["n"], MAX_CHOICES)


def _unknown_model(case: schemathesis.Case[Any]) -> None:
    """Admin routes name a model nobody knows: their validation and errors are exercised, nothing loads."""
    if isinstance(case.path_parameters, dict) and "model" in case.path_parameters:
        case.path_parameters["model"] = "no-such-model"
    if isinstance(case.body, dict) and isinstance(case.body.get("model"), str):
        case.body["model"] = "no-such-model"


@schema.parametrize()
def test_operation_conforms(case: schemathesis.Case[Any], base_url: str) -> None:
    _prepare(case)
    response = TALLY.call(case, base_url)
    # 501 route_retired is the retired routes' documented answer; no other 5xx is.
    validate(case, response, not_implemented_tag="retired")
