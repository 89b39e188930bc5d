"""Property-based conformance: schemathesis drives both operations of openapi/anthropic.yaml against the real
server.

The approach of test_schemathesis.py: one pytest item per operation; for every generated case no 5xx, and the
status code, content type and body the document declares. SSE bodies, which schemathesis does not read, are
checked here event by event: the framing byte for byte, each event's data against the document's
MessageStreamEvent, and Anthropic's order of events.

Generation is kept cheap: every case decodes at most a few tokens (``max_tokens`` is capped), and the second
model's lazy load is avoided.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import schemathesis

from conformance.anthropic_checks import check_sequence, sse_events, validate_anthropic
from conformance.schemathesis_harness import Tally, capped, config, generation_body, validate

SPEC_PATH = Path(__file__).resolve().parents[1] / "openapi" / "anthropic.yaml"

MAX_NEW_TOKENS = 4
EXAMPLES_PER_OPERATION = 20
GENERATION_PATHS = frozenset({"/v1/messages"})

_CONFIG = config(EXAMPLES_PER_OPERATION, {"body.model": {"dictionary": "models", "probability": 0.8}})

schema = schemathesis.openapi.from_path(SPEC_PATH, config=_CONFIG)

TALLY = Tally()
STREAMS_CHECKED: Counter[str] = Counter()
_report_counts, _cases_ran = TALLY.autouse_fixtures(lambda label: f"; {STREAMS_CHECKED[label]} SSE replies")


def _prepare(case: schemathesis.Case[Any]) -> None:
    """Cap the decoding; every other case that says nothing of ``stream`` streams, so SSE replies get checked
    as often as JSON ones (generated bodies rarely carry the field)."""
    body = generation_body(case, GENERATION_PATHS)
    if body is not None:
        body["max_tokens"] = capped(body.get("max_tokens"), MAX_NEW_TOKENS)
        if "stream" not in body:
            body["stream"] = TALLY.sent[case.operation.label] % 2 == 1


def _check_stream(case: schemathesis.Case[Any], response: Any) -> None:
    if response.status_code != 200 or not response.headers.get("content-type", [""])[0].startswith(
            "text/event-stream"):
        return
    events = sse_events(response.content)
    for _, data in events:
        validate_anthropic("MessageStreamEvent", data)
    if events[-1][0] != "error":
        check_sequence(events)
    STREAMS_CHECKED[case.operation.label] += 1


@schema.parametrize()
def test_operation_conforms(case: schemathesis.Case[Any], base_url: str) -> None:
    _prepare(case)
    response = TALLY.call(case, base_url)
    validate(case, response, not_implemented_tag="retired")
    _check_stream(case, response)
