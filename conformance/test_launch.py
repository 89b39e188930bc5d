"""``superfluid launch`` against the real server, with stand-in programs on PATH that record what they were
given: the launcher's own work (finding the program, the server, the model; the environment and arguments; a
server started and stopped when none answered). Whether Claude Code, Codex and OpenCode themselves then work is
issue 33's, still open (docs/launch.md)."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from conformance.server import DEFAULT_MODEL, RunningServer, free_port
from superfluid.launch.agents import AGENT_LANES, AGENT_WINDOW

STAND_IN = """#!{python}
import json, os, sys, urllib.request
with open({out!r}, "w") as f:
    json.dump({{"argv": sys.argv[1:], "env": {{k: v for k, v in os.environ.items()
                                              if k.startswith(("ANTHROPIC", "CLAUDE", "SUPERFLUID", "OLLAMA"))}},
               "health": urllib.request.urlopen({base!r} + "/health").status,
               "slots": json.load(urllib.request.urlopen({base!r} + "/slots"))}}, f)
"""


def _stand_in(folder: Path, name: str, base: str) -> Path:
    """A program ``name`` that records its arguments, its environment, and the server's /health and /slots."""
    out = folder / f"{name}.json"
    program = folder / name
    program.write_text(STAND_IN.format(python=sys.executable, out=str(out), base=base))
    program.chmod(program.stat().st_mode | stat.S_IEXEC)
    return out


def _launch(args: list[str], folder: Path, *, only: bool = False) -> subprocess.CompletedProcess[str]:
    """``superfluid launch ARGS`` with ``folder`` first on PATH (``only``: nothing else on it)."""
    env = {**os.environ, "PATH": str(folder) if only else f"{folder}{os.pathsep}{os.environ['PATH']}"}
    env.pop("SUPERFLUID_API_KEY", None)
    return subprocess.run([sys.executable, "-m", "superfluid.cli", "launch", *args], capture_output=True,
                          text=True, env=env, timeout=600)


def test_launch_runs_the_program_against_the_running_server(server: RunningServer, tmp_path: Path) -> None:
    out = _stand_in(tmp_path, "claude", server.base_url)
    done = _launch(["claude", "--url", server.base_url, "--", "-p", "hello"], tmp_path)
    assert done.returncode == 0, done.stderr
    seen = json.loads(out.read_text())
    assert seen["argv"] == ["-p", "hello"] and seen["health"] == 200
    assert seen["env"]["ANTHROPIC_BASE_URL"] == server.base_url
    assert seen["env"]["ANTHROPIC_MODEL"] == DEFAULT_MODEL  # the first model the server lists


def test_launch_starts_a_server_when_none_answers_and_stops_it_after(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    out = _stand_in(tmp_path, "codex", url)
    done = _launch(["codex", "--url", url, "--model", DEFAULT_MODEL, "--", "exec", "hi"], tmp_path)
    assert done.returncode == 0, done.stderr
    seen = json.loads(out.read_text())
    assert seen["health"] == 200 and seen["argv"][-3:] == [DEFAULT_MODEL, "exec", "hi"]
    assert "no server at" in done.stderr
    # Sized for an agent: a 32,768-token window, told to Codex, and two lanes with KV cells of their own.
    assert f"model_context_window={AGENT_WINDOW}" in seen["argv"]
    (slots,) = seen["slots"]
    assert slots["n_ctx"] == AGENT_WINDOW and len(slots["lanes"]) == AGENT_LANES
    assert slots["kv_pool"]["size_tokens"] == AGENT_WINDOW * AGENT_LANES and not slots["kv_pool"]["unified"]
    with pytest.raises(httpx.HTTPError):
        httpx.get(url + "/health", timeout=2)  # stopped with the program


def test_a_missing_program_says_how_to_install_it(tmp_path: Path) -> None:
    done = _launch(["opencode", "--url", "http://127.0.0.1:9"], tmp_path, only=True)
    assert done.returncode == 2
    assert done.stderr.strip() == ("superfluid launch: 'opencode' is not on PATH; install it with: "
                                   "npm install -g opencode-ai")
    restore = _launch(["opencode", "--restore"], tmp_path)
    assert restore.returncode == 0 and "nothing to restore" in restore.stdout
