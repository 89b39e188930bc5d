"""Transparent huge pages for llama.cpp's buffers, by restarting ``superfluid serve`` with a glibc tunable.

llama.cpp allocates a model's weights (when it repacks them for its CPU kernels), each context's KV cache, its
compute buffers and its logits with ``posix_memalign``; glibc serves allocations that large from ``mmap``, on
4 KiB pages. Every decode walks all of them: ~100 MB of weights on the bundled model, and without flash attention
a V cache stored transposed, whose rows lie a whole KV stream apart (8 KiB with 4,096-cell streams, so every row
on a page of its own). On 4 KiB pages that is a TLB miss for nearly every row. Linux backs memory with 2 MiB pages
where a process asks for them (``madvise``, the usual kernel default) or everywhere (``always``); glibc 2.35 and
later ask for every chunk they ``mmap`` when the tunable ``glibc.malloc.hugetlb=1`` is set. Tunables are read once,
when the process starts, so ``superfluid serve`` started from the command line replaces itself (``exec``: the
same process id, launch line and descriptors) with a copy that has the tunable. The copy finds a marker in its
environment, so it never restarts again, and puts the operator's own ``GLIBC_TUNABLES`` back, so the processes it
starts (validation workers, probes) run as they would have. Measured on 2 cores: benchmarks/huge_pages.py,
docs/performance.md ("Huge pages").

``--huge-pages off`` keeps 4 KiB pages. Nothing is done where ``GLIBC_TUNABLES`` already names the tunable
(whatever its value: the operator's choice), where glibc is older or absent, or where the kernel's mode is
``always`` (already huge) or ``never``.
"""

from __future__ import annotations

import os
import platform
import sys
from collections.abc import Mapping, MutableMapping, Sequence
from dataclasses import dataclass
from pathlib import Path

TUNABLE = "glibc.malloc.hugetlb"
THP_ENABLED = Path("/sys/kernel/mm/transparent_hugepage/enabled")
MIN_GLIBC = (2, 35)
"""The first glibc with ``glibc.malloc.hugetlb``."""
HUGE_PAGES_CHOICES = ("auto", "off")
RESTARTED = "SUPERFLUID_HUGE_PAGES_RESTART"
"""Set in the restarted copy's environment, to the ``GLIBC_TUNABLES`` the operator gave (possibly empty)."""


@dataclass(frozen=True)
class Plan:
    """Whether to restart with the tunable, and why (a line for the log)."""

    restart: bool
    reason: str


def kernel_mode(path: Path = THP_ENABLED) -> str | None:
    """The kernel's transparent huge page mode (``always``, ``madvise`` or ``never``); None where it has none."""
    try:
        text = path.read_text()
    except OSError:
        return None
    start, end = text.find("["), text.find("]")
    return text[start + 1:end] if 0 <= start < end else None


def glibc_version() -> tuple[int, ...] | None:
    """This process's glibc version, or None under another C library."""
    library, version = platform.libc_ver()
    if library != "glibc" or not version:
        return None
    try:
        return tuple(int(part) for part in version.split("."))
    except ValueError:
        return None


def tunable_value(tunables: str) -> str | None:
    """The value ``GLIBC_TUNABLES`` gives ``glibc.malloc.hugetlb``, if any (glibc takes the last)."""
    values = [part.partition("=")[2] for part in tunables.split(":") if part.partition("=")[0] == TUNABLE]
    return values[-1] if values else None


def plan(setting: str, environ: Mapping[str, str], *, mode: str | None, glibc: tuple[int, ...] | None,
         system: str | None = None) -> Plan:
    """What ``--huge-pages`` ``setting`` asks of this process, given its environment, the kernel's mode and glibc."""
    system = sys.platform if system is None else system
    if RESTARTED in environ:  # the copy: never again, whatever it sees (a loader may have dropped the tunable)
        if tunable_value(environ.get("GLIBC_TUNABLES", "")) == "1":
            return Plan(False, f"on for llama.cpp's buffers (restarted with {TUNABLE}=1)")
        return Plan(False, f"off: restarted with {TUNABLE}=1, but the C library's loader dropped it")
    if setting == "off":
        return Plan(False, "off (--huge-pages off)")
    tunables = environ.get("GLIBC_TUNABLES", "")
    if not system.startswith("linux") or glibc is None:
        return Plan(False, "off: needs Linux with glibc")
    given = tunable_value(tunables)
    if given is not None:  # the operator's choice stands
        usable = glibc >= MIN_GLIBC and mode in ("madvise", "always")
        state = "off" if given == "0" else "on for llama.cpp's buffers" if given == "1" and usable else "as set"
        return Plan(False, f"{state} (GLIBC_TUNABLES={tunables})")
    if glibc < MIN_GLIBC:
        return Plan(False, f"off: needs glibc {'.'.join(map(str, MIN_GLIBC))} or later for {TUNABLE}")
    if mode == "always":
        return Plan(False, "on: the kernel gives every process huge pages (mode always)")
    if mode != "madvise":
        return Plan(False, f"off: the kernel's transparent huge pages are {mode or 'absent'}")
    return Plan(True, f"restarting with GLIBC_TUNABLES {TUNABLE}=1")


def environment(environ: Mapping[str, str]) -> dict[str, str]:
    """``environ`` with the tunable added to any others already set."""
    out = dict(environ)
    tunables = [part for part in out.get("GLIBC_TUNABLES", "").split(":") if part]
    out["GLIBC_TUNABLES"] = ":".join([*tunables, f"{TUNABLE}=1"])
    return out


def restart_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """The restarted copy's environment: the tunable added, and the marker holding what the operator gave."""
    return {**environment(environ), RESTARTED: environ.get("GLIBC_TUNABLES", "")}


def restore(environ: MutableMapping[str, str]) -> None:
    """In the restarted copy: the operator's ``GLIBC_TUNABLES`` back, and no marker, for the processes it starts."""
    if RESTARTED not in environ:
        return
    given = environ.pop(RESTARTED)
    if given:
        environ["GLIBC_TUNABLES"] = given
    else:
        environ.pop("GLIBC_TUNABLES", None)


def relaunch_line(orig_argv: Sequence[str], argv: Sequence[str], executable: str) -> tuple[str, list[str]]:
    """The program and arguments that start this process again with ``argv`` (the command's own arguments, the
    tail of ``orig_argv``): the same interpreter flags, and the same script or ``-m`` module (``sys.path`` as
    it was). A console script is executed itself, as its launcher did, so the process keeps its name."""
    prefix = list(orig_argv[:len(orig_argv) - len(argv)]) or [executable]
    if len(prefix) == 2 and not prefix[1].startswith("-") and os.access(prefix[1], os.X_OK) and _has_shebang(
            prefix[1]):
        return prefix[1], [prefix[1], *argv]
    return executable, [*prefix, *argv]


def _has_shebang(path: str) -> bool:
    try:
        with open(path, "rb") as script:
            return script.read(2) == b"#!"
    except OSError:
        return False
