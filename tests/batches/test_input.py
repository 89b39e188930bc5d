"""Checking a batch input file: every error names its line; a clean file yields its requests in order."""

from __future__ import annotations

import json
from pathlib import Path

from superfluid.batches import input as batch_input


def _line(custom_id: str, url: str = "/v1/embeddings") -> str:
    return json.dumps({"custom_id": custom_id, "method": "POST", "url": url, "body": {"input": "x"}})


def test_a_clean_file_is_counted_and_read_back_in_order(tmp_path: Path) -> None:
    path = tmp_path / "in.jsonl"
    path.write_text(_line("a") + "\n\n" + _line("b", "/v1/chat/completions") + "\n")
    assert batch_input.validate(path) == (2, [])
    lines = list(batch_input.read_lines(path))
    assert [(line.index, line.custom_id, line.url) for line in lines] == [
        (0, "a", "/v1/embeddings"), (1, "b", "/v1/chat/completions")]


def test_each_error_names_its_line_code_and_param(tmp_path: Path) -> None:
    path = tmp_path / "in.jsonl"
    rows = [_line("a"), "{broken", "[1, 2]", json.dumps({"method": "POST"}), _line("a"),
            json.dumps({"custom_id": "m", "method": "GET", "url": "/v1/embeddings", "body": {}}),
            _line("u", "/v1/images/generations"),
            json.dumps({"custom_id": "nb", "method": "POST", "url": "/v1/embeddings", "body": "text"})]
    path.write_bytes(("\n".join(rows) + "\n").encode() + b"\xff\xfe\n")
    count, errors = batch_input.validate(path)
    assert count == 8
    assert [(e["line"], e["code"], e["param"]) for e in errors] == [
        (2, "invalid_json_line", None), (3, "invalid_json_line", None),
        (4, "missing_required_parameter", "custom_id"), (5, "duplicate_custom_id", "custom_id"),
        (6, "invalid_method", "method"), (7, "invalid_url", "url"), (8, "missing_required_parameter", "body"),
        (9, "invalid_json_line", None)]


def test_an_empty_file_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "in.jsonl"
    path.write_text("\n  \n")
    assert batch_input.validate(path) == (0, [{"code": "empty_file", "message": "the input file holds no requests",
                                              "param": None, "line": 1}])
