"""`superfluid conformance` against superfluid and the two peers the scheduler benchmark runs (llama.cpp's
llama-server and llama-cpp-python's server), all on the bundled SmolLM2-135M GGUF; the three tables side by
side.

Run: ``python -m benchmarks.conformance_peers [--build] [--llama-server PATH] [--record]``. ``--build`` builds
llama-server first (benchmarks/build_llama_server.sh, ~12 min on 2 cores); ``--llama-server`` uses a binary
built elsewhere. ``--record`` writes benchmarks/results/conformance_peers.txt and the table in
docs/conformance.md (between its ``peers`` markers). Not run by CI: it builds and installs the peers.
"""

from __future__ import annotations

import argparse
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path

from benchmarks import peers
from benchmarks.recording import record
from superfluid.conformance.suite import DIALECTS, Result, Target, run
from superfluid.engine.models.model_sources import DEFAULT_MODEL, resolve

DOC = Path(__file__).resolve().parents[1] / "docs" / "conformance.md"
BEGIN, END = "<!-- peers:begin -->", "<!-- peers:end -->"
MARK = {"pass": "pass", "fail": "**fail**", "not served": "not served"}


def suite(peer: peers.Peer) -> list[Result]:
    target = Target(peer.base_url, timeout_s=120)
    try:
        target.model = target.discover_model()  # as the command does: llama-server names its model by path
        return list(run(target, DIALECTS))
    finally:
        target.close()


def markdown(columns: dict[str, list[Result]]) -> str:
    names = list(columns)
    rows = ["| check | " + " | ".join(names) + " |", "| --- |" + " --- |" * len(names)]
    first = columns[names[0]]
    notes: list[str] = []
    for index, result in enumerate(first):
        cells = []
        for name in names:
            other = columns[name][index]
            cell = MARK[other.status]
            if other.status == "fail":
                notes.append(f"{name}, {other.dialect}/{other.name}: " + " ".join(other.detail.split())[:220])
                cell += f" [{len(notes)}]"
            cells.append(cell)
        rows.append(f"| {result.dialect}/{result.name} | " + " | ".join(cells) + " |")
    totals = []
    for name in names:
        statuses = [r.status for r in columns[name]]
        totals.append(f"{name}: {statuses.count('pass')} pass, {statuses.count('fail')} fail, "
                      f"{statuses.count('not served')} not served")
    lines = [*rows, "", "; ".join(totals) + ".", "", *[f"{i}. {note}" for i, note in enumerate(notes, 1)]]
    return "\n".join(lines).rstrip() + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", action="store_true")
    parser.add_argument("--llama-server", type=Path, default=peers.LLAMA_SERVER)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--record", action="store_true")
    args = parser.parse_args()
    if args.build:
        subprocess.run(["bash", str(Path(__file__).with_name("build_llama_server.sh"))], check=True)
    peers.LLAMA_SERVER = args.llama_server
    gguf = resolve(DEFAULT_MODEL).locate()
    logs = Path(tempfile.mkdtemp(prefix="conformance-peers-"))
    starters: dict[str, Callable[[], peers.Peer]] = {
        "superfluid": lambda: peers.superfluid(DEFAULT_MODEL, threads=args.threads, lanes=2, window=2048, logs=logs),
        "llama-server": lambda: peers.llama_server(gguf, threads=args.threads, lanes=2, window=2048, logs=logs),
        "llama-cpp-python": lambda: peers.llama_cpp_python(gguf, threads=args.threads, window=2048, logs=logs),
    }
    columns: dict[str, list[Result]] = {}
    for name, start in starters.items():
        peer = start()  # one at a time: the machine has two cores
        try:
            columns[name] = suite(peer)
        finally:
            peer.stop()
        print(f"{name}: done (logs in {logs})", flush=True)
    table = markdown(columns)
    print(table)
    if args.record:
        record("conformance_peers", f"model {gguf.name}; threads={args.threads}\n\n{table}")
        text = DOC.read_text(encoding="utf-8")
        head, _, rest = text.partition(BEGIN)
        _, _, tail = rest.partition(END)
        DOC.write_text(f"{head}{BEGIN}\n{table}{END}{tail}", encoding="utf-8")


if __name__ == "__main__":
    main()
