"""Replay the Anthropic golden transcripts in conformance/golden_anthropic/ against the real server and compare.

As in test_golden.py, each transcript is replayed twice: the second time the prompt is in the prefix cache,
which moves tokens from ``input_tokens`` to ``cache_read_input_tokens``, never the greedy text. Re-record with
``python -m conformance.record_golden_anthropic`` after a deliberate change, and review the diff.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from conformance.anthropic_checks import strict_count, strict_error, strict_message, strict_stream
from conformance.golden_harness import (
    HTTP_METHODS,
    Observed,
    assert_every_exchange_recorded,
    assert_replays_match,
    filled,
    load,
    template_regex,
)
from conformance.record_golden_anthropic import SUITE

GOLDEN_FILES = SUITE.golden_files()


def _usages(observed: Observed) -> list[dict[str, Any]]:
    body = observed.raw_body
    if isinstance(body, list):
        return [data["message"]["usage"] if name == "message_start" else data["usage"]
                for name, data in body if name in ("message_start", "message_delta")]
    return [body["usage"]] if isinstance(body, dict) and "usage" in body else []


def _check_volatile_values(observed: Observed) -> None:
    """What normalization hides must still be self-consistent: the cache split adds up, and the header agrees."""
    usages = _usages(observed)
    for usage in usages:
        assert usage["input_tokens"] >= 1 and usage["cache_read_input_tokens"] >= 0
        assert observed.headers["x-superfluid-warm"] == str(usage["cache_read_input_tokens"])
    assert len({u["input_tokens"] + u["cache_read_input_tokens"] for u in usages}) <= 1
    if isinstance(observed.raw_body, list):
        ids = {data["message"]["id"] for name, data in observed.raw_body if name == "message_start"}
        assert len(ids) == 1 and ids.pop().startswith("msg_")


def _check_warm(observed: Observed) -> None:
    for usage in _usages(observed):
        assert usage["cache_read_input_tokens"] > 0, "a repeated prompt should be read from the prefix cache"


@pytest.mark.parametrize("path", GOLDEN_FILES, ids=lambda p: p.stem)
def test_replay_matches_golden(path: Path, http: httpx.Client) -> None:
    assert_replays_match(SUITE, http, path, _check_volatile_values, _check_warm)


def test_every_exchange_is_recorded() -> None:
    assert_every_exchange_recorded(SUITE)


def test_every_operation_has_a_transcript() -> None:
    requests = [(r["request"]["method"].lower(), r["request"]["path"]) for r in map(load, GOLDEN_FILES)]
    missing = [f"{method.upper()} {template}" for template, item in SUITE.spec()["paths"].items()
               for method in item if method in HTTP_METHODS
               and not any(m == method and template_regex(template).match(p) for m, p in requests)]
    assert not missing, f"operations without a golden transcript: {missing}"


def test_stream_and_non_stream_agree() -> None:
    for streamed, plain in {"message_stream": "message", "message_tools_stream": "message_tools"}.items():
        events = load(SUITE.golden_path(streamed))["response"]["events"]
        body = load(SUITE.golden_path(plain))["response"]["body"]
        assert load(SUITE.golden_path(streamed))["response"]["text"] == "".join(
            block.get("text", "") for block in body["content"])
        delta = events[-2][1]
        assert delta["delta"] == {"stop_reason": body["stop_reason"], "stop_sequence": body["stop_sequence"]}
        assert delta["usage"]["output_tokens"] == body["usage"]["output_tokens"]


_PLACEHOLDERS = {"<cached>": 0, "<uncached>": 1, "<message-id>": "msg_0", "<tool-use-id>": "toolu_0"}


@pytest.mark.parametrize("path", GOLDEN_FILES, ids=lambda p: p.stem)
def test_transcripts_parse_into_the_sdks_types(path: Path) -> None:
    recorded = load(path)
    response = filled(recorded["response"], _PLACEHOLDERS)
    if response["status"] != 200:
        strict_error(response["body"])
    elif "events" in response:
        strict_stream([(name, data) for name, data in response["events"]])
    elif recorded["request"]["path"].endswith("/count_tokens"):
        strict_count(response["body"])
    else:
        strict_message(response["body"])
