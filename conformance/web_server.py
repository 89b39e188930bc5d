"""A real server with the web listener (--web), for the session API and chat page tests."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from conformance.server import DEFAULT_MODEL, RunningServer, free_port, start_server

ANNOUNCE = re.compile(r"superfluid: web page at (http://\S+)#token=(\S+)")


@dataclass
class WebServer:
    api: RunningServer
    url: str
    """The web listener's own address, ending in /."""
    token: str

    @property
    def host(self) -> str:
        return self.url.removeprefix("http://").rstrip("/")

    def client(self, **kwargs: Any) -> httpx.Client:
        """An httpx client of the web listener that authenticates with the bearer token."""
        return httpx.Client(base_url=self.url, headers={"Authorization": f"Bearer {self.token}"}, timeout=120,
                            **kwargs)

    def rpc(self, method: str, **params: Any) -> Any:
        """The result of one call; AssertionError with the error object if it failed."""
        with self.client() as http:
            answer = http.post("/web/rpc", json={"jsonrpc": "2.0", "id": 1, "method": method,
                                                 "params": params}).json()
        assert "result" in answer, answer
        return answer["result"]


def start_web_server(base: Path, *, extra: tuple[str, ...] = (), models: tuple[str, ...] = (DEFAULT_MODEL,),
                     sessions: Path | None = None, log_name: str = "serve.log") -> WebServer:
    port = free_port()
    args = [*models, "--parallel", "2", "--ctx-size", "4096", "--threads", "1",
            "--web", f"127.0.0.1:{port}", "--sessions", str(sessions or base / "sessions"), *extra]
    api = start_server(args, base / log_name)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        found = ANNOUNCE.search(api.log_path.read_text(errors="replace"))
        if found:
            return WebServer(api, found.group(1), found.group(2))
        time.sleep(0.2)
    raise RuntimeError(f"the web listener's address was not printed:\n{api.log_tail()}")
