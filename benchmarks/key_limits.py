"""Load test of per-key limits: 64 concurrent clients over four keys for a few minutes.

The server runs the bundled model with a key policy of four keys: one with a concurrency limit, one with a
concurrency limit and a request rate, one with a rate only, and one without limits. Sixteen clients per key loop
over short chat requests (streaming and not, 2-12 tokens) with a little think time.

Verdicts are taken on the server's own clock: its JSON access log gives every request's key, arrival (end minus
duration) and end, to a fraction of a millisecond, so client-side delays on a busy machine do not blur them.

* Concurrency: a request is refused with ``concurrency_limit_exceeded`` exactly when ``max_concurrent`` of the
  key's admitted requests were in flight at its arrival, and admitted exactly when fewer were (a neighbour that
  ends within TOLERANCE_S of the arrival makes that request undecidable, and it is counted apart); never refused
  for a key without the limit.
* Rate: a token bucket with the key's rate and burst, replayed over the arrivals (keeping the range of levels the
  server's bucket may have had, TOLERANCE_S of refill either way), explains every ``rate_limit_exceeded`` refusal
  and every admission.
* Every request not refused is a 200 whose reply is whole (a stream ends in ``[DONE]`` with its token count).
* No lane leaked: at the end /slots shows every lane idle and nothing waiting, and /metrics no busy lane.
* Memory is flat: resident memory sampled every 5 s, the median of the last third against the first third.

Run: ``python -m benchmarks.key_limits [--seconds 180] [--record]``. Never part of the test suite.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import random
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
from conformance.server import free_port
from prometheus_client.parser import text_string_to_metric_families

from benchmarks import peers
from benchmarks.recording import record
from superfluid.engine.models.model_sources import DEFAULT_MODEL


@dataclass(frozen=True)
class KeySpec:
    id: str
    max_concurrent: int = 0
    rate_per_min: int = 0
    burst: int = 0

    @property
    def key(self) -> str:
        return f"bench-{self.id}-key"

    def policy(self) -> str:
        lines = ["[[keys]]", f'id = "{self.id}"', f'key = "{self.key}"']
        if self.max_concurrent:
            lines.append(f"max_concurrent = {self.max_concurrent}")
        if self.rate_per_min:
            lines += [f'rate = "{self.rate_per_min}/m"', f"burst = {self.burst}"]
        return "\n".join(lines)


KEYS = (KeySpec("steady", max_concurrent=4), KeySpec("tight", max_concurrent=2, rate_per_min=120, burst=4),
        KeySpec("bursty", rate_per_min=60, burst=5), KeySpec("free"))
CLIENTS_PER_KEY = 16
LANES = 4


@dataclass
class Attempt:
    key: str
    status: int = 0
    code: str | None = None
    whole: bool = False


@dataclass
class Run:
    attempts: list[Attempt] = field(default_factory=list)
    rss: list[tuple[float, int]] = field(default_factory=list)


async def _one(client: httpx.AsyncClient, spec: KeySpec, run: Run, rng: random.Random) -> None:
    tokens = rng.randint(2, 12)
    stream = rng.random() < 0.5
    body = {"model": DEFAULT_MODEL, "messages": [{"role": "user", "content": f"Count to {tokens}."}],
            "max_tokens": tokens, "ignore_eos": True, "temperature": 0, "stream": stream}
    attempt = Attempt(spec.id)
    run.attempts.append(attempt)
    async with client.stream("POST", "/v1/chat/completions", json=body,
                             headers={"Authorization": f"Bearer {spec.key}"}) as response:
        attempt.status = response.status_code
        raw = (await response.aread()).decode()
    if attempt.status == 429:
        attempt.code = json.loads(raw)["error"]["code"]
    elif attempt.status == 200 and stream:
        frames = [line[6:] for line in raw.splitlines() if line.startswith("data: ")]
        final = json.loads(frames[-2]) if len(frames) >= 2 else {}
        attempt.whole = frames[-1:] == ["[DONE]"] and final.get("usage", {}).get("completion_tokens") == tokens
    elif attempt.status == 200:
        attempt.whole = json.loads(raw)["usage"]["completion_tokens"] == tokens


async def _client_loop(base_url: str, spec: KeySpec, run: Run, until: float, seed: int) -> None:
    rng = random.Random(seed)
    async with httpx.AsyncClient(base_url=base_url, timeout=300) as client:
        while time.monotonic() < until:
            await _one(client, spec, run, rng)
            await asyncio.sleep(rng.uniform(0.0, 0.3))


async def _sample_memory(server: peers.Peer, run: Run, until: float) -> None:
    while time.monotonic() < until:
        run.rss.append((time.monotonic(), server.rss_bytes()))
        await asyncio.sleep(5)


async def _load(server: peers.Peer, seconds: float) -> Run:
    run = Run()
    until = time.monotonic() + seconds
    clients = [_client_loop(server.base_url, spec, run, until, seed=i * 100 + j)
               for i, spec in enumerate(KEYS) for j in range(CLIENTS_PER_KEY)]
    await asyncio.gather(_sample_memory(server, run, until), *clients)
    run.rss.append((time.monotonic(), server.rss_bytes()))
    return run


TOLERANCE_S = 0.001
"""Clock resolution of the verdicts: the access log's times are to the microsecond, durations to 0.1 ms."""


