"""Replay the golden transcripts in conformance/golden/ against the real server and compare exactly.

Each transcript is replayed twice in a row. The first replay may be cold or warm, depending on what ran
before it in the session; the second repeats a prompt the server has just seen, so it is served from the
prefix cache. Both must equal the recording once volatile values are replaced by placeholders (see
record_golden.normalize): the cache may change ``cached_tokens``, never the greedy text.

After a deliberate change to the API, re-record with ``python -m conformance.record_golden`` and review the diff.
"""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from conformance.golden_harness import (
    HTTP_METHODS,
    Observed,
    assert_every_exchange_recorded,
    assert_replays_match,
    load,
    template_regex,
)
from conformance.record_golden import DONE, SUITE

GOLDEN_FILES = SUITE.golden_files()


def _cached_tokens(observed: Observed) -> int | None:
    """The prefix-cache count the body reports (the terminal frame's, for a stream)."""
    body = observed.raw_body
    if isinstance(body, list):
        body = next((f for f in reversed(body) if isinstance(f, dict) and "usage" in f), None) or next(
            (f["response"] for f in reversed(body) if isinstance(f, dict) and "response" in f), None)
    if not isinstance(body, dict) or not body.get("usage"):
        return None
    usage = body["usage"]
    details = usage.get("prompt_tokens_details") or usage["input_tokens_details"]  # chat / Responses
    return int(details["cached_tokens"])


def _check_volatile_values(observed: Observed) -> None:
    """What normalization hides must still be self-consistent in the live answer."""
    cached = _cached_tokens(observed)
    if cached is not None:
        assert observed.headers["x-superfluid-warm"] == str(cached), "x-superfluid-warm disagrees with the body"
    streamed = observed.headers.get("content-type", "").startswith("text/event-stream")
    frames = observed.raw_body if streamed and isinstance(observed.raw_body, list) else None
    if frames is not None and frames and isinstance(frames[0], dict) and "sequence_number" in frames[0]:
        # A Responses API stream: numbered events, one response id, no [DONE].
        assert [f["sequence_number"] for f in frames] == list(range(len(frames)))
        assert len({f["response"]["id"] for f in frames if "response" in f}) == 1
    elif frames is not None:
        assert frames and frames[-1] == DONE, "a stream must end with data: [DONE]"
        chunks = [f for f in frames if isinstance(f, dict)]
        assert len({c["id"] for c in chunks}) == 1, "every chunk of one stream carries the same id"
        assert len({c["created"] for c in chunks}) == 1, "every chunk of one stream carries the same created"


def _check_warm(observed: Observed) -> None:
    if observed.status == 200:
        cached = _cached_tokens(observed)
        assert cached is None or cached > 0, "a repeated prompt should be served from the prefix cache"


@pytest.mark.parametrize("path", GOLDEN_FILES, ids=lambda p: p.stem)
def test_replay_matches_golden(path: Path, http: httpx.Client) -> None:
    assert_replays_match(SUITE, http, path, _check_volatile_values, _check_warm)


def test_every_exchange_is_recorded() -> None:
    """The recorder's list and the files agree: nothing recorded is stale, nothing listed is missing."""
    assert_every_exchange_recorded(SUITE)


def test_every_operation_has_a_transcript() -> None:
    spec = SUITE.spec()
    requests = [(r["request"]["method"].lower(), r["request"]["path"]) for r in map(load, GOLDEN_FILES)]
    missing = []
    for template, item in spec["paths"].items():
        pattern = template_regex(template)
        for method in (m for m in item if m in HTTP_METHODS):
            if not any(m == method and pattern.match(p) for m, p in requests):
                missing.append(f"{method.upper()} {template}")
    assert not missing, f"operations without a golden transcript: {missing}"


def test_stream_and_non_stream_agree() -> None:
    """Greedy decoding of the same request gives the same text whether it is streamed or not."""
    pairs = {"chat_completion_stream": "chat_completion", "completion_stream": "completion"}
    for streamed, plain in pairs.items():
        stream_response = load(SUITE.golden_path(streamed))["response"]
        body = load(SUITE.golden_path(plain))["response"]["body"]
        choice = body["choices"][0]
        text = choice["message"]["content"] if "message" in choice else choice["text"]
        assert stream_response["text"] == text
        final = [f for f in stream_response["frames"] if isinstance(f, dict)][-1]
        assert final["choices"][0]["finish_reason"] == choice["finish_reason"]
        assert final["usage"] == body["usage"]
    # The Responses API: the terminal event carries the same response object.
    streamed = load(SUITE.golden_path("responses_create_stream"))["response"]
    plain = load(SUITE.golden_path("responses_create"))["response"]["body"]
    final_response = streamed["frames"][-1]["response"]
    assert streamed["text"] == "".join(p["text"] for p in plain["output"][0]["content"])
    assert final_response == plain
