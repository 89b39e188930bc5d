"""`superfluid conformance` against superfluid itself: the command's own code path (argument parsing, the
suite, the table, JUnit XML, JSON), run once against the session server; then one test item per check.

A check must pass when superfluid's documents declare every route it needs, and must be "not served" when
they do not (today: the anthropic dialect until openapi/ declares /v1/messages).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest

from superfluid.cli import main
from superfluid.conformance.suite import DIALECTS, Check, checks_of
from superfluid.http.documents import document_paths, load_document

SPEC_DIR = Path(__file__).resolve().parents[1] / "openapi"
ALL_CHECKS = [check for dialect in DIALECTS for check in checks_of(dialect)]


def _declared(method: str, path: str) -> bool:
    for spec in document_paths(SPEC_DIR):
        for template, item in load_document(spec).get("paths", {}).items():
            pattern = "^" + re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(template)) + "$"
            if method.lower() in item and re.match(pattern, path):
                return True
    return False


def _expected(check: Check, model: str) -> str:
    served = all(_declared(route.method, route.path.replace("{model}", model)) for route in check.routes)
    return "pass" if served else "not served"


@pytest.fixture(scope="module")
def run(base_url: str, model: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("conformance")
    status = main(["conformance", base_url, "--model", model, "--junit", str(out / "junit.xml"),
                   "--json", str(out / "results.json")])
    report = json.loads((out / "results.json").read_text())
    return {"status": status, "report": report, "junit": ElementTree.parse(out / "junit.xml").getroot()}


def test_exit_status_and_reports(run: dict[str, Any], model: str) -> None:
    results = run["report"]["results"]
    failed = [f"{r['dialect']}/{r['name']}: {r['detail']}" for r in results if r["status"] == "fail"]
    assert run["status"] == (1 if failed else 0), failed
    assert run["report"]["model"] == model
    assert len(results) == len(ALL_CHECKS)
    suites = run["junit"].findall("testsuite")
    assert [suite.get("name") for suite in suites] == list(DIALECTS)
    cases = run["junit"].findall("testsuite/testcase")
    assert len(cases) == len(ALL_CHECKS)
    assert int(run["junit"].find("testsuite").get("tests")) == len(checks_of(next(iter(DIALECTS))))
    assert sum(case.find("skipped") is not None for case in cases) == sum(r["status"] == "not served"
                                                                         for r in results)


@pytest.mark.parametrize("check", ALL_CHECKS, ids=lambda check: f"{check.dialect}/{check.name}")
def test_check(run: dict[str, Any], check: Check, model: str) -> None:
    result = next(r for r in run["report"]["results"] if (r["dialect"], r["name"]) == (check.dialect, check.name))
    assert result["status"] == _expected(check, model), result["detail"]


def test_unreachable_target_exits_2(tmp_path: Path) -> None:
    assert main(["conformance", "http://127.0.0.1:9", "--timeout", "2"]) == 2
