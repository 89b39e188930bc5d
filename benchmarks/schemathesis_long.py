"""Long schemathesis runs outside CI: every openapi/*.yaml fuzzed against a fresh server, at least
``--requests`` generated requests per document (dialect), stateful links where the documents declare them.

Run: ``python -m benchmarks.schemathesis_long [--requests 10000] [--record]``. Passes when no response was a
5xx (a documented 501 aside) and none broke its document; ``--record`` writes
benchmarks/results/schemathesis_long.txt. The cases themselves are benchmarks/schemathesis_cases.py, run
through pytest once per document, with as many examples per operation as ``--requests`` needs (each round adds
examples until the count is reached).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from conformance.contract import Contract
from conformance.server import DEFAULT_MODEL, start_server, stop_server

from benchmarks.recording import record
from superfluid.http.documents import document_paths

ROOT = Path(__file__).resolve().parents[1]
CASES = Path(__file__).with_name("schemathesis_cases.py")


def fuzz(spec: Path, base_url: str, examples: int, scratch: Path) -> tuple[dict[str, int], int, str]:
    counts_path = scratch / f"{spec.stem}-{examples}.json"
    env = {**os.environ, "FUZZ_SPEC": str(spec), "FUZZ_BASE_URL": base_url, "FUZZ_EXAMPLES": str(examples),
           "FUZZ_COUNTS": str(counts_path)}
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(ROOT),
                          str(CASES)], env=env, cwd=ROOT, capture_output=True, text=True)
    counts = json.loads(counts_path.read_text()) if counts_path.exists() else {}
    tail = "\n".join((run.stdout + run.stderr).strip().splitlines()[-15:])
    return counts, run.returncode, tail


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=10_000, help="at least this many per document")
    parser.add_argument("--threads", type=int, default=0, help="llama.cpp threads for the server (0: all cores)")
    parser.add_argument("--only", nargs="*", default=None, metavar="NAME", help="only these documents (stems)")
    parser.add_argument("--record", action="store_true")
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="schemathesis-long-"))
    server = start_server([DEFAULT_MODEL, "--parallel", "4", "--threads", str(args.threads)], scratch / "serve.log")
    lines, failed = [], False
    try:
        for spec in document_paths(ROOT / "openapi"):
            if args.only is not None and spec.stem not in args.only:
                continue
            operations = sum(op.document == spec.stem for op in Contract(spec.parent).operations)
            examples = max(1, math.ceil(args.requests / operations))
            started, total, rounds, code = time.monotonic(), {"requests": 0}, 0, 0
            while total["requests"] < args.requests and code == 0:
                counts, code, tail = fuzz(spec, server.base_url, examples, scratch)
                for key, value in counts.items():
                    total[key] = total.get(key, 0) + value
                rounds += 1
                examples *= 2  # schemathesis may generate fewer distinct cases than asked; ask for more
            five_xx = total.get("5xx", 0) - total.get("status 501", 0)
            statuses = ", ".join(f"{k.split()[1]}x{v}" for k, v in sorted(total.items()) if k.startswith("status"))
            seconds = time.monotonic() - started
            line = (f"{spec.stem}: {total['requests']} requests in {rounds} round(s), {seconds:.0f} s; "
                    f"{total.get('events checked', 0)} bodies/events held to the document; statuses {statuses}; "
                    f"5xx other than 501: {five_xx}; pytest exit {code}")
            print(line, flush=True)
            lines.append(line)
            if code != 0 or five_xx:
                failed = True
                lines.append(tail)
                print(tail, flush=True)
    finally:
        stop_server(server)
    if args.record:
        record("schemathesis_long", f"--requests {args.requests} --threads {args.threads}; model {DEFAULT_MODEL}\n"
               + "\n".join(lines))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