@dataclass(frozen=True)
class Seen:
    """One request as the server logged it."""

    arrival: float
    end: float
    status: int
    code: str | None

    @property
    def admitted(self) -> bool:
        """Past the key checks (it counted as in flight)."""
        return self.code not in ("rate_limit_exceeded", "concurrency_limit_exceeded")


def _server_view(log: Path) -> dict[str, list[Seen]]:
    """The chat requests of every key id, from the JSON access log, in order of arrival."""
    out: dict[str, list[Seen]] = {}
    for line in log.read_text().splitlines():
        if not line.startswith("{"):
            continue
        entry = json.loads(line)
        if entry.get("logger") != "superfluid.access" or entry.get("path") != "/v1/chat/completions":
            continue
        stamp = datetime.strptime(entry["time"], "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
        end = stamp.timestamp()
        out.setdefault(entry["key_id"], []).append(
            Seen(end - entry["duration_ms"] / 1000, end, entry["status"], entry["code"]))
    for seen in out.values():
        seen.sort(key=lambda r: r.arrival)
    return out


def _concurrency_verdicts(limit: int, seen: list[Seen]) -> tuple[int, int, int]:
    """(requests checked, wrong verdicts, undecidable within TOLERANCE_S) for a key's concurrency limit."""
    admitted = [r for r in seen if r.admitted]
    checked = wrong = undecided = 0
    for request in seen:
        if request.code == "rate_limit_exceeded":
            continue  # refused before the concurrency check
        others = [r for r in admitted if r is not request and r.arrival <= request.arrival < r.end]
        close = [r for r in admitted if r is not request
                 and (abs(r.end - request.arrival) <= TOLERANCE_S or abs(r.arrival - request.arrival) <= TOLERANCE_S)]
        refused = request.code == "concurrency_limit_exceeded"
        should = limit > 0 and len(others) >= limit
        checked += 1
        if refused != should:
            if close:
                undecided += 1
            else:
                wrong += 1
    return checked, wrong, undecided


def _rate_verdicts(spec: KeySpec, seen: list[Seen]) -> int:
    """Requests whose verdict no token bucket with the key's rate and burst could have given, replayed over the
    arrivals. The replay keeps the range of levels the server's bucket may have had (a refusal says it was below
    one token, an admission that it was at least one) and widens it by TOLERANCE_S of refill at every step; a
    verdict outside the range is wrong. After one, the range restarts from the server's side."""
    rate = spec.rate_per_min / 60
    slack = rate * TOLERANCE_S
    low = high = float(spec.burst)
    stamp = None
    wrong = 0
    for request in seen:
        if stamp is not None:
            gained = (request.arrival - stamp) * rate
            low, high = min(float(spec.burst), low + gained - slack), min(float(spec.burst), high + gained + slack)
        stamp = request.arrival
        if request.code == "rate_limit_exceeded":
            if low >= 1.0:
                wrong += 1
                low = 0.0
            high = min(high, 1.0)
        else:
            if high < 1.0:
                wrong += 1
                high = 1.0
            low, high = max(low, 1.0) - 1.0, high - 1.0
        low = max(low, 0.0)
    return wrong


def _checks(run: Run, view: dict[str, list[Seen]], slots: list[dict[str, Any]],
            busy_lanes: float) -> list[tuple[str, bool, str]]:
    out = []
    for spec in KEYS:
        seen = view.get(spec.id, [])
        checked, wrong, undecided = _concurrency_verdicts(spec.max_concurrent, seen)
        refusals = sum(r.code == "concurrency_limit_exceeded" for r in seen)
        limit = f"{spec.max_concurrent} in flight" if spec.max_concurrent else "no limit"
        out.append((f"{spec.id}: concurrency refusals exactly at the limit ({limit})", wrong == 0,
                    f"{checked} checked, {refusals} refused, {wrong} wrong, {undecided} within {TOLERANCE_S:g} s"))
        if spec.rate_per_min:
            wrong = _rate_verdicts(spec, seen)
            refusals = sum(r.code == "rate_limit_exceeded" for r in seen)
            out.append((f"{spec.id}: rate refusals exactly where the bucket says ({spec.rate_per_min}/m, burst "
                        f"{spec.burst})", wrong == 0, f"{len(seen)} checked, {refusals} refused, {wrong} wrong"))
        else:
            refusals = sum(r.code == "rate_limit_exceeded" for r in seen)
            out.append((f"{spec.id}: no rate refusals (no limit)", refusals == 0, f"{refusals} refusals"))
        mine = [a for a in run.attempts if a.key == spec.id]
        served = [a for a in mine if a.status != 429]
        broken = [a for a in served if a.status != 200 or not a.whole]
        out.append((f"{spec.id}: every request not refused is a whole 200", not broken,
                    f"{len(served)} served, {len(broken)} not"))
        out.append((f"{spec.id}: the server logged every request the clients sent", len(seen) == len(mine),
                    f"{len(mine)} sent, {len(seen)} logged"))
    entry = slots[0]
    idle = all(lane["state"] == "idle" for lane in entry["lanes"]) and entry["waiting"] == 0
    out.append(("no lane leaked (/slots idle, nothing waiting)", idle,
                f"{sum(lane['state'] != 'idle' for lane in entry['lanes'])} busy, {entry['waiting']} waiting"))
    out.append(("no lane leaked (/metrics superfluid_lanes_busy)", busy_lanes == 0, f"{busy_lanes:g}"))
    return out


def _busy_lanes(text: str) -> float:
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == "superfluid_lanes_busy":
                return float(sample.value)
    return float("nan")


def _report(run: Run, seconds: float, threads: int, checks: list[tuple[str, bool, str]]) -> str:
    lines = [f"machine: {platform.machine()}, {platform.processor() or 'cpu'}, shared with other work "
             "(other helpers' servers and tests ran at the same time); timings are skewed, verdicts are not",
             f"load: {len(KEYS) * CLIENTS_PER_KEY} clients ({CLIENTS_PER_KEY} per key) for {seconds:.0f} s, "
             f"--parallel {LANES} --threads {threads}, bundled {DEFAULT_MODEL}", "",
             f"{'key':<8}{'limits':<26}{'requests':>9}{'200':>7}{'429 conc':>10}{'429 rate':>10}{'other':>7}"]
    for spec in KEYS:
        mine = [a for a in run.attempts if a.key == spec.id]
        limits = []
        if spec.max_concurrent:
            limits.append(f"{spec.max_concurrent} in flight")
        if spec.rate_per_min:
            limits.append(f"{spec.rate_per_min}/m burst {spec.burst}")
        lines.append(f"{spec.id:<8}{', '.join(limits) or 'none':<26}{len(mine):>9}"
                     f"{sum(a.status == 200 for a in mine):>7}"
                     f"{sum(a.code == 'concurrency_limit_exceeded' for a in mine):>10}"
                     f"{sum(a.code == 'rate_limit_exceeded' for a in mine):>10}"
                     f"{sum(a.status not in (200, 429) for a in mine):>7}")
    rss = [r for _, r in run.rss]
    third = max(1, len(rss) // 3)
    first, last = statistics.median(rss[:third]), statistics.median(rss[-third:])
    growth = (last - first) / first
    checks = [*checks, ("memory flat (last third vs first third of RSS samples, within 5%)", growth <= 0.05,
                        f"{first / 2**20:.0f} MB -> {last / 2**20:.0f} MB ({growth:+.1%})")]
    lines += ["", "RSS MB every 5 s: " + " ".join(f"{r / 2**20:.0f}" for r in rss), ""]
    lines += [f"{'PASS' if ok else 'FAIL'}  {name}: {detail}" for name, ok, detail in checks]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=180.0)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--record", action="store_true", help="write benchmarks/results/key_limits.txt")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        logs = Path(tmp)
        (logs / "policy.toml").write_text("\n\n".join(spec.policy() for spec in KEYS) + "\n")
        port = free_port()
        cmd = [sys.executable, "-m", "superfluid.cli", "serve", DEFAULT_MODEL, "--port", str(port),
               "--threads", str(args.threads), "--parallel", str(LANES), "--key-policy", str(logs / "policy.toml"),
               "--log-format", "json"]
        server = peers.Peer("superfluid", f"http://127.0.0.1:{port}", peers._spawn(cmd, logs / "server.log"),
                            DEFAULT_MODEL)
        peers._wait(server, "/health")
        try:
            run = asyncio.run(_load(server, args.seconds))
            time.sleep(1.0)
            auth = {"Authorization": f"Bearer {KEYS[-1].key}"}
            slots = httpx.get(server.base_url + "/slots", headers=auth, timeout=30).json()
            busy = _busy_lanes(httpx.get(server.base_url + "/metrics", headers=auth, timeout=30).text)
        finally:
            server.stop()
        view = _server_view(logs / "server.log")
    report = _report(run, args.seconds, args.threads, _checks(run, view, slots, busy))
    print(report)
    if args.record:
        print(f"recorded in {record('key_limits', report)}")


if __name__ == "__main__":
    main()
