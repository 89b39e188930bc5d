"""Five-turn sessions of the real coding agents against a cold server: for each turn, how much of the prompt the
prefix cache served and the time to its first token.

Each agent (Claude Code, Codex, OpenCode, the pinned npm programs of conformance/agent_wire.py) gets a fresh
server on the bundled SmolLM2 with a 32,768-token window, and five prompts in one conversation through
``superfluid launch``: the first starts the session, the next four continue it (``claude -p --continue``,
``codex exec resume --last``, ``opencode run --continue``). A model this small loops on tools, so every turn is cut
after TURN_S seconds; what the next turn sends is still the whole conversation so far. The figures come from the
server's access log (prompt tokens, cached tokens, time to first token of each request); a turn's row is its
first request, the one carrying the new prompt, and the requests the agent made within the turn are summed beside
it.

The server runs on its default flags (the prefix cache's disk tier on, as users run it) unless
``--server-flags`` says otherwise. llama-server is not in this run yet (benchmarks/build_llama_server.sh builds
it); its comparison is left open in issue 33.

Run: ``python -m benchmarks.agent_sessions [--record] [--agents claude,codex,opencode] [--server-flags '...']
[--name NAME] [--logs DIR]``. Never part of the test suite.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from conformance.agent_wire import agent_bin, node_on_path
from conformance.server import RunningServer, start_server, stop_server

from benchmarks.recording import record

MODEL = "smollm2-135m-instruct"
WINDOW = 32768
TURN_S = 75
PROMPTS = ["Say hi.", "What is two plus two?", "Name a colour.", "Write one line about rivers.", "Say goodbye."]
AGENTS = {
    # (first turn, later turns): the arguments after `superfluid launch TOOL --`
    "claude": (["-p", "{}", "--max-turns", "1"], ["-p", "{}", "--continue", "--max-turns", "1"]),
    "codex": (["exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", "{}"],
              ["exec", "resume", "--last", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox",
               "{}"]),
    "opencode": (["run", "{}"], ["run", "--continue", "{}"]),
}
PATHS = {"claude": "/v1/messages", "codex": "/v1/responses", "opencode": "/v1/chat/completions"}
_ACCESS = re.compile(r"method=POST path=(\S+) status=(\d+) .*?prompt_tokens=(\d+) cached_tokens=(\d+) "
                     r"completion_tokens=(\d+) ttft_ms=(\S+)")


def _posts(log: Path, path: str) -> list[tuple[int, int, int, float | None]]:
    """(status, prompt tokens, cached tokens, ttft ms) of each finished POST on ``path``, in order."""
    out = []
    for line in log.read_text(errors="replace").splitlines():
        match = _ACCESS.search(line)
        if match and match.group(1).split("?")[0] == path:
            ttft = match.group(6)
            out.append((int(match.group(2)), int(match.group(3)), int(match.group(4)),
                        float(ttft) if ttft != "-" else None))
    return out


def _turn(agent: str, argv: list[str], server: RunningServer, work: Path, bin_dir: Path) -> None:
    env = {**node_on_path(bin_dir), "HOME": str(work.parent / "home"), "PWD": str(work)}
    env.pop("SUPERFLUID_API_KEY", None)
    process = subprocess.Popen([sys.executable, "-m", "superfluid.cli", "launch", agent, "--url", server.base_url,
                                "--", *argv], cwd=work, env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        process.wait(TURN_S)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(20)
    time.sleep(1)  # the cut request's log line


def _session(agent: str, bin_dir: Path, folder: Path, flags: list[str]) -> list[str]:
    work = folder / agent / "work"
    (work.parent / "home").mkdir(parents=True)
    work.mkdir()
    (work / "notes.txt").write_text("hello\n")
    server = start_server([MODEL, "--ctx-size", str(WINDOW), *flags], folder / f"{agent}.log")
    rows = []
    try:
        first, later = AGENTS[agent]
        seen = 0
        for turn, prompt in enumerate(PROMPTS, 1):
            _turn(agent, [a.replace("{}", prompt) for a in (first if turn == 1 else later)], server, work, bin_dir)
            posts = _posts(server.log_path, PATHS[agent])
            mine, seen = posts[seen:], len(posts)
            if not mine:
                rows.append(f"{agent:9} {turn}  no request finished")
                continue
            status, prompt_tokens, cached, ttft = mine[0]
            share = cached / prompt_tokens if prompt_tokens else 0.0
            total, total_cached = sum(p[1] for p in mine), sum(p[2] for p in mine)
            rows.append(f"{agent:9} {turn}  {prompt_tokens:6} {cached:6} {share:6.1%}  "
                        f"{(f'{ttft / 1000:7.2f}' if ttft is not None else '      -'):>7}  {status}   "
                        f"{len(mine):3} {total_cached / total if total else 0:6.1%}")
    finally:
        stop_server(server)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--record", action="store_true")
    parser.add_argument("--agents", default=",".join(AGENTS))
    parser.add_argument("--server-flags", default="", help="more flags for serve (e.g. '--kv-disk-bytes 0' for "
                        "the prefix cache in memory alone)")
    parser.add_argument("--name", default="agent-sessions", help="the record's name in benchmarks/results")
    parser.add_argument("--logs", default="", help="keep the servers' logs in this folder (default: removed)")
    args = parser.parse_args()
    bin_dir = agent_bin()
    flags = f", {args.server_flags}" if args.server_flags else ", otherwise default flags (disk tier on)"
    lines = [f"model {MODEL}, --ctx-size {WINDOW}{flags}, a cold server per agent; each turn cut after {TURN_S} s",
             "", "agent     turn  prompt cached  share  ttft s  status  reqs  cached over the turn's requests"]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(args.logs or tmp)
        folder.mkdir(parents=True, exist_ok=True)
        for agent in args.agents.split(","):
            lines += _session(agent, bin_dir, folder, args.server_flags.split())
            print("\n".join(lines[-5:]), flush=True)
    report = "\n".join(lines)
    print(report)
    if args.record:
        print(record(args.name, report))


if __name__ == "__main__":
    main()
