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
``--server-flags`` says otherwise.

``--beside-llama-server`` runs each agent's session a second time, right after, against llama-server
(benchmarks/build_llama_server.sh builds it) on the same model file, window and lanes (4 x 32,768), every core,
``--jinja`` for tool calls, and its own prompt cache on (its default). SmolLM2 was trained at 8,192 tokens and
llama-server caps a slot at the training window, so it is told the model's window is 32,768
(``--override-kv llama.context_length=int:32768``), as superfluid serves what ``--ctx-size`` asks for. The agent
is pointed at it by the same ``superfluid launch --url``. Its figures come from its log (``-lv 4``): each task's
prompt tokens and cached tokens, and its prompt evaluation time where the task got that far, in place of the time
to first token (superfluid's is from the request's arrival to its first token, so it includes templating and
tokenizing too).

Run: ``python -m benchmarks.agent_sessions [--record] [--agents claude,codex,opencode] [--server-flags '...']
[--beside-llama-server] [--name NAME] [--logs DIR]``. Never part of the test suite.
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
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from conformance.agent_wire import agent_bin, node_on_path
from conformance.server import start_server, stop_server

from benchmarks import peers
from benchmarks.recording import record
from superfluid.engine.models.model_sources import resolve

MODEL = "smollm2-135m-instruct"
WINDOW = 32768
LANES = 4
"""superfluid's default --parallel; llama-server gets as many slots of the same window."""
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


Request = tuple[str, int, int, float | None]
"""(status, prompt tokens, cached tokens, time to first token in ms) of one request, as its server logged it."""


def _posts(text: str, path: str) -> list[Request]:
    """superfluid: each finished POST on ``path``, in order, from the access log."""
    out = []
    for line in text.splitlines():
        match = _ACCESS.search(line)
        if match and match.group(1).split("?")[0] == path:
            ttft = match.group(6)
            out.append((match.group(2), int(match.group(3)), int(match.group(4)),
                        float(ttft) if ttft != "-" else None))
    return out


_TASK_PROMPT = re.compile(r"task (\d+) \| new prompt, .*task\.n_tokens = (\d+)")
_TASK_CACHED = re.compile(r"task (\d+) \| cached n_tokens = (\d+)")
_TASK_PREFILL = re.compile(r"task (\d+) \| prompt eval time =\s+([\d.]+) ms")


def _tasks(text: str, path: str) -> list[Request]:
    """llama-server (-lv 4): each generation task, in order (its log names no path and no status: "-")."""
    order: list[str] = []
    prompt: dict[str, int] = {}
    cached: dict[str, int] = {}
    prefill: dict[str, float] = {}
    for line in text.splitlines():
        if match := _TASK_PROMPT.search(line):
            order.append(match.group(1))
            prompt[match.group(1)] = int(match.group(2))
        elif match := _TASK_CACHED.search(line):  # the first: a later one is a context checkpoint's
            cached.setdefault(match.group(1), int(match.group(2)))
        elif match := _TASK_PREFILL.search(line):
            prefill[match.group(1)] = float(match.group(2))
    return [("-", prompt[task], cached.get(task, 0), prefill.get(task)) for task in order]


@dataclass
class _Served:
    """One server an agent's session runs against."""
    name: str
    base_url: str
    log: Path
    requests: Callable[[str, str], list[Request]]
    stop: Callable[[], None]


def _superfluid(folder: Path, agent: str, flags: list[str]) -> _Served:
    running = start_server([MODEL, "--ctx-size", str(WINDOW), *flags], folder / f"{agent}.log")
    return _Served("superfluid", running.base_url, running.log_path, _posts, lambda: stop_server(running))


def _llama_server(folder: Path, agent: str) -> _Served:
    name = f"llama-server-{agent}"
    peer = peers.llama_server(resolve(MODEL).locate(), threads=len(os.sched_getaffinity(0)), lanes=LANES,
                              window=WINDOW, logs=folder, name=name,
                              extra=("--jinja", "--alias", MODEL, "-lv", "4",
                                     "--override-kv", f"llama.context_length=int:{WINDOW}"))
    return _Served("llama-server", peer.base_url, folder / f"{name}.log", _tasks, peer.stop)


