"""conformance/suite.py and command.py: not served versus failed, the table, JUnit XML; over the real app with
fake services (a route the documents do not declare is absent, one they declare is served)."""

from __future__ import annotations

import io
from xml.etree import ElementTree

from starlette.testclient import TestClient

from superfluid.conformance.command import junit_xml, table
from superfluid.conformance.suite import Checks, Result, Target, run_check

CHECKS = Checks("demo")


@CHECKS.check("passes", "GET /health")
def passes(target: Target) -> None:
    """Health answers."""
    assert target.http.get("/health").status_code == 200


@CHECKS.check("fails", "GET /health")
def fails(target: Target) -> None:
    """A broken promise."""
    assert target.http.get("/health").status_code == 201, "health is not 201"


@CHECKS.check("absent", "POST /v1/no-such-route")
def absent(target: Target) -> None:
    """Needs a route nobody serves."""
    raise AssertionError("never runs")


def _target(client: TestClient) -> Target:
    target = Target("http://testserver", model="m")
    target._http = client
    return target


def test_statuses(fake_app: TestClient) -> None:
    target = _target(fake_app)
    results = {check.name: run_check(check, target) for check in CHECKS.items}
    assert results["passes"].status == "pass"
    assert results["fails"].status == "fail"
    assert results["fails"].detail.startswith("health is not 201")
    assert results["absent"].status == "not served"
    assert "POST /v1/no-such-route" in results["absent"].detail
    assert results["passes"].description == "Health answers."


def test_a_declared_route_answering_an_error_is_served(fake_app: TestClient) -> None:
    from superfluid.conformance.suite import Route

    assert _target(fake_app).serves(Route("POST", "/v1/chat/completions"))  # {} is a 400, not a 404


def test_table_and_junit() -> None:
    results = [Result("demo", "a", "A.", "pass"), Result("demo", "b", "B.", "fail", "broke"),
               Result("demo", "c", "C.", "not served", "POST /x not served")]
    out = io.StringIO()
    table(results, out)
    assert "demo: 1 pass, 1 fail, 1 not served" in out.getvalue()
    assert "FAIL" in out.getvalue() and "broke" in out.getvalue()
    root = ElementTree.fromstring(junit_xml(results, "http://x"))
    suite = root.find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == ("3", "1", "1")
    assert root.find("testsuite/testcase[@name='b']/failure") is not None
    assert root.find("testsuite/testcase[@name='c']/skipped") is not None
