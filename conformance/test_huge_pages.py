"""Huge pages on the real server (src/superfluid/huge_pages.py).

``superfluid serve`` started from the command line, on a Linux whose kernel hands out transparent huge pages on
request (mode ``madvise``, the usual default) and a glibc that has the ``glibc.malloc.hugetlb`` tunable, replaces
itself with a copy that has the tunable set: the same process, llama.cpp's weights and KV cache on 2 MiB pages.
Elsewhere the log says why not. ``--huge-pages off`` keeps 4 KiB pages.
"""

from __future__ import annotations

import os
from pathlib import Path

import httpx

from conformance.server import DEFAULT_MODEL, RunningServer, start_server, stop_server
from superfluid import huge_pages

PLAN = huge_pages.plan("auto", os.environ, mode=huge_pages.kernel_mode(), glibc=huge_pages.glibc_version())
"""What a server started from this test process's environment decides."""
HUGE_MB = 16
"""Anonymous huge pages that show llama.cpp's buffers on them (the bundled model's weights alone are ~95 MB)."""


def _anon_huge_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        if line.startswith("AnonHugePages:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no AnonHugePages in smaps_rollup")


def _answer(server: RunningServer) -> None:
    reply = httpx.post(server.base_url + "/v1/chat/completions", timeout=120, json={
        "model": DEFAULT_MODEL, "max_tokens": 4, "messages": [{"role": "user", "content": "Hello"}]})
    assert reply.status_code == 200


def test_serve_restarts_itself_with_huge_pages_where_the_system_allows(server: RunningServer) -> None:
    _answer(server)
    log = server.log_path.read_text(errors="replace")
    if not PLAN.restart:  # this machine cannot (or its environment already decided): the log says which
        assert f"huge pages: {PLAN.reason}" in log
        return
    assert f"huge pages: on for llama.cpp's buffers (restarted with {huge_pages.TUNABLE}=1)" in log
    # The model's weights and its KV cache are tens of megabytes each; a 4 KiB-page process holds next to none.
    assert _anon_huge_mb(server.process.pid) >= HUGE_MB


def test_huge_pages_off(tmp_path: Path) -> None:
    off = start_server(["--huge-pages", "off", "--parallel", "1"], tmp_path / "serve.log")
    try:
        _answer(off)
        assert "huge pages: off (--huge-pages off)" in off.log_path.read_text(errors="replace")
        if PLAN.restart:
            assert _anon_huge_mb(off.process.pid) < HUGE_MB
    finally:
        stop_server(off)


def test_a_tunable_already_set_is_left_alone(tmp_path: Path) -> None:
    """An operator who set the tunable, to any value, keeps it: serve does not restart. (Checked in the log:
    /proc/PID/environ is no witness, as glibc's loader rewrites GLIBC_TUNABLES where the process started.)"""
    tunables = "glibc.malloc.arena_max=2:glibc.malloc.hugetlb=0"
    kept = start_server(["--parallel", "1"], tmp_path / "serve.log", env={"GLIBC_TUNABLES": tunables})
    try:
        _answer(kept)
        # Logged by the process that serves: had it restarted, it would say so.
        assert f"huge pages: off (GLIBC_TUNABLES={tunables})" in kept.log_path.read_text(errors="replace")
        if PLAN.restart:
            assert _anon_huge_mb(kept.process.pid) < HUGE_MB
    finally:
        stop_server(kept)
