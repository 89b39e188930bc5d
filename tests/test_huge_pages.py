"""What --huge-pages decides for a process, from its environment, the kernel's mode and its C library."""

from __future__ import annotations

from pathlib import Path

import pytest

from superfluid import huge_pages
from superfluid.huge_pages import (
    RESTARTED,
    environment,
    kernel_mode,
    plan,
    relaunch_line,
    restart_environment,
    restore,
    tunable_value,
)

GLIBC = (2, 36)


def test_restarts_where_the_kernel_gives_huge_pages_on_request() -> None:
    decided = plan("auto", {}, mode="madvise", glibc=GLIBC, system="linux")
    assert decided.restart and "glibc.malloc.hugetlb=1" in decided.reason


@pytest.mark.parametrize(("setting", "environ", "mode", "glibc", "system", "reason"), [
    ("off", {}, "madvise", GLIBC, "linux", "off (--huge-pages off)"),
    ("auto", {"GLIBC_TUNABLES": "glibc.malloc.hugetlb=1"}, "madvise", GLIBC, "linux",
     "on for llama.cpp's buffers (GLIBC_TUNABLES=glibc.malloc.hugetlb=1)"),
    ("auto", {"GLIBC_TUNABLES": "glibc.malloc.hugetlb=0"}, "madvise", GLIBC, "linux",
     "off (GLIBC_TUNABLES=glibc.malloc.hugetlb=0)"),
    ("auto", {"GLIBC_TUNABLES": "glibc.malloc.hugetlb=1"}, "never", GLIBC, "linux",
     "as set (GLIBC_TUNABLES=glibc.malloc.hugetlb=1)"),
    ("auto", {"GLIBC_TUNABLES": "glibc.malloc.hugetlb=2"}, "madvise", GLIBC, "linux",
     "as set (GLIBC_TUNABLES=glibc.malloc.hugetlb=2)"),
    # The restarted copy never restarts again, even where a loader dropped the tunable from its environment.
    ("auto", {RESTARTED: "", "GLIBC_TUNABLES": "glibc.malloc.hugetlb=1"}, "madvise", GLIBC, "linux",
     "on for llama.cpp's buffers (restarted with glibc.malloc.hugetlb=1)"),
    ("auto", {RESTARTED: ""}, "madvise", GLIBC, "linux",
     "off: restarted with glibc.malloc.hugetlb=1, but the C library's loader dropped it"),
    ("auto", {}, "always", GLIBC, "linux", "on: the kernel gives every process huge pages (mode always)"),
    ("auto", {}, "never", GLIBC, "linux", "off: the kernel's transparent huge pages are never"),
    ("auto", {}, None, GLIBC, "linux", "off: the kernel's transparent huge pages are absent"),
    ("auto", {}, "madvise", (2, 34), "linux", "off: needs glibc 2.35 or later for glibc.malloc.hugetlb"),
    ("auto", {}, "madvise", None, "linux", "off: needs Linux with glibc"),
    ("auto", {}, None, None, "darwin", "off: needs Linux with glibc"),
])
def test_no_restart(setting: str, environ: dict[str, str], mode: str | None, glibc: tuple[int, ...] | None,
                    system: str, reason: str) -> None:
    assert plan(setting, environ, mode=mode, glibc=glibc, system=system) == huge_pages.Plan(False, reason)


def test_the_tunable_joins_the_others() -> None:
    assert environment({"PATH": "/bin"}) == {"PATH": "/bin", "GLIBC_TUNABLES": "glibc.malloc.hugetlb=1"}
    joined = environment({"GLIBC_TUNABLES": "glibc.malloc.arena_max=2"})["GLIBC_TUNABLES"]
    assert joined == "glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1"


def test_tunable_value_is_the_last_one_given() -> None:
    assert tunable_value("") is None
    assert tunable_value("glibc.malloc.arena_max=2") is None
    assert tunable_value("glibc.malloc.hugetlb=0:glibc.malloc.hugetlb=1") == "1"
    assert tunable_value("glibc.malloc.hugetlb=1:glibc.malloc.arena_max=2") == "1"


def test_kernel_mode(tmp_path: Path) -> None:
    enabled = tmp_path / "enabled"
    enabled.write_text("always [madvise] never\n")
    assert kernel_mode(enabled) == "madvise"
    enabled.write_text("[always] madvise never\n")
    assert kernel_mode(enabled) == "always"
    assert kernel_mode(tmp_path / "missing") is None


def test_the_restarted_copy_hands_the_operators_tunables_to_its_children() -> None:
    for given in ("", "glibc.malloc.arena_max=2"):
        environ = {"PATH": "/bin", **({"GLIBC_TUNABLES": given} if given else {})}
        copy = restart_environment(environ)
        assert copy[RESTARTED] == given and tunable_value(copy["GLIBC_TUNABLES"]) == "1"
        restore(copy)
        assert copy == environ
    untouched = {"GLIBC_TUNABLES": "glibc.malloc.hugetlb=1"}
    restore(untouched)  # not a restarted copy: nothing to put back
    assert untouched == {"GLIBC_TUNABLES": "glibc.malloc.hugetlb=1"}


def test_relaunch_keeps_the_launch_line(tmp_path: Path) -> None:
    python = "/venv/bin/python3"
    # python -X dev -m superfluid.cli serve ...: the flags and the module stay.
    line = [python, "-X", "dev", "-m", "superfluid.cli", "serve", "--port", "1"]
    assert relaunch_line(line, ["serve", "--port", "1"], python) == (python, line)
    # A console script is executed itself, as the shell did, so the process keeps its name.
    script = tmp_path / "superfluid"
    script.write_text("#!/venv/bin/python3\n")
    script.chmod(0o755)
    assert relaunch_line([python, str(script), "serve"], ["serve"], python) == (str(script), [str(script), "serve"])
    # A script that is not executable runs under the interpreter, as before.
    script.chmod(0o644)
    assert relaunch_line([python, str(script), "serve"], ["serve"], python) == (python, [python, str(script), "serve"])
