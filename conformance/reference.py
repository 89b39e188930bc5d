"""Validate superfluid's bodies against the published OpenAI and Ollama OpenAPI descriptions.

The descriptions live in ../shared/reference (relative to the project root), or where SUPERFLUID_REFERENCE_DIR
says (a git worktree has no ../shared). Under CI=true a missing folder fails the tests that need it; elsewhere
they skip with a visible reason.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

REFERENCE_DIR = Path(os.environ.get("SUPERFLUID_REFERENCE_DIR")
                     or Path(__file__).resolve().parents[1].parent / "shared" / "reference")
"""../shared/reference beside the checkout; SUPERFLUID_REFERENCE_DIR points elsewhere (a git worktree)."""


def _load(name: str) -> dict[str, Any]:
    path = REFERENCE_DIR / name
    if not path.is_file():
        message = f"reference description {path} is missing"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    with path.open() as fh:
        return dict(yaml.load(fh, Loader=loader))


def _nullable_to_type(node: Any) -> Any:
    """OpenAPI 3.0's ``nullable: true`` (still used inside these 3.1 documents) as JSON Schema's null type."""
    if isinstance(node, list):
        return [_nullable_to_type(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {k: _nullable_to_type(v) for k, v in node.items()}
    if out.pop("nullable", False):
        if "type" in out:
            kinds = out["type"] if isinstance(out["type"], list) else [out["type"]]
            out["type"] = [*kinds, "null"]
        if "enum" in out and None not in out["enum"]:
            out["enum"] = [*out["enum"], None]
        if "$ref" in out or "anyOf" in out or "oneOf" in out or "allOf" in out:
            out = {"anyOf": [out, {"type": "null"}]}
    return out


@functools.cache
def _document(name: str) -> dict[str, Any]:
    return dict(_nullable_to_type(_load(name)))


def validate(document: str, schema_name: str, instance: Any) -> None:
    """Raise jsonschema.ValidationError when ``instance`` does not match ``#/components/schemas/<name>``."""
    doc = _document(document)
    schema = {"$ref": f"#/components/schemas/{schema_name}", "components": doc["components"]}
    jsonschema.Draft202012Validator(schema).validate(instance)


def validate_openai(schema_name: str, instance: Any) -> None:
    validate("openai-openapi.yaml", schema_name, instance)


def validate_ollama(schema_name: str, instance: Any) -> None:
    validate("ollama-openapi.yaml", schema_name, instance)
