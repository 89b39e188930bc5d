"""``superfluid launch TOOL [--model ID] [--url URL] [--ctx-size N] [--api-key-file FILE] [--print] [--restore]
[-- ARGS...]``.

Finds the program on PATH (or says how to install it, exit 2), finds the server at ``--url`` (or starts
``superfluid serve`` there when none answers, sized for a coding agent, and stops it when the program ends),
picks the model (``--model``, else the first one the server lists), and runs the program pointed at it
(launch/agents.py). Arguments after ``--`` go to the program unchanged. ``--print`` shows what would run
instead of running it.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx

from superfluid.arguments import positive_int
from superfluid.launch.agents import AGENT_LANES, AGENT_WINDOW, AGENTS, Launch, Target

DEFAULT_URL = "http://127.0.0.1:8453"
START_TIMEOUT_S = 600.0


class LaunchError(Exception):
    """What stops the launch; the command prints it as one line and exits 2."""


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser("launch", help="run a coding agent (claude, codex, opencode) or the ollama "
                                                "command line against a superfluid server (docs/launch.md)")
    parser.add_argument("tool", choices=sorted(AGENTS), help="the program to run")
    parser.add_argument("--model", default=None, help="model id for every model slot the program has "
                                                      "(default: the first one the server lists)")
    parser.add_argument("--url", default=DEFAULT_URL, help=f"the server (default {DEFAULT_URL}); when none "
                                                           "answers there, superfluid serve is started on it")
    parser.add_argument("--ctx-size", type=positive_int, default=None, metavar="N",
                        help="context window of the server launch starts when none answers (default for claude, "
                             f"codex and opencode: {AGENT_WINDOW}, with KV cells of its own for each of "
                             f"{AGENT_LANES} lanes; for ollama: serve's own default)")
    parser.add_argument("--api-key-file", type=Path, default=None, metavar="FILE",
                        help="read the server's API key from this file (first line; default: "
                             "$SUPERFLUID_API_KEY, or none)")
    parser.add_argument("--print", dest="show", action="store_true",
                        help="print the environment and command instead of running them")
    parser.add_argument("--restore", action="store_true",
                        help="undo what launch set up (it writes no files, so there is nothing to undo)")
    parser.set_defaults(passed=[])  # what follows `--`, split off before parsing (cli.main)


def execute(args: argparse.Namespace) -> int:
    try:
        return _execute(args)
    except LaunchError as exc:
        print(f"superfluid launch: {exc}", file=sys.stderr)
        return 2


def _execute(args: argparse.Namespace) -> int:
    agent = AGENTS[args.tool]
    if args.restore:
        print("superfluid launch writes no files (only this run's environment and arguments): nothing to restore")
        return 0
    passed = list(args.passed)
    program = shutil.which(agent.program)
    if program is None and not args.show:
        raise LaunchError(f"'{agent.program}' is not on PATH; install it with: {agent.install}")
    url = args.url.rstrip("/")
    key = read_key(args.api_key_file)
    server = None
    if not _answers(url):
        if args.show:
            raise LaunchError(f"no superfluid server answers at {url}")
        server = start_server(url, args.model, agent.serve_arguments(args.ctx_size))
    try:
        model, window = pick_model(url, key, args.model)
        launch = agent.launch(Target(url, model, key, window), passed)
        argv = [program or agent.program, *launch.arguments, *passed]
        if args.show:
            print(describe(launch, argv))
            return 0
        environment = {**os.environ, **launch.environment}
        if server is None:
            os.execvpe(argv[0], argv, environment)  # the program takes this process over
        return subprocess.run(argv, env=environment, check=False).returncode
    finally:
        if server is not None:
            server.terminate()
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()


def read_key(path: Path | None) -> str | None:
    if path is None:
        return os.environ.get("SUPERFLUID_API_KEY") or None
    try:
        lines = [line.strip() for line in path.read_text().splitlines()]
    except OSError as exc:
        raise LaunchError(f"cannot read the key file: {exc}") from exc
    key = next((line for line in lines if line and not line.startswith("#")), None)
    if key is None:
        raise LaunchError(f"{path} holds no key")
    return key


def _answers(url: str) -> bool:
    try:
        return httpx.get(url + "/health", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def pick_model(url: str, key: str | None, wanted: str | None) -> tuple[str, int | None]:
    """The model to use (``wanted``, else the first one the server lists that generates text) and its context
    window as the server serves it, when the listing says."""
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    try:
        listed = httpx.get(url + "/v1/models", headers=headers, timeout=30)
    except httpx.HTTPError as exc:
        raise LaunchError(f"cannot list the models at {url}: {exc}") from exc
    if listed.status_code != 200:
        raise LaunchError(f"{url}/v1/models answered {listed.status_code}; give the key with --api-key-file")
    entries = [entry for entry in listed.json().get("data") or () if isinstance(entry, dict) and "id" in entry]
    chosen: dict[str, Any]
    if wanted is not None:
        chosen = next((entry for entry in entries if entry["id"] == wanted), {"id": wanted})
    else:
        generating = [entry for entry in entries
                      if ((entry.get("capabilities") or {}).get("workload") or {}).get("generation", True)]
        if not generating:
            raise LaunchError(f"{url} lists no model that generates text")
        chosen = generating[0]
    window = (chosen.get("meta") or {}).get("n_ctx")
    return str(chosen["id"]), int(window) if isinstance(window, int) and window > 0 else None


def start_server(url: str, model: str | None, extra: list[str]) -> subprocess.Popen[bytes]:
    """``superfluid serve`` on ``url``'s host and port (the model given, else the default) with ``extra``, once
    it answers."""
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 8453
    argv = [sys.executable, "-m", "superfluid.cli", "serve", *([model] if model else []), "--host", host,
            "--port", str(port), *extra]
    print(f"superfluid launch: no server at {url}; starting {shlex.join(argv[3:])}", file=sys.stderr)
    server = subprocess.Popen(argv)
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise LaunchError(f"superfluid serve exited with {server.returncode}")
        if _answers(url):
            return server
        time.sleep(0.5)
    server.kill()
    raise LaunchError(f"superfluid serve did not answer at {url} within {START_TIMEOUT_S:.0f} s")


def describe(launch: Launch, argv: list[str]) -> str:
    lines = [f"{name}={shlex.quote(value)}" for name, value in sorted(launch.environment.items())]
    return "\n".join([*lines, shlex.join(argv)])
