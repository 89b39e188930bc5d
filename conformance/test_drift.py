"""What is generated from the published descriptions is current: docs/drift.md (regenerate with
`python -m conformance.drift`) and the two extracts the tests read instead of the full descriptions: the schemas
`superfluid conformance` ships (regenerate with `python -m superfluid.conformance.published ../shared/reference`)
and the published request fields docs/drift.md is computed from (conformance/drift_published.json, refreshed by
`python -m conformance.drift`).

The extracts are compared with the full descriptions where those are beside the checkout (../shared/reference,
as on CI; under CI=true a missing folder fails). A clone with nothing beside it has nothing to compare them with:
there the comparison is not collected, and the extracts are checked for what they must hold on their own.
"""

from __future__ import annotations

import os
from typing import Any

from conformance.drift import (
    COUNTERPARTS,
    PUBLISHED_OPERATIONS,
    REPORT,
    extract,
    render_extract,
    report,
    shipped_extract,
)
from conformance.reference import REFERENCE_DIR
from superfluid.conformance.published import PUBLISHED_JSON, SOURCES, build, render, root_schemas, shipped


def test_drift_report_is_current() -> None:
    assert REPORT.read_text(encoding="utf-8") == report(), \
        "docs/drift.md is stale: run `python -m conformance.drift` and commit the result"


def _references(node: Any) -> set[str]:
    if isinstance(node, list):
        return set().union(*(_references(item) for item in node))
    if not isinstance(node, dict):
        return set()
    found = {node["$ref"]} if isinstance(node.get("$ref"), str) else set()
    return found.union(*(_references(value) for value in node.values()))


def test_shipped_schema_extract_is_whole() -> None:
    """Every schema the checks and tests name is in the extract, and every reference inside it resolves there."""
    published = shipped()
    assert sorted(published) == sorted(SOURCES)
    for dialect, (file_name, _) in SOURCES.items():
        schemas = published[dialect]["schemas"]
        assert published[dialect]["source"] == file_name
        assert set(root_schemas(dialect)) <= set(schemas), dialect
        dangling = {ref for ref in _references(schemas) if ref.removeprefix("#/components/schemas/") not in schemas}
        assert not dangling, f"{dialect}: {sorted(dangling)}"


def test_drift_extract_is_whole() -> None:
    """Each published document's operations are there, each with the request fields it declares."""
    published = shipped_extract()
    assert sorted(published) == sorted(COUNTERPARTS)
    for name, (file_name, _) in COUNTERPARTS.items():
        operations = published[name]["operations"]
        assert published[name]["source"] == file_name and operations, name
        assert all(key.split(" ", 1)[0] in ("GET", "PUT", "POST", "DELETE", "PATCH") for key in operations), name
        assert all(fields == sorted(set(fields)) for fields in operations.values()), name


def _comparable() -> bool:
    return REFERENCE_DIR.is_dir() or os.environ.get("CI") == "true"


if _comparable():
    def test_shipped_extracts_match_the_published_descriptions() -> None:
        assert REFERENCE_DIR.is_dir(), f"published descriptions {REFERENCE_DIR} are missing (CI=true needs them)"
        assert PUBLISHED_JSON.read_text(encoding="utf-8") == render(build(REFERENCE_DIR)), \
            "published.json is stale: run `python -m superfluid.conformance.published ../shared/reference`"
        assert PUBLISHED_OPERATIONS.read_text(encoding="utf-8") == render_extract(extract(REFERENCE_DIR)), \
            "conformance/drift_published.json is stale: run `python -m conformance.drift` and commit the result"
