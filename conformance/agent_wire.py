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


@functools.cache
def agent_bin() -> Path:
    """The folder holding the pinned agents' programs, installed from the npm registry on first use (into the
    user's cache, keyed by the pins, so later sessions reuse them)."""
    pins = "-".join(sorted(AGENT_PACKAGES.values())).replace("@", "").replace("/", "_")
    root = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "superfluid" / "agents" / pins
    folder = root / "node_modules" / ".bin"
    if all((folder / name).exists() for name in AGENT_PACKAGES):
        return folder
    debian.program("node", "nodejs")
    npm = debian.program("npm")
    root.mkdir(parents=True, exist_ok=True)
    done = subprocess.run([npm, "install", "--no-audit", "--no-fund", "--prefix", str(root),
                           *AGENT_PACKAGES.values()], capture_output=True, text=True, timeout=1200, check=False)
    if done.returncode != 0 or not all((folder / name).exists() for name in AGENT_PACKAGES):
        pytest.fail(f"could not install the agents from npm ({done.stderr.strip()[-500:]})")
    return folder


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
