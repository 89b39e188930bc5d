"""A batch's input file: JSONL lines ``{"custom_id", "method", "url", "body"}``, checked whole before any runs.

``validate`` reads the file line by line (never whole in memory) and returns OpenAI's batch ``errors`` entries
(``code``, ``message``, ``param``, ``line``, lines counted from 1) for everything that makes the file unusable:
a line that is not a JSON object, a missing or repeated custom_id, a method other than POST, a url this server
does not batch, a body that is not an object, no lines at all, more lines than a batch may hold. A line whose
body is an object but a bad request (no messages, an unknown model) is not the file's fault: it runs, and its
400 goes to the error file like any other failed request.

Lines may name any of the batchable urls, not only the batch's ``endpoint`` (OpenAI refuses a mismatch; a mixed
file is useful here and costs nothing, since every line runs through its own route).
"""

from __future__ import annotations

import json
from collections.abc import Generator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ENDPOINTS = ("/v1/chat/completions", "/v1/completions", "/v1/embeddings", "/v1/responses", "/v1/messages")
MAX_LINES = 50_000
MAX_ERRORS = 100
"""Errors reported for one file; a file that bad is not worth listing in full."""


@dataclass(frozen=True)
class BatchLine:
    index: int
    """Position among the file's requests, from 0 (blank lines are not requests)."""
    custom_id: str
    url: str
    body: dict[str, Any]


def _error(code: str, message: str, line: int, param: str | None = None) -> dict[str, Any]:
    return {"code": code, "message": message, "param": param, "line": line}


def _check(text: str, number: int, seen: set[str]) -> dict[str, Any] | None:
    """The error of one non-blank line, or None."""
    try:
        item = json.loads(text)
    except ValueError as exc:
        return _error("invalid_json_line", f"line {number} is not valid JSON: {exc}", number)
    if not isinstance(item, dict):
        return _error("invalid_json_line", f"line {number} is not a JSON object", number)
    custom_id = item.get("custom_id")
    if not isinstance(custom_id, str) or not custom_id:
        return _error("missing_required_parameter", f"line {number} has no custom_id string", number, "custom_id")
    if custom_id in seen:
        return _error("duplicate_custom_id", f"line {number} repeats custom_id '{custom_id}'; each line needs its "
                      "own", number, "custom_id")
    seen.add(custom_id)
    if item.get("method") != "POST":
        return _error("invalid_method", f"line {number}: method must be POST", number, "method")
    if item.get("url") not in ENDPOINTS:
        return _error("invalid_url", f"line {number}: url must be one of {', '.join(ENDPOINTS)}", number, "url")
    if not isinstance(item.get("body"), dict):
        return _error("missing_required_parameter", f"line {number} has no body object", number, "body")
    return None


def validate(path: Path) -> tuple[int, list[dict[str, Any]]]:
    """(requests in the file, errors); the file is usable when the errors are empty."""
    errors: list[dict[str, Any]] = []
    seen: set[str] = set()
    count = 0
    with path.open("rb") as stream:
        for number, raw in enumerate(stream, start=1):
            try:
                text = raw.decode("utf-8").strip()
            except UnicodeDecodeError:
                errors.append(_error("invalid_json_line", f"line {number} is not UTF-8 text", number))
                continue
            if not text:
                continue
            count += 1
            error = _check(text, number, seen)
            if error is not None:
                errors.append(error)
            if count > MAX_LINES:
                errors.append(_error("too_many_requests", f"a batch holds at most {MAX_LINES} requests", number))
            if len(errors) >= MAX_ERRORS:
                break
    if count == 0 and not errors:
        errors.append(_error("empty_file", "the input file holds no requests", 1))
    return count, errors


def read_lines(path: Path) -> Generator[BatchLine, None, None]:
    """The requests of a file ``validate`` passed, in order."""
    index = 0
    with path.open("rb") as stream:
        for raw in stream:
            text = raw.decode("utf-8").strip()
            if not text:
                continue
            item = json.loads(text)
            yield BatchLine(index, str(item["custom_id"]), str(item["url"]), dict(item["body"]))
            index += 1
