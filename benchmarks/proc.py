"""CPU time read from /proc (Linux), the one figure the benchmarks compare that other load skews least."""

from __future__ import annotations

import os
from pathlib import Path


def cpu_seconds(pid: int, tid: int | None = None) -> float:
    """User + system CPU seconds of a process, all its threads together; or of its one thread ``tid``."""
    stat = Path(f"/proc/{pid}/stat") if tid is None else Path(f"/proc/{pid}/task/{tid}/stat")
    fields = stat.read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime (stat fields 14, 15)
