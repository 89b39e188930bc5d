"""Where benchmarks write what they measured: benchmarks/results/NAME.txt, stamped with the time of the run."""

from __future__ import annotations

import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"


def record(name: str, report: str) -> Path:
    """Write ``report`` (a trailing newline is added) to results/``name``.txt under a UTC time stamp."""
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / f"{name}.txt"
    out.write_text(time.strftime("%Y-%m-%d %H:%M UTC\n", time.gmtime()) + report + "\n")
    return out
