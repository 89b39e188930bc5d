"""How each program is pointed at a superfluid server: environment variables and command-line overrides only.

Nothing is written to the user's files, and no file at all: each program reads its settings from the
environment or from arguments that apply to this run alone (docs/launch.md says what each one sets and why).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Target:
    """Where the program is sent: the server's base URL (no trailing slash), the model id, the key if any."""

    url: str
    model: str
    key: str | None = None
    window: int | None = None
    """The model's context window as the server serves it, when known."""


@dataclass(frozen=True)
class Launch:
    """What to run: the program's arguments before the user's, and the environment it gets on top of ours."""

    program: str
    arguments: list[str] = field(default_factory=list)
    environment: dict[str, str] = field(default_factory=dict)


AGENT_WINDOW = 32_768
"""The context window of a server launch starts for a coding agent: its first prompt alone is 8-12k tokens
(docs/launch.md), so the usual 8,192 is refused from the first request."""
AGENT_LANES = 2
"""Lanes of that server: the agent's conversation, and room for one more request (a subagent) beside it."""


@dataclass(frozen=True)
class Agent:
    name: str
    program: str
    install: str
    """How to install the program, said when it is not on PATH."""
    coding: bool = True
    """A coding agent, whose prompts need a long window (a server launch starts is sized for it)."""

    def serve_arguments(self, window: int | None) -> list[str]:
        """What a server that launch starts for this program is given besides the model, host and port: for a
        coding agent, a long window (``window``, else AGENT_WINDOW) and KV cells of its own for each lane. With
        one shared pool llama.cpp attends with flash attention, whose CPU kernel made warm turns over a long
        conversation take seconds (docs/launch.md); cells of its own per lane turn it off."""
        if not self.coding:
            return [] if window is None else ["--ctx-size", str(window)]
        window = window or AGENT_WINDOW
        return ["--ctx-size", str(window), "--parallel", str(AGENT_LANES), "--kv-size", str(window * AGENT_LANES)]

    def launch(self, target: Target, passed: list[str]) -> Launch:
        return BUILDERS[self.name](self, target, passed)


CLAUDE_SUMMARY_BUFFER = 13_000
"""Tokens Claude Code keeps free below its window for a compaction summary, on top of the reply budget (constants
of Claude Code 2.1: its auto-compact threshold is window - min(reply budget, CLAUDE_REPLY_RESERVE_CAP) - this)."""
CLAUDE_REPLY_RESERVE_CAP = 20_000


def _claude(agent: Agent, target: Target, passed: list[str]) -> Launch:
    environment = {
        "ANTHROPIC_BASE_URL": target.url,
        # Sent as a bearer token; a placeholder when the server asks for no key (Claude Code needs one to start).
        "ANTHROPIC_AUTH_TOKEN": target.key or "superfluid",
        "ANTHROPIC_MODEL": target.model,
        # Every model slot: the main model, the small fast one, each family alias, and subagents.
        "ANTHROPIC_SMALL_FAST_MODEL": target.model,
        "ANTHROPIC_DEFAULT_HAIKU_MODEL": target.model,
        "ANTHROPIC_DEFAULT_SONNET_MODEL": target.model,
        "ANTHROPIC_DEFAULT_OPUS_MODEL": target.model,
        "CLAUDE_CODE_SUBAGENT_MODEL": target.model,
        # The per-conversation billing line Claude Code puts first in its system prompt changes the prompt's
        # opening and so defeats a prefix cache; off, the system prompt is the same from run to run.
        "CLAUDE_CODE_ATTRIBUTION_HEADER": "0",
        # No telemetry, error reports or update checks to hosts this machine may not reach.
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    }
    if target.window:
        # Claude Code does not know a local model's window and assumes a huge one; told it, it compacts the
        # conversation before the server would have to refuse it. It compacts once the prompt passes the window
        # less the reply budget (at most 20,000) less a fixed 13,000-token summary buffer, sized for 200,000-token
        # windows: on a 32,768 window with its default budget of 32,000 that is below its own first prompt (about
        # 12,200 tokens), so it compacted on the second turn and the rewritten conversation lost the cache. With a
        # quarter of the window for a reply (as OpenCode gets) and the buffer added to the window it is told, it
        # compacts when the prompt and a whole reply no longer fit the real window (docs/launch.md).
        reply = min(target.window // 4, CLAUDE_REPLY_RESERVE_CAP)
        environment["CLAUDE_CODE_MAX_OUTPUT_TOKENS"] = str(reply)
        environment["CLAUDE_CODE_MAX_CONTEXT_TOKENS"] = str(target.window + CLAUDE_SUMMARY_BUFFER)
    return Launch(agent.program, [], environment)


def _codex(agent: Agent, target: Target, passed: list[str]) -> Launch:
    provider = (f'{{ name = "superfluid", base_url = "{target.url}/v1", wire_api = "responses", '
                f'env_key = "SUPERFLUID_API_KEY" }}')
    arguments = ["-c", "model_provider=superfluid", "-c", f"model_providers.superfluid={provider}"]
    if target.window:  # Codex has no metadata for a local model; the window lets it compact in time
        arguments += ["-c", f"model_context_window={target.window}"]
    arguments += ["-m", target.model]
    return Launch(agent.program, arguments, {"SUPERFLUID_API_KEY": target.key or "superfluid"})


def _opencode(agent: Agent, target: Target, passed: list[str]) -> Launch:
    model = f"superfluid/{target.model}"
    config = {
        "$schema": "https://opencode.ai/config.json",
        "provider": {"superfluid": {
            "npm": "@ai-sdk/openai-compatible", "name": "superfluid",
            "options": {"baseURL": f"{target.url}/v1", "apiKey": target.key or "superfluid"},
            # temperature: the server honours it, and OpenCode sends its agents' temperature (and its own
            # per-model default) only to a model declared to take one; otherwise every reply is sampled at the
            # server's default whatever the agent's settings say.
            "models": {target.model: {"name": target.model, "temperature": True, **(
                {"limit": {"context": target.window, "output": target.window // 4}} if target.window else {})}},
        }},
        "model": model,
        "small_model": model,
    }
    return Launch(agent.program, [], {"OPENCODE_CONFIG_CONTENT": json.dumps(config)})


def _ollama(agent: Agent, target: Target, passed: list[str]) -> Launch:
    # The ollama command line speaks /api/* to OLLAMA_HOST; with nothing after --, it chats with the model.
    return Launch(agent.program, [] if passed else ["run", target.model], {"OLLAMA_HOST": target.url})


BUILDERS = {"claude": _claude, "codex": _codex, "opencode": _opencode, "ollama": _ollama}
AGENTS = {
    "claude": Agent("claude", "claude", "npm install -g @anthropic-ai/claude-code"),
    "codex": Agent("codex", "codex", "npm install -g @openai/codex"),
    "opencode": Agent("opencode", "opencode", "npm install -g opencode-ai"),
    "ollama": Agent("ollama", "ollama", "see https://ollama.com/download (only its command line is used)",
                    coding=False),
}
