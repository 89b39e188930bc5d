"""Fleet sessions: do follow-up turns stay warm with default flags, more conversations than one replica's lanes
hold, and a replica killed mid-session? (issue 32)

Twelve conversations, each with its own ~800-token system prompt, are continued for four turns through a
2-replica fleet started with default serve flags (4 lanes, the model's window; one thread and one CPU per replica
on this 2-core machine), once with the prefix-aware router and once with Ray Serve's default (power of two
choices), in one run. Turns go round-robin over the conversations (turn 1 of all twelve, then turn 2 ...), one
request at a time. After turn 2 the replica that served conversation 0 is killed with SIGKILL; Ray Serve starts
another, and its conversations continue on whichever replica the router picks. The replicas share one sessions
directory, so one replica's prefix cache spills to a disk tier every replica reads (docs/fleet.md, "Warm across
replicas").

Counted on follow-up turns (2 to 4): the share served warm, meaning ``cached_tokens`` covers at least the
system prompt (the few tokens of chat-template preamble every prompt shares do not count), and where each warm
follow-up's cells came from: still in a lane, loaded back from the replica's RAM tier, or from a file of the disk
tier (``x-superfluid-warm-disk`` and ``x-superfluid-warm-from``); plus the p50 time to first token. "From RAM"
is a lane or the RAM tier. The follow-ups the kill touched (the first turn after it of the killed replica's
conversations) can only be warm from disk, since the RAM they were in died with the process: they are counted
apart. Targets with the prefix-aware router: >= 95% warm, and >= 90% of the follow-ups the kill did not touch
from RAM (issue 52).

Run: ``python -m benchmarks.fleet_sessions [--record]``. Needs the fleet extra (``pip install -e '.[fleet]'``).
"""

from __future__ import annotations

import argparse
import os
import platform
import signal
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from conformance.fleet_server import replica_pid, start_fleet, stop_fleet

from benchmarks.fleet import WORDS, stream_chat, system_prompt
from benchmarks.recording import record
from superfluid.engine.models.model_sources import DEFAULT_MODEL

CONVERSATIONS = 12
TURNS = 4
KILL_AFTER = 2
FLAGS = ["--replicas", "2", "--threads", "1", "--replica-cpus", "1"]


@dataclass
class Conversation:
    index: int
    messages: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.messages = [{"role": "system", "content": system_prompt(self.index, words=600)}]


@dataclass
class Turn:
    conversation: int
    turn: int
    prompt_tokens: int
    cached_tokens: int
    disk_tokens: int
    tier: str
    """``ram`` or ``disk`` when a tier gave the cells back, "" when they were still in a lane (or cold)."""
    ttft_s: float
    replica: str


def _turn(http: httpx.Client, conversation: Conversation, turn: int) -> Turn:
    conversation.messages.append({"role": "user", "content": f"Question {turn}: which rule names the "
                                                             f"{WORDS[(turn * 3 + conversation.index) % 20]}?"})
    body = {"model": DEFAULT_MODEL, "messages": conversation.messages, "max_tokens": 12, "temperature": 0,
            "stream": True, "stream_options": {"include_usage": True}}
    for attempt in range(20):  # right after the kill, Ray may still route to the dead replica: retry
        try:
            reply = stream_chat(http, body)
            break
        except httpx.HTTPError:
            if attempt == 19:
                raise
            time.sleep(3)
    conversation.messages.append({"role": "assistant", "content": reply.text})
    usage = reply.usage
    return Turn(conversation.index, turn, int(usage["prompt_tokens"]),
                int(usage["prompt_tokens_details"]["cached_tokens"]),
                int(reply.headers.get("x-superfluid-warm-disk", 0)), reply.headers.get("x-superfluid-warm-from", ""),
                reply.ttft_s,
                reply.headers.get("x-superfluid-replica", ""))


