"""`superfluid conformance BASE_URL`: run the suite, print a table per dialect, write JUnit XML and JSON.

Exit status: 0 when no check failed (not served is not a failure), 1 when one did, 2 when the target could not
be reached or named no model.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO
from xml.etree import ElementTree

from superfluid.conformance.suite import DIALECTS, Result, Status, Target, run

MARKS: dict[Status, str] = {"pass": "pass", "fail": "FAIL", "not served": "not served"}


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser("conformance", help="run the compatibility suite against a server")
    parser.add_argument("base_url", metavar="BASE_URL", help="the server's root, e.g. http://127.0.0.1:8453")
    parser.add_argument("--dialect", choices=[*DIALECTS, "all"], default="all")
    parser.add_argument("--model", default=None, help="model id to use (default: the first one the server lists)")
    parser.add_argument("--api-key", default="unused", help="sent as Authorization: Bearer")
    parser.add_argument("--junit", type=Path, default=None, metavar="FILE", help="write JUnit XML here")
    parser.add_argument("--json", type=Path, default=None, metavar="FILE", help="write the results as JSON here")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per request")


def table(results: Sequence[Result], out: TextIO) -> None:
    """One table per dialect: check, result, and why for anything but a pass."""
    for dialect in dict.fromkeys(result.dialect for result in results):
        rows = [result for result in results if result.dialect == dialect]
        counts = Counter(result.status for result in rows)
        summary = ", ".join(f"{counts[status]} {status}" for status in MARKS if counts[status])
        print(f"\n{dialect}: {summary}", file=out)
        width = max(len(result.name) for result in rows)
        for result in rows:
            detail = "" if result.status == "pass" else "  " + " ".join(result.detail.split())[:160]
            print(f"  {result.name:<{width}}  {MARKS[result.status]:<10}{detail}", file=out)


def junit_xml(results: Sequence[Result], base_url: str) -> bytes:
    suites = ElementTree.Element("testsuites", name=f"superfluid conformance {base_url}")
    for dialect in dict.fromkeys(result.dialect for result in results):
        rows = [result for result in results if result.dialect == dialect]
        suite = ElementTree.SubElement(suites, "testsuite", name=dialect, tests=str(len(rows)),
                                       failures=str(sum(r.status == "fail" for r in rows)),
                                       skipped=str(sum(r.status == "not served" for r in rows)),
                                       time=f"{sum(r.seconds for r in rows):.3f}")
        for result in rows:
            case = ElementTree.SubElement(suite, "testcase", classname=f"conformance.{dialect}", name=result.name,
                                          time=f"{result.seconds:.3f}")
            if result.status == "fail":
                failure = ElementTree.SubElement(case, "failure", message=result.detail[:500])
                failure.text = f"{result.description}\n\n{result.detail}"
            elif result.status == "not served":
                ElementTree.SubElement(case, "skipped", message=result.detail)
    return bytes(ElementTree.tostring(suites, encoding="utf-8", xml_declaration=True))


def execute(args: argparse.Namespace, out: TextIO = sys.stdout) -> int:
    target = Target(args.base_url.rstrip("/"), api_key=args.api_key, timeout_s=args.timeout)
    try:
        target.model = args.model or target.discover_model()
    except RuntimeError as exc:
        print(f"superfluid conformance: {exc}", file=sys.stderr)
        return 2
    dialects = list(DIALECTS) if args.dialect == "all" else [args.dialect]
    started = time.monotonic()
    try:
        results = list(run(target, dialects))
    finally:
        target.close()
    print(f"superfluid conformance {target.base_url} (model {target.model}, "
          f"{time.monotonic() - started:.1f} s)", file=out)
    table(results, out)
    if args.junit is not None:
        args.junit.write_bytes(junit_xml(results, target.base_url))
    if args.json is not None:
        report = {"base_url": target.base_url, "model": target.model, "results": [r.as_dict() for r in results]}
        args.json.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return 1 if any(result.status == "fail" for result in results) else 0
