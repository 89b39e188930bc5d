"""How launch points each program at the server: every model slot, the key, the cache-friendly switches."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from superfluid.cli import _parser
from superfluid.launch.agents import AGENTS, Target
from superfluid.launch.command import LaunchError, read_key

TARGET = Target("http://127.0.0.1:8453", "gemma3-270m", "sk-local")


def test_claude_gets_every_model_slot_the_key_and_a_stable_system_prompt() -> None:
    launch = AGENTS["claude"].launch(TARGET, ["-p", "hi"])
    env = launch.environment
    assert env["ANTHROPIC_BASE_URL"] == "http://127.0.0.1:8453" and env["ANTHROPIC_AUTH_TOKEN"] == "sk-local"
    slots = ("ANTHROPIC_MODEL", "ANTHROPIC_SMALL_FAST_MODEL", "ANTHROPIC_DEFAULT_HAIKU_MODEL",
             "ANTHROPIC_DEFAULT_SONNET_MODEL", "ANTHROPIC_DEFAULT_OPUS_MODEL", "CLAUDE_CODE_SUBAGENT_MODEL")
    assert {env[slot] for slot in slots} == {"gemma3-270m"}
    assert env["CLAUDE_CODE_ATTRIBUTION_HEADER"] == "0"
    assert launch.arguments == []


def test_codex_gets_a_provider_for_this_run_only() -> None:
    launch = AGENTS["codex"].launch(TARGET, [])
    assert launch.arguments[:2] == ["-c", "model_provider=superfluid"]
    assert 'base_url = "http://127.0.0.1:8453/v1"' in launch.arguments[3]
    assert 'wire_api = "responses"' in launch.arguments[3] and launch.arguments[4:] == ["-m", "gemma3-270m"]
    assert launch.environment == {"SUPERFLUID_API_KEY": "sk-local"}


def test_opencode_gets_an_inline_config() -> None:
    config = json.loads(AGENTS["opencode"].launch(TARGET, []).environment["OPENCODE_CONFIG_CONTENT"])
    provider = config["provider"]["superfluid"]
    assert provider["options"] == {"baseURL": "http://127.0.0.1:8453/v1", "apiKey": "sk-local"}
    assert config["model"] == config["small_model"] == "superfluid/gemma3-270m"


def test_ollama_chats_with_the_model_unless_told_otherwise() -> None:
    assert AGENTS["ollama"].launch(TARGET, []).arguments == ["run", "gemma3-270m"]
    launch = AGENTS["ollama"].launch(TARGET, ["list"])
    assert launch.arguments == [] and launch.environment == {"OLLAMA_HOST": "http://127.0.0.1:8453"}


def test_without_a_key_a_placeholder_is_sent() -> None:
    keyless = Target("http://h:1", "m")
    assert AGENTS["claude"].launch(keyless, []).environment["ANTHROPIC_AUTH_TOKEN"] == "superfluid"


def test_the_key_file_gives_its_first_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    keys = tmp_path / "keys"
    keys.write_text("# admin keys\n\nsk-one\nsk-two\n")
    assert read_key(keys) == "sk-one"
    (tmp_path / "empty").write_text("# nothing\n")
    with pytest.raises(LaunchError, match="holds no key"):
        read_key(tmp_path / "empty")
    monkeypatch.setenv("SUPERFLUID_API_KEY", "sk-env")
    assert read_key(None) == "sk-env"


def test_the_models_window_reaches_each_agent() -> None:
    sized = Target("http://h:1", "m", None, 32768)
    claude = AGENTS["claude"].launch(sized, []).environment
    # Claude Code compacts at window - reply - 13,000: told 45,768 with 8,192 for a reply, at 24,576, where the
    # prompt and a whole reply just fit the real 32,768.
    assert claude["CLAUDE_CODE_MAX_OUTPUT_TOKENS"] == "8192" and claude["CLAUDE_CODE_MAX_CONTEXT_TOKENS"] == "45768"
    assert int(claude["CLAUDE_CODE_MAX_CONTEXT_TOKENS"]) - 8192 - 13_000 == 32768 - 8192
    large = AGENTS["claude"].launch(Target("http://h:1", "m", None, 262144), []).environment
    assert large["CLAUDE_CODE_MAX_OUTPUT_TOKENS"] == "20000"  # what Claude Code reserves at most
    assert "model_context_window=32768" in AGENTS["codex"].launch(sized, []).arguments
    config = json.loads(AGENTS["opencode"].launch(sized, []).environment["OPENCODE_CONFIG_CONTENT"])
    assert config["provider"]["superfluid"]["models"]["m"]["limit"] == {"context": 32768, "output": 8192}
    assert config["provider"]["superfluid"]["models"]["m"]["temperature"] is True  # the agent's setting is sent
    unsized = Target("http://h:1", "m")
    assert not {"CLAUDE_CODE_MAX_CONTEXT_TOKENS", "CLAUDE_CODE_MAX_OUTPUT_TOKENS"} & set(
        AGENTS["claude"].launch(unsized, []).environment)
    assert not any("model_context_window" in a for a in AGENTS["codex"].launch(unsized, []).arguments)


def test_a_server_started_for_a_coding_agent_is_sized_for_it() -> None:
    for name in ("claude", "codex", "opencode"):
        assert AGENTS[name].serve_arguments(None) == ["--ctx-size", "32768", "--parallel", "2",
                                                      "--kv-size", "65536"]
    # A window the user gives keeps a full one for each lane.
    assert AGENTS["claude"].serve_arguments(65536) == ["--ctx-size", "65536", "--parallel", "2",
                                                       "--kv-size", "131072"]
    # The ollama command line chats; serve's own defaults suit it.
    assert AGENTS["ollama"].serve_arguments(None) == []
    assert AGENTS["ollama"].serve_arguments(4096) == ["--ctx-size", "4096"]


def test_launch_takes_only_a_positive_window(capsys: pytest.CaptureFixture[str]) -> None:
    assert _parser().parse_args(["launch", "claude", "--ctx-size", "65536"]).ctx_size == 65536
    with pytest.raises(SystemExit) as refused:
        _parser().parse_args(["launch", "claude", "--ctx-size", "0"])
    assert refused.value.code == 2 and "--ctx-size: must be a positive integer, got 0" in capsys.readouterr().err
