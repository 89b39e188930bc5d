"""Validate superfluid's bodies against the published OpenAI and Ollama OpenAPI descriptions.

The tests hold bodies to the extract of those descriptions that ships with `superfluid conformance`
(src/superfluid/conformance/published.json), so a clone needs nothing beside it. The full descriptions live in
../shared/reference beside the checkout, or where SUPERFLUID_REFERENCE_DIR says (a git worktree has no ../shared);
where they are present, conformance/test_drift.py fails when the extract is stale, and
``python -m superfluid.conformance.published ../shared/reference`` refreshes it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from superfluid.conformance.published import validate

REFERENCE_DIR = Path(os.environ.get("SUPERFLUID_REFERENCE_DIR")
                     or Path(__file__).resolve().parents[1].parent / "shared" / "reference")
"""../shared/reference beside the checkout; SUPERFLUID_REFERENCE_DIR points elsewhere (a git worktree)."""


def validate_openai(schema_name: str, instance: Any) -> None:
    """Raise jsonschema.ValidationError when ``instance`` does not match OpenAI's schema ``schema_name``."""
    validate("openai", schema_name, instance)


def validate_ollama(schema_name: str, instance: Any) -> None:
    """Raise jsonschema.ValidationError when ``instance`` does not match Ollama's schema ``schema_name``."""
    validate("ollama", schema_name, instance)
