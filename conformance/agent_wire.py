"""What a real coding agent and the real server say to each other: the pinned npm agents, installed when missing,
and a pass-through that keeps every exchange between them.

The pass-through forwards each request unchanged to the server and streams the answer back unchanged, keeping a
copy of both. Tests read the copies to prove what the agent did (a call the server wrote, executed by the agent
and sent back as a result) instead of trusting what the agent prints.
"""

from __future__ import annotations

import asyncio
import functools
import json
import os
import shutil
import subprocess
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp import web

from conformance import debian
from conformance.server import free_port

AGENT_PACKAGES = {
    "claude": "@anthropic-ai/claude-code@2.1.332",
    "codex": "@openai/codex@0.171.0",
    "opencode": "opencode-ai@1.18.33",
}
"""The agents the suite runs, pinned: the versions issue 33 was worked against."""

NATIVE_PROGRAMS = {
    "claude": "claude",
    "opencode": "bin/opencode",
}
"""Where the platform packages of these agents keep the native program, relative to the package's folder.

Claude Code's and OpenCode's packages are wrappers whose optional dependencies hold one native build per platform;
their post-install scripts only copy the build npm chose over a placeholder (OpenCode's, when its check of the
copy fails, runs a second npm install and the program itself with no time limit). The install skips those scripts
and links the first build that runs here, which is what they would have copied."""

INSTALL_TIMEOUT_S = 900
"""npm's part: downloads from the registry only (about 1 GiB unpacked; 30-45 s here, minutes on a slow link)."""

CHECK_TIMEOUT_S = 60


def _agents_root() -> Path:
    pins = "-".join(sorted(AGENT_PACKAGES.values())).replace("@", "").replace("/", "_")
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "superfluid" / "agents" / pins


@functools.cache
def agent_bin() -> Path:
    """The folder holding the pinned agents' programs, installed from the npm registry on first use (into the
    user's cache, keyed by the pins, so later runs reuse them). The install goes to a folder of its own that
    takes the cache's place only once every program is linked, so an interrupted one is never taken as done."""
    root = _agents_root()
    if all((root / "bin" / name).exists() for name in AGENT_PACKAGES):
        return root / "bin"
    debian.program("node", "nodejs")
    npm = debian.program("npm")
    staging = root.with_name(root.name + ".partial")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    _npm_install(npm, staging)
    _link_programs(staging)
    shutil.rmtree(root, ignore_errors=True)
    staging.rename(root)
    return root / "bin"


def _npm_install(npm: str, prefix: Path) -> None:
    """``npm install`` of the pinned packages into ``prefix``, without their scripts, logging each fetch with its
    time to ``prefix/npm-install.log``."""
    log = prefix / "npm-install.log"
    # ``--prefix`` also moves where npm looks for its global npmrc (to prefix/etc/npmrc), so the machine's own
    # settings (a registry mirror, the cafile of a proxy's certificate authority) would be lost; name it.
    found = subprocess.run([npm, "config", "get", "globalconfig"], capture_output=True, text=True, timeout=120,
                           check=False, stdin=subprocess.DEVNULL)
    globalconfig = found.stdout.strip() if found.returncode == 0 else ""
    command = [npm, "install", "--ignore-scripts", "--no-audit", "--no-fund", "--no-update-notifier",
               "--prefer-offline", "--loglevel=http", "--prefix", str(prefix),
               *(["--globalconfig", globalconfig] if globalconfig and Path(globalconfig).is_file() else []),
               *AGENT_PACKAGES.values()]
    with log.open("w", encoding="utf-8") as out:
        try:
            done = subprocess.run(command, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                  timeout=INSTALL_TIMEOUT_S, check=False)
        except subprocess.TimeoutExpired:
            pytest.fail(f"npm install of the agents ran past {INSTALL_TIMEOUT_S} s; its log, each fetch with its "
                        f"time, is {log}")
    if done.returncode != 0:
        tail = log.read_text(encoding="utf-8", errors="replace").strip()[-800:]
        pytest.fail(f"could not install the agents from npm (exit {done.returncode}; the log is {log}):\n{tail}")


def _link_programs(prefix: Path) -> None:
    """``prefix/bin``: a relative link for each agent, to its native build or to the script npm linked."""
    modules, bin_dir = prefix / "node_modules", prefix / "bin"
    bin_dir.mkdir()
    for name, pinned in AGENT_PACKAGES.items():
        inside = NATIVE_PROGRAMS.get(name)
        program = modules / ".bin" / name if inside is None else _native_build(modules, pinned, inside)
        if not program.exists():
            pytest.fail(f"npm installed {pinned} without its program {program}")
        (bin_dir / name).symlink_to(os.path.relpath(program, bin_dir))


