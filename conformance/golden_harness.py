"""What the golden transcripts of both surfaces share: the exchange and transcript types, recording, loading and
replaying, and the recorder's command line.

A ``GoldenSuite`` names one surface's directory of transcripts, its OpenAPI document, its list of exchanges and
how one of its answers is read into a transcript (SSE frames for /v1/*, NDJSON lines for /api/*). The surfaces'
own modules, record_golden.py and record_golden_ollama.py, hold what differs: the exchanges and normalization.
"""

from __future__ import annotations

import argparse
import json
import re
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import yaml

from conformance.server import SERVER_ARGS, SERVER_ENV, start_server, stop_server

CONFORMANCE_DIR = Path(__file__).resolve().parent
SPEC_DIR = CONFORMANCE_DIR.parent / "openapi"
ALONE = {"x-superfluid-batch-invariant": "true"}
"""Sent with every recorded and replayed exchange: the reply is computed on the lane that ticks alone in a
context of its own, so its tokens do not depend on what else the server is doing or has cached. On a shared
lane they can: a prompt another test just sent is served from cached KV computed beside other lanes, and on
CPUs whose kernels sum in a different order for different batch shapes (AVX-512 builds) a greedy reply can
take another token at a near tie."""
HTTP_METHODS = ("get", "put", "post", "delete", "patch", "head", "options")


@dataclass(frozen=True)
class Exchange:
    """One request a transcript is recorded for."""

    name: str
    description: str
    method: str
    path: str
    body: dict[str, Any] | None = None
    query: dict[str, str] = field(default_factory=dict)

    @property
    def streams(self) -> bool:
        return bool(self.body and self.body.get("stream"))

    def request(self) -> dict[str, Any]:
        out: dict[str, Any] = {"method": self.method, "path": self.path}
        if self.query:
            out["query"] = dict(self.query)
        if self.body is not None:
            out["body"] = self.body
        return out

    @classmethod
    def from_transcript(cls, recorded: dict[str, Any]) -> Exchange:
        request = recorded["request"]
        return cls(recorded["name"], recorded["description"], request["method"], request["path"],
                   request.get("body"), dict(request.get("query") or {}))


@dataclass
class Observed:
    """A live answer, raw (for checks on volatile values) and normalized (for the transcript)."""

    status: int
    headers: httpx.Headers
    raw_body: Any
    """The decoded JSON body, the list of SSE frames or NDJSON records of a stream, or a plain-text reply."""
    transcript: dict[str, Any]


Reader = Callable[[httpx.Response, Exchange], tuple[Any, dict[str, Any]]]
"""Reads a response's body: its raw form, and the transcript entries (body, frames, lines, text) it gives."""


