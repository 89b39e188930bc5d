"""Where benchmarks write what they measured: benchmarks/results/NAME.txt, stamped with the time of the run."""

from __future__ import annotations

import os
import platform
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"


def record(name: str, report: str) -> Path:
    """Write ``report`` (a trailing newline is added) to results/``name``.txt under a UTC time stamp."""
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / f"{name}.txt"
    out.write_text(time.strftime("%Y-%m-%d %H:%M UTC\n", time.gmtime()) + report + "\n")
    return out


def _cpuinfo() -> dict[str, str]:
    """The first processor's fields in /proc/cpuinfo (empty where there is none)."""
    try:
        text = Path("/proc/cpuinfo").read_text().split("\n\n")[0]
    except OSError:
        return {}
    return {key.strip(): value.strip() for key, _, value in (line.partition(":") for line in text.splitlines())}


def cpu_kind() -> str:
    """A short name for the kind of processor, to keep each kind's records apart: vendor and widest kernels, e.g.
    ``intel-amx``, ``amd-avx512``, ``intel-avx2``."""
    info = _cpuinfo()
    vendor = {"GenuineIntel": "intel", "AuthenticAMD": "amd"}.get(info.get("vendor_id", ""), "other")
    flags = set(info.get("flags", "").split())
    widest = "amx" if "amx_tile" in flags else "avx512" if "avx512f" in flags else "avx2" if "avx2" in flags else "base"
    return f"{vendor}-{widest}"


def machine_line() -> str:
    """The processor as a record should name it: model, family and model numbers, its kind, and the kernels
    llama.cpp found (llama_print_system_info), so that records from different machines are never compared."""
    info = _cpuinfo()
    try:
        import llama_cpp

        found = llama_cpp.llama_print_system_info().decode()
        kernels = " ".join(part.split("=")[0].split(":")[-1].strip() for part in found.split("|")
                           if part.strip().endswith("= 1"))
    except (ImportError, AttributeError, OSError):
        kernels = "unknown"
    return (f"CPU {info.get('model name', platform.processor() or 'unknown')} ({info.get('vendor_id', '?')} family "
            f"{info.get('cpu family', '?')} model {info.get('model', '?')}), kind {cpu_kind()}; {topology()}; "
            f"llama.cpp kernels: {kernels}")


def topology() -> str:
    """How the CPUs this process may use share cores, and the first one's caches (from /sys): on a 2-vCPU VM,
    two hyperthreads of one core and two cores of their own decode differently."""
    cpus = sorted(os.sched_getaffinity(0))
    base = Path("/sys/devices/system/cpu")
    siblings = set()
    for cpu in cpus:
        try:
            siblings.add((base / f"cpu{cpu}" / "topology" / "thread_siblings_list").read_text().strip())
        except OSError:
            return "topology unknown"
    caches = []
    for index in sorted((base / f"cpu{cpus[0]}" / "cache").glob("index*")):
        try:
            level, kind, size = ((index / name).read_text().strip() for name in ("level", "type", "size"))
        except OSError:
            continue
        caches.append(f"L{level}{'d' if kind == 'Data' else 'i' if kind == 'Instruction' else ''} {size}")
    return f"{len(cpus)} CPUs on {len(siblings)} cores; " + (", ".join(caches) or "caches unknown")