def _native_build(modules: Path, pinned: str, inside: str) -> Path:
    """The program of the first of the wrapper's platform packages (in the wrapper's own order) that npm
    installed and that runs here."""
    package = pinned.rsplit("@", 1)[0]
    manifest = json.loads((modules / package / "package.json").read_text(encoding="utf-8"))
    platforms: list[str] = list(manifest.get("optionalDependencies", {}))
    installed = [modules / name / inside for name in platforms if (modules / name / inside).is_file()]
    for program in installed:
        if _runs(program):
            return program
    pytest.fail(f"none of the native builds of {pinned} that npm installed runs here: "
                f"{[str(program) for program in installed] or 'npm installed none'}")


def _runs(program: Path) -> bool:
    """Whether ``program --version`` succeeds (in a home of its own, so the check leaves no files behind)."""
    with tempfile.TemporaryDirectory(prefix="agent-check-") as home:
        try:
            done = subprocess.run([str(program), "--version"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL, env={**os.environ, "HOME": home},
                                  timeout=CHECK_TIMEOUT_S, check=False)
        except (OSError, subprocess.TimeoutExpired):  # another libc's build, another CPU's, or one that hangs
            return False
    return done.returncode == 0


@dataclass
class Exchange:
    method: str
    path: str
    request: Any
    status: int
    answer: str


@dataclass
class Wire:
    """A pass-through from ``url`` to the server, with the exchanges it carried."""

    upstream: str
    url: str = ""
    exchanges: list[Exchange] = field(default_factory=list)
    _loop: asyncio.AbstractEventLoop | None = None
    _runner: web.AppRunner | None = None

    def posts(self, path: str) -> list[Exchange]:
        return [e for e in self.exchanges if e.method == "POST" and e.path.split("?")[0] == path]

    def summary(self) -> str:
        """One line an exchange, for a failure message: what was asked and how it ended."""
        return "\n".join(f"{e.method} {e.path} {e.status} {len(json.dumps(e.request))}B -> ...{e.answer[-240:]!r}"
                         for e in self.exchanges)

    async def _forward(self, request: web.Request) -> web.StreamResponse:
        body = await request.read()
        headers = {k: v for k, v in request.headers.items() if k.lower() not in ("host", "content-length")}
        async with aiohttp.ClientSession(auto_decompress=False, timeout=aiohttp.ClientTimeout(total=None)) as s, \
                s.request(request.method, self.upstream + request.rel_url.path_qs, data=body,
                          headers=headers) as upstream:
            reply = web.StreamResponse(status=upstream.status, headers={
                k: v for k, v in upstream.headers.items()
                if k.lower() not in ("content-length", "transfer-encoding", "content-encoding")})
            await reply.prepare(request)
            answer = bytearray()
            try:
                async for chunk in upstream.content.iter_any():
                    answer += chunk
                    await reply.write(chunk)
            except ConnectionResetError:  # the agent was stopped mid-answer (aiohttp's error is one of these)
                pass
            finally:
                try:
                    parsed = json.loads(body) if body else None
                except ValueError:
                    parsed = body.decode(errors="replace")
                self.exchanges.append(Exchange(request.method, request.rel_url.path_qs, parsed, upstream.status,
                                               answer.decode(errors="replace")))
            return reply

    def start(self) -> Wire:
        port = free_port()
        ready = threading.Event()

        def serve() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            app = web.Application(client_max_size=256 * 2**20)
            app.router.add_route("*", "/{tail:.*}", self._forward)
            # An agent stopped mid-answer can leave a relayed stream open: stopping waits 2 s for it, then cuts it.
            self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=2.0)
            loop.run_until_complete(self._runner.setup())
            loop.run_until_complete(web.TCPSite(self._runner, "127.0.0.1", port).start())
            ready.set()
            loop.run_forever()

        threading.Thread(target=serve, name="agent-wire", daemon=True).start()
        ready.wait(10)
        self.url = f"http://127.0.0.1:{port}"
        return self

    def stop(self) -> None:
        if self._loop is not None and self._runner is not None:
            asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop).result(30)
            self._loop.call_soon_threadsafe(self._loop.stop)


def sse_data(answer: str) -> list[dict[str, Any]]:
    """The JSON payloads of an SSE answer, in order."""
    out = []
    for line in answer.splitlines():
        if line.startswith("data: ") and line[6:].strip() not in ("", "[DONE]"):
            try:
                out.append(json.loads(line[6:]))
            except ValueError:
                continue
    return out


def node_on_path(folder: Path) -> dict[str, str]:
    """An environment with the agents' folder and node first on PATH."""
    node = shutil.which("node") or debian.program("node", "nodejs")
    return {**os.environ, "PATH": os.pathsep.join([str(folder), str(Path(node).parent), os.environ["PATH"]])}
