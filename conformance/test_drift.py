"""What is generated from the published descriptions is current: docs/drift.md (regenerate with
`python -m conformance.drift`) and the schema extract `superfluid conformance` ships (regenerate with
`python -m superfluid.conformance.published ../shared/reference`)."""

from __future__ import annotations

import os

import pytest

from conformance.drift import REFERENCE_DIR, REPORT, report
from superfluid.conformance.published import PUBLISHED_JSON, build, render


@pytest.fixture(autouse=True)
def _references() -> None:
    if not REFERENCE_DIR.is_dir():
        message = f"published descriptions {REFERENCE_DIR} are missing"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)


def test_drift_report_is_current() -> None:
    assert REPORT.read_text(encoding="utf-8") == report(), \
        "docs/drift.md is stale: run `python -m conformance.drift` and commit the result"


def test_shipped_schema_extract_is_current() -> None:
    assert PUBLISHED_JSON.read_text(encoding="utf-8") == render(build(REFERENCE_DIR)), \
        "published.json is stale: run `python -m superfluid.conformance.published ../shared/reference`"