@dataclass(frozen=True)
class GoldenSuite:
    """The golden transcripts of one surface."""

    module: str
    """The recorder's module, as ``python -m`` runs it."""
    golden_dir: Path
    spec_path: Path
    exchanges: tuple[Exchange, ...]
    kept_headers: Callable[[httpx.Headers], dict[str, str]]
    read_body: Reader
    description: str
    """The recorder's one-line summary, for its --help."""

    def golden_path(self, name: str) -> Path:
        return self.golden_dir / f"{name}.json"

    def golden_files(self) -> list[Path]:
        return sorted(self.golden_dir.glob("*.json"))

    def spec(self) -> dict[str, Any]:
        with self.spec_path.open() as fh:
            return dict(yaml.safe_load(fh))

    def perform(self, client: httpx.Client, exchange: Exchange, *, alone: bool = True) -> Observed:
        """The exchange's request and what came back; ``alone``: on the batch-invariant lane (``ALONE``)."""
        response = client.request(exchange.method, exchange.path, params=exchange.query or None,
                                  json=exchange.body, headers=ALONE if alone else None)
        transcript: dict[str, Any] = {"status": response.status_code, "headers": self.kept_headers(response.headers)}
        raw, entries = self.read_body(response, exchange)
        transcript.update(entries)
        return Observed(response.status_code, response.headers, raw, transcript)

    def record(self, base_url: str, names: Sequence[str] = ()) -> list[Path]:
        unknown = set(names) - {e.name for e in self.exchanges}
        if unknown:
            raise SystemExit(f"unknown exchange(s): {', '.join(sorted(unknown))}")
        self.golden_dir.mkdir(exist_ok=True)
        written = []
        with httpx.Client(base_url=base_url, timeout=120) as client:
            for exchange in (e for e in self.exchanges if not names or e.name in names):
                observed = self.perform(client, exchange)
                text = json.dumps({"name": exchange.name, "description": exchange.description,
                                   "request": exchange.request(), "response": observed.transcript},
                                  indent=2, ensure_ascii=False)
                path = self.golden_path(exchange.name)
                path.write_text(text + "\n", encoding="utf-8")
                written.append(path)
        return written

    def main(self, argv: Sequence[str] | None = None) -> int:
        """The recorder's command line: record against ``--base-url``, or against a server started here."""
        parser = argparse.ArgumentParser(prog=f"python -m {self.module}", description=self.description)
        parser.add_argument("--base-url", help="a running server started as conformance/conftest.py starts it; "
                                               "without it, one is started and stopped here")
        parser.add_argument("names", nargs="*", help="record only these exchanges (default: all)")
        args = parser.parse_args(argv)
        if args.base_url:
            written = self.record(args.base_url, args.names)
        else:
            with tempfile.TemporaryDirectory() as tmp:
                server = start_server(SERVER_ARGS, Path(tmp) / "serve.log", env=SERVER_ENV)
                try:
                    written = self.record(server.base_url, args.names)
                finally:
                    stop_server(server)
        for path in written:
            print(path.relative_to(Path.cwd()) if path.is_relative_to(Path.cwd()) else path)
        return 0


# ---- replay -------------------------------------------------------------------------------------------------
def load(path: Path) -> dict[str, Any]:
    return dict(json.loads(path.read_text(encoding="utf-8")))


def template_regex(template: str) -> re.Pattern[str]:
    """A regex matching the concrete paths of an OpenAPI path template."""
    parts = re.split(r"(\{[^}]+\})", template)
    return re.compile("".join(".+" if p.startswith("{") else re.escape(p) for p in parts) + "$")


def assert_replays_match(suite: GoldenSuite, client: httpx.Client, path: Path,
                         check_volatile: Callable[[Observed], None],
                         check_warm: Callable[[Observed], None]) -> None:
    """Replay a transcript twice in a row (``ALONE``): both answers must equal the recording once normalized.
    Then send it twice on the shared lanes, where the prefix cache works: both must keep the recorded status,
    and ``check_warm`` looks at the second, whose prompt the server has just seen."""
    recorded = load(path)
    exchange = Exchange.from_transcript(recorded)
    for attempt in ("first", "second"):
        observed = suite.perform(client, exchange)
        check_volatile(observed)
        assert observed.transcript == recorded["response"], f"{attempt} replay of {path.name} differs"
    for attempt in ("first", "second"):
        observed = suite.perform(client, exchange, alone=False)
        check_volatile(observed)
        assert observed.status == recorded["response"]["status"], f"{attempt} shared-lane send of {path.name}"
        if attempt == "second":
            check_warm(observed)


def filled(value: Any, placeholders: dict[str, Any]) -> Any:
    """A recorded body with its placeholders put back as values of the right type (for schema checks)."""
    if isinstance(value, list):
        return [filled(item, placeholders) for item in value]
    if isinstance(value, dict):
        return {k: filled(v, placeholders) for k, v in value.items()}
    return placeholders.get(value, value) if isinstance(value, str) else value


def assert_every_exchange_recorded(suite: GoldenSuite) -> None:
    """The recorder's list and the files agree: nothing recorded is stale, nothing listed is missing."""
    assert sorted(p.stem for p in suite.golden_files()) == sorted(e.name for e in suite.exchanges)
    for exchange in suite.exchanges:
        recorded = load(suite.golden_path(exchange.name))
        assert recorded["request"] == exchange.request(), f"{exchange.name}: re-record after changing it"