def run_router(router: str, work: Path) -> tuple[list[Turn], str]:
    fleet = start_fleet([DEFAULT_MODEL, *FLAGS, "--router", router, "--sessions", str(work / router)],
                        work / f"fleet-{router}.log", timeout_s=600)
    killed = ""
    try:
        with httpx.Client(base_url=fleet.base_url, timeout=900) as http:
            conversations = [Conversation(i) for i in range(CONVERSATIONS)]
            results: list[Turn] = []
            for turn in range(1, TURNS + 1):
                if turn == KILL_AFTER + 1:
                    killed = next(t.replica for t in results if t.conversation == 0 and t.turn == KILL_AFTER)
                    os.kill(replica_pid(killed), signal.SIGKILL)
                    time.sleep(2)
                for conversation in conversations:
                    results.append(_turn(http, conversation, turn))
                    print(f"  {router} turn {turn} conversation {conversation.index}: "
                          f"{results[-1].cached_tokens}/{results[-1].prompt_tokens} warm "
                          f"({results[-1].disk_tokens} from {results[-1].tier or 'no tier'}) on "
                          f"{results[-1].replica}", flush=True)
            return results, killed
    finally:
        stop_fleet(fleet)


def summary(router: str, results: list[Turn], killed: str) -> str:
    system = {t.conversation: t.prompt_tokens - 30 for t in results if t.turn == 1}
    later = [t for t in results if t.turn > 1]
    warm = [t for t in later if t.cached_tokens >= system[t.conversation]]
    where = {"lane": sum(t.disk_tokens == 0 for t in warm), "RAM tier": sum(t.tier == "ram" for t in warm),
             "disk": sum(t.tier == "disk" for t in warm)}
    before_kill = {t.conversation: t.replica for t in results if t.turn == KILL_AFTER}
    touched = [t for t in later if t.turn == KILL_AFTER + 1 and before_kill[t.conversation] == killed]
    untouched = [t for t in later if t not in touched]
    from_ram = [t for t in untouched if t.cached_tokens >= system[t.conversation] and t.tier != "disk"]
    after_kill = [t for t in later if t.turn > KILL_AFTER]
    warm_after = sum(t.cached_tokens >= system[t.conversation] for t in after_kill)
    ttft = statistics.median(t.ttft_s for t in later) * 1000
    first = statistics.median(t.ttft_s for t in results if t.turn == 1) * 1000
    per_replica: dict[str, int] = {}
    for t in results:
        if t.turn == 1:
            per_replica[t.replica] = per_replica.get(t.replica, 0) + 1
    return (f"{router:13s} follow-ups {len(later):3d}  warm {len(warm) / len(later):6.1%} "
            f"(lane {where['lane']}, RAM tier {where['RAM tier']}, disk {where['disk']})  "
            f"from RAM {len(from_ram)}/{len(untouched)} the kill did not touch ({len(from_ram) / len(untouched):.1%}), "
            f"{sum(t.tier == 'disk' for t in touched)}/{len(touched)} it touched from disk  "
            f"after the kill {warm_after}/{len(after_kill)} warm  "
            f"p50 TTFT {ttft:7.1f} ms  (first turns {first:7.1f} ms)  first turns per replica "
            f"{sorted(per_replica.values(), reverse=True)}  killed {killed[:12]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--record", action="store_true")
    args = parser.parse_args()
    lines = [f"fleet sessions: {CONVERSATIONS} conversations x {TURNS} turns, ~800-token system prompts, "
             f"2 replicas x 1 thread, default serve flags, replica of conversation 0 killed after turn {KILL_AFTER}",
             f"machine: {platform.machine()}, {os.cpu_count()} cores, load "
             f"{'/'.join(f'{x:.1f}' for x in os.getloadavg())}"]
    with tempfile.TemporaryDirectory() as tmp:
        for router in ("prefix", "power-of-two"):
            results, killed = run_router(router, Path(tmp))
            lines.append(summary(router, results, killed))
            print(lines[-1], flush=True)
    report = "\n".join(lines)
    print(report)
    if args.record:
        print(f"recorded in {record('fleet-sessions', report)}")


if __name__ == "__main__":
    main()
