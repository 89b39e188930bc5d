"""Replay the Ollama golden transcripts in conformance/golden_ollama/ against the real server and compare exactly.

As in test_golden.py, each transcript is replayed twice: the second time the prompt is in the prefix cache,
which may change ``prompt_eval_cached_count``, never the greedy text. Re-record with
``python -m conformance.record_golden_ollama`` after a deliberate change, and review the diff.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest

from conformance.golden_harness import (
    Observed,
    assert_every_exchange_recorded,
    assert_replays_match,
    filled,
    load,
    template_regex,
)
from conformance.record_golden_ollama import SUITE
from conformance.reference import validate_ollama

GOLDEN_FILES = SUITE.golden_files()
RFC3339_UTC = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$")


def _records(observed: Observed) -> list[dict[str, Any]]:
    body = observed.raw_body
    if isinstance(body, list):
        return [r for r in body if isinstance(r, dict)]
    return [body] if isinstance(body, dict) and "done" in body else []


def _check_volatile_values(observed: Observed) -> None:
    """What normalization hides must still be well-formed in the live answer."""
    records = _records(observed)
    for record in records:
        assert RFC3339_UTC.match(record["created_at"]), record["created_at"]
    if records and records[-1].get("done_reason") in ("stop", "length"):
        final = records[-1]
        assert isinstance(final["total_duration"], int) and final["total_duration"] > 0
        assert 0 <= final["prompt_eval_cached_count"] <= final["prompt_eval_count"]
    for record in records:
        for entry in record.get("logprobs", []):
            assert entry["logprob"] <= 0
            assert all(alt["logprob"] <= 0 for alt in entry["top_logprobs"])
    if records and len(records) > 1:
        assert all(r["done"] is False for r in records[:-1]) and records[-1]["done"] is True
    body = observed.raw_body
    for model in body.get("models", []) if isinstance(body, dict) else []:
        if "size_vram" in model:  # /api/ps: every byte llama.cpp placed, of which those on GPUs
            assert isinstance(model["size"], int) and model["size"] > 0
            assert isinstance(model["size_vram"], int) and 0 <= model["size_vram"] <= model["size"]


def _check_warm(observed: Observed) -> None:
    records = _records(observed)
    if records and records[-1].get("done_reason") in ("stop", "length"):
        assert records[-1]["prompt_eval_cached_count"] > 0, "a repeated prompt is served from the prefix cache"


@pytest.mark.parametrize("path", GOLDEN_FILES, ids=lambda p: p.stem)
def test_replay_matches_golden(path: Path, http: httpx.Client) -> None:
    assert_replays_match(SUITE, http, path, _check_volatile_values, _check_warm)


def test_every_exchange_is_recorded() -> None:
    assert_every_exchange_recorded(SUITE)


def test_every_route_has_a_transcript() -> None:
    """Each path of the document has at least one transcript (the distribution routes share one answer, so
    one of them stands for all)."""
    spec = SUITE.spec()
    requests = [r["request"]["path"] for r in map(load, GOLDEN_FILES)]
    missing = [template for template, item in spec["paths"].items()
               if "distribution" not in json.dumps(item) and not any(template_regex(template).match(p)
                                                                     for p in requests)]
    assert not missing, f"paths without a golden transcript: {missing}"


def test_stream_and_non_stream_agree() -> None:
    pairs = {"chat_stream": "chat", "generate_stream": "generate", "chat_tools_stream": "chat_tools"}
    for streamed, plain in pairs.items():
        lines = load(SUITE.golden_path(streamed))["response"]["lines"]
        body = load(SUITE.golden_path(plain))["response"]["body"]
        text = body["message"]["content"] if "message" in body else body["response"]
        assert load(SUITE.golden_path(streamed))["response"]["text"] == text
        final = lines[-1]
        for key in ("done_reason", "prompt_eval_count", "eval_count"):
            assert final[key] == body[key], key
        if "message" in body:
            calls = [line["message"]["tool_calls"] for line in lines if "tool_calls" in line["message"]]
            assert calls == ([body["message"]["tool_calls"]] if "tool_calls" in body["message"] else [])


_PLACEHOLDER_VALUES = {"<duration>": 1, "<cached>": 0, "<logprob>": -1.0, "<bytes>": 1}
_REFERENCE_SCHEMAS = {  # path -> (schema of a whole reply, schema of one streamed line)
    "/api/chat": ("ChatResponse", "ChatStreamEvent"),
    "/api/generate": ("GenerateResponse", "GenerateStreamEvent"),
    "/api/tags": ("ListResponse", None),
    "/api/ps": ("PsResponse", None),
    "/api/show": ("ShowResponse", None),
    "/api/version": ("VersionResponse", None),
}


def _filled(value: Any) -> Any:
    """A recorded body with its numeric placeholders put back as numbers of the right type."""
    return filled(value, _PLACEHOLDER_VALUES)


@pytest.mark.parametrize("path", GOLDEN_FILES, ids=lambda p: p.stem)
def test_transcripts_match_ollamas_published_schemas(path: Path) -> None:
    recorded = load(path)
    response = recorded["response"]
    if response["status"] != 200:
        validate_ollama("ErrorResponse", response["body"])
        return
    whole, line = _REFERENCE_SCHEMAS.get(recorded["request"]["path"], (None, None))
    if "lines" in response:
        assert line is not None
        for record in _filled(response["lines"]):
            validate_ollama(line, record)
    elif whole is not None:
        validate_ollama(whole, _filled(response["body"]))