def _turn(agent: str, argv: list[str], base_url: str, work: Path, bin_dir: Path) -> None:
    env = {**node_on_path(bin_dir), "HOME": str(work.parent / "home"), "PWD": str(work)}
    env.pop("SUPERFLUID_API_KEY", None)
    process = subprocess.Popen([sys.executable, "-m", "superfluid.cli", "launch", agent, "--url", base_url,
                                "--", *argv], cwd=work, env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        process.wait(TURN_S)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(20)
    time.sleep(1)  # the cut request's log line


def _session(agent: str, bin_dir: Path, folder: Path, start: Callable[[Path, str], _Served]) -> list[str]:
    served = start(folder, agent)
    work = folder / f"{agent}-{served.name}" / "work"
    (work.parent / "home").mkdir(parents=True)
    work.mkdir()
    (work / "notes.txt").write_text("hello\n")
    rows = []
    try:
        first, later = AGENTS[agent]
        seen = 0
        for turn, prompt in enumerate(PROMPTS, 1):
            _turn(agent, [a.replace("{}", prompt) for a in (first if turn == 1 else later)], served.base_url, work,
                  bin_dir)
            requests = served.requests(served.log.read_text(errors="replace"), PATHS[agent])
            mine, seen = requests[seen:], len(requests)
            label = f"{agent:9} {served.name:12} {turn}"
            if not mine:
                rows.append(f"{label}  no request finished")
                continue
            status, prompt_tokens, cached, ttft = mine[0]
            share = cached / prompt_tokens if prompt_tokens else 0.0
            total, total_cached = sum(p[1] for p in mine), sum(p[2] for p in mine)
            rows.append(f"{label}  {prompt_tokens:6} {cached:6} {share:6.1%}  "
                        f"{(f'{ttft / 1000:7.2f}' if ttft is not None else '      -'):>7}  {status:>6}   "
                        f"{len(mine):3} {total_cached / total if total else 0:6.1%}")
    finally:
        served.stop()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--record", action="store_true")
    parser.add_argument("--agents", default=",".join(AGENTS))
    parser.add_argument("--server-flags", default="", help="more flags for serve (e.g. '--kv-disk-bytes 0' for "
                        "the prefix cache in memory alone)")
    parser.add_argument("--beside-llama-server", action="store_true",
                        help="run each session again against llama-server (same model, window and lanes)")
    parser.add_argument("--name", default="agent-sessions", help="the record's name in benchmarks/results")
    parser.add_argument("--logs", default="", help="keep the servers' logs in this folder (default: removed)")
    parser.add_argument("--note", default="", help="a line for the record")
    args = parser.parse_args()
    bin_dir = agent_bin()
    flags = f", {args.server_flags}" if args.server_flags else ", otherwise default flags (disk tier on)"
    lines = [f"model {MODEL}, --ctx-size {WINDOW}{flags}, a cold server per agent; each turn cut after {TURN_S} s"]
    if args.beside_llama_server:
        lines.append(f"llama-server: same model file, -np {LANES} -c {LANES * WINDOW}, -t every core, --jinja, its "
                     f"prompt cache on (default), --override-kv llama.context_length=int:{WINDOW} (it caps a slot at "
                     "the training window, 8,192); its 'ttft s' is its prompt evaluation time, its log names no "
                     "status ('-')")
    lines += ["", "agent     server       turn  prompt cached  share  ttft s  status  reqs  cached over the turn's "
              "requests"]
    starts: list[Callable[[Path, str], _Served]] = [lambda folder, agent: _superfluid(folder, agent,
                                                                                      args.server_flags.split())]
    if args.beside_llama_server:
        starts.append(_llama_server)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(args.logs or tmp)
        folder.mkdir(parents=True, exist_ok=True)
        for agent in args.agents.split(","):
            for start in starts:
                lines += _session(agent, bin_dir, folder, start)
                print("\n".join(lines[-5:]), flush=True)
    if args.note:
        lines.append(f"note: {args.note}")
    report = "\n".join(lines)
    print(report)
    if args.record:
        print(record(args.name, report))


if __name__ == "__main__":
    main()
