"""The CLI: `superfluid serve` flags map one to one onto Settings."""

from __future__ import annotations

from pathlib import Path

import pytest

from superfluid.cli import _parser, main, settings_from_args
from superfluid.engine.models.model_sources import DEFAULT_MODEL
from superfluid.settings import DEFAULT_PORT, Settings


def _settings(*argv: str) -> Settings:
    return settings_from_args(_parser().parse_args(["serve", *argv]))


def test_no_flags_gives_the_default_settings() -> None:
    settings = _settings()
    # A plain serve: the chat model first (the default), then the bundled embedding and Whisper models.
    assert settings.models == (DEFAULT_MODEL, "all-minilm-l6-v2", "whisper-base")
    assert settings == Settings(models=settings.models)
    assert settings.port == DEFAULT_PORT


def test_embedding_and_audio_flags() -> None:
    settings = _settings("--embedding", "--pooling", "cls", "--audio-concurrency", "2", "--audio-threads", "3")
    assert (settings.embedding, settings.pooling, settings.audio_concurrency, settings.audio_threads) == (
        True, "cls", 2, 3)
    assert _settings("--embeddings").embedding is True


def test_every_long_flag_lands_on_its_field() -> None:
    settings = _settings(
        "first.gguf", "acme/Repo-GGUF:Q4_K_M",
        "--host", "0.0.0.0", "--port", "9000", "--ctx-size", "2048", "--threads", "3", "--parallel", "2",
        "--batch-size", "128", "--max-tokens", "64", "--chat-template", "gemma",
        "--chat-template-file", "tmpl.jinja", "--api-key", "sekrit", "--alias", "house-model",
        "--preload", "extra-1", "--preload", "extra-2", "--hf-cache", "/srv/hf", "--keepalive", "2.5",
        "--log-level", "debug",
    )
    assert settings == Settings(
        models=("first.gguf", "acme/Repo-GGUF:Q4_K_M"),
        host="0.0.0.0",
        port=9000,
        ctx_size=2048,
        threads=3,
        parallel=2,
        batch_size=128,
        max_tokens=64,
        chat_template="gemma",
        chat_template_file=Path("tmpl.jinja"),
        api_keys=("sekrit",),
        alias="house-model",
        keepalive_s=2.5,
        hf_cache=Path("/srv/hf"),
        preload=("extra-1", "extra-2"),
        log_level="debug",
    )


def test_short_flags_match_llama_server() -> None:
    settings = _settings("-c", "4096", "-t", "8", "-np", "6", "-b", "256", "-n", "100", "-a", "nick")
    assert (settings.ctx_size, settings.threads, settings.parallel, settings.batch_size) == (4096, 8, 6, 256)
    assert settings.max_tokens == 100
    assert settings.alias == "nick"
    assert _settings("-kvu").kv_unified is True and _settings().kv_unified is False
    assert _settings("-fa", "off").flash_attn == "off" and _settings().flash_attn == "auto"
    assert _settings("--flash-attn", "on").flash_attn == "on"


def test_the_burst_wait_is_off_unless_asked_for() -> None:
    assert _settings().gather_ms == 0
    assert _settings("--gather-ms", "20").gather_ms == 20.0


def test_types_are_converted() -> None:
    settings = _settings("--port", "1234", "--keepalive", "0.5", "--chat-template-file", "a/b.jinja")
    assert isinstance(settings.port, int)
    assert isinstance(settings.keepalive_s, float)
    assert isinstance(settings.chat_template_file, Path)


@pytest.mark.parametrize(
    "argv",
    [
        ["--chat-template", "vicuna"],
        ["--log-level", "loud"],
        ["--flash-attn", "yes"],
        ["--port", "eighty"],
        ["--no-such-flag"],
        ["--gather-ms", "-1"],
        ["--gather-ms", "1001"],
        ["--gather-ms", "nan"],
    ],
)
def test_bad_flags_exit_with_usage(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        _settings(*argv)
    assert caught.value.code == 2
    assert "usage:" in capsys.readouterr().err


def test_serve_subcommand_is_required(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        _parser().parse_args([])
    capsys.readouterr()


def test_override_kv_is_repeatable_and_typed() -> None:
    settings = _settings("--override-kv", "tokenizer.ggml.fim_pre_token_id=int:11",
                         "--override-kv", "tokenizer.ggml.add_bos_token=bool:false",
                         "--override-kv", "general.name=str:house model")
    assert settings.override_kv == (("tokenizer.ggml.fim_pre_token_id", "int", "11"),
                                    ("tokenizer.ggml.add_bos_token", "bool", "false"),
                                    ("general.name", "str", "house model"))


@pytest.mark.parametrize("bad", ["no-equals", "key=int", "key=long:3", "key=int:three", "key=bool:yes",
                                 "=int:3", "key=float:x"])
def test_override_kv_refuses_malformed_values(bad: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        _settings("--override-kv", bad)
    assert "--override-kv" in capsys.readouterr().err


def test_limit_flags_land_on_their_fields() -> None:
    settings = _settings("--max-json-depth", "64", "--prepare-workers", "3", "--max-connections", "200",
                         "--max-header-count", "40", "--max-header-bytes", "8192", "--timeout-headers", "2.5",
                         "--timeout-body", "4", "--timeout-keep-alive", "9")
    assert (settings.max_json_depth, settings.prepare_workers, settings.max_connections) == (64, 3, 200)
    assert (settings.max_header_count, settings.max_header_bytes) == (40, 8192)
    assert (settings.timeout_headers_s, settings.timeout_body_s, settings.timeout_keep_alive_s) == (2.5, 4.0, 9)


@pytest.mark.parametrize("argv", [["--max-connections", "0"], ["--timeout-headers", "-1"],
                                  ["--max-json-depth", "deep"], ["--timeout-body", "nan"]])
def test_limit_flags_must_be_positive(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        _settings(*argv)
    assert caught.value.code == 2


def test_sampling_flags_use_llama_servers_names_and_land_in_order() -> None:
    settings = _settings("--min-p", "0.1", "--temp", "0", "--top-k", "5", "--top-p", "0.9")
    assert settings.sampling == (("temperature", 0.0), ("top_k", 5), ("top_p", 0.9), ("min_p", 0.1))
    assert isinstance(dict(settings.sampling)["top_k"], int)
    assert _settings().sampling == ()
    assert _settings("--temp", "1.5").sampling == (("temperature", 1.5),)


@pytest.mark.parametrize("argv", [["--temp", "-0.1"], ["--temp", "nan"], ["--temp", "inf"], ["--top-p", "1.5"],
                                  ["--min-p", "-1"], ["--top-k", "2.5"], ["--top-k", "-1"], ["--temp", "warm"]])
def test_sampling_flags_out_of_range_exit_with_usage(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        _settings(*argv)
    assert caught.value.code == 2
    assert argv[0] in capsys.readouterr().err


def test_team_flags_land_on_their_fields(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SUPERFLUID_API_KEY", "from-env")
    settings = _settings(
        "--models", "models.toml", "--idle-timeout", "300", "--models-max", "2", "--api-key", "a",
        "--api-key", "b", "--api-key-file", "keys.txt", "--key-policy", "policy.toml", "--rate-limit", "600/m",
        "--rate-limit-burst", "20", "--cors-origin", "https://a.example", "--cors-origin", "https://b.example",
        "--log-format", "json", "--nonstream-keepalive", "5",
    )
    assert settings.models == ()  # a models file alone names the default model
    assert (settings.models_file, settings.idle_timeout_s, settings.models_max) == (Path("models.toml"), 300, 2)
    assert settings.api_keys == ("a", "b", "from-env")
    assert (settings.api_key_file, settings.key_policy) == (Path("keys.txt"), Path("policy.toml"))
    assert (settings.rate_limit, settings.rate_limit_burst) == (10.0, 20)
    assert settings.cors_origins == ("https://a.example", "https://b.example")
    assert (settings.log_format, settings.nonstream_keepalive_s) == ("json", 5.0)


def test_a_bad_rate_exits_with_usage(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        _settings("--rate-limit", "lots")
    assert "10/s" in capsys.readouterr().err


def test_a_bad_key_policy_stops_before_listening(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from superfluid import cli

    monkeypatch.setattr(cli, "configure_logging", lambda level, fmt: None)  # leave the test run's logging alone
    policy = tmp_path / "keys.toml"
    policy.write_text("[[keys]]\nrole = 'root'\n")
    assert cli.main(["serve", "--key-policy", str(policy)]) == 2
    assert "keys[0] needs exactly one of 'key' or 'sha256'" in capsys.readouterr().err


def test_a_template_file_that_does_not_compile_stops_serve_in_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from superfluid import cli

    monkeypatch.setattr(cli, "configure_logging", lambda level, fmt: None)
    broken = tmp_path / "broken.jinja"
    broken.write_text("{% for m in messages %}\n{{ m.content }}\n{% endfor %}\n{% frobnicate %}\n")
    assert cli.main(["serve", "--chat-template-file", str(broken)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "broken.jinja" in err and "line 4" in err, err
    assert cli.main(["serve", "--chat-template-file", str(tmp_path / "missing.jinja")]) == 2
    assert "missing.jinja" in capsys.readouterr().err


def test_a_model_that_cannot_be_downloaded_stops_serve_in_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from superfluid import cli

    monkeypatch.setattr(cli, "configure_logging", lambda level, fmt: None)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert cli.main(["serve", "acme/Remote-GGUF:Q4_K_M", "--hf-cache", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "acme/Remote-GGUF" in err and "HF_HUB_OFFLINE" in err, err


def test_listening_beyond_loopback_without_keys_warns(caplog: pytest.LogCaptureFixture) -> None:
    from superfluid.cli import _warn_if_open
    from superfluid.http.access import AccessControl

    for host, keys, warned in [("0.0.0.0", (), True), ("127.0.0.1", (), False), ("0.0.0.0", ("k",), False)]:
        caplog.clear()
        settings = Settings(host=host, api_keys=keys)
        _warn_if_open(settings, AccessControl.from_settings(settings))
        assert any("without any API key" in r.getMessage() for r in caplog.records) is warned


# ---- durable state flags ------------------------------------------------------------------------------------
def test_sessions_and_response_bounds_land_on_their_fields() -> None:
    settings = _settings("--sessions", "/srv/sessions", "--responses-max-age", "12h",
                         "--responses-max-bytes", "256M")
    assert settings.sessions_dir == Path("/srv/sessions")
    assert settings.responses_max_age_s == 12 * 3600
    assert settings.responses_max_bytes == 256 * 1024**2


def test_response_bounds_default_to_thirty_days_and_a_gibibyte() -> None:
    settings = _settings()
    assert settings.sessions_dir is None
    assert settings.responses_max_age_s == 30 * 86400 and settings.responses_max_bytes == 1024**3


def test_file_bounds_land_on_their_fields_and_default_to_ten_gibibytes_and_thirty_days() -> None:
    settings = _settings("--files-max-bytes", "512M", "--files-expiry", "12h")
    assert settings.files_max_bytes == 512 * 1024**2 and settings.files_expiry_s == 12 * 3600
    defaults = _settings()
    assert defaults.files_max_bytes == 10 * 1024**3 and defaults.files_expiry_s == 30 * 86400


@pytest.mark.parametrize(("text", "seconds"), [("90", 90), ("90s", 90), ("15m", 900), ("2h", 7200),
                                               ("1.5d", 129600), ("0", 0)])
def test_durations(text: str, seconds: float) -> None:
    from superfluid.settings import parse_duration

    assert parse_duration(text) == seconds


@pytest.mark.parametrize(("text", "size"), [("1048576", 1048576), ("512K", 512 * 1024), ("256M", 256 * 1024**2),
                                            ("2G", 2 * 1024**3), ("2GiB", 2 * 1024**3), ("1gb", 1024**3),
                                            ("0", 0)])
def test_sizes(text: str, size: int) -> None:
    from superfluid.settings import parse_size

    assert parse_size(text) == size


@pytest.mark.parametrize(("flag", "value"), [("--responses-max-age", "soon"), ("--responses-max-age", "-1h"),
                                             ("--responses-max-bytes", "lots"), ("--responses-max-bytes", "-2M"),
                                             ("--files-max-bytes", "lots"), ("--files-expiry", "-1d")])
def test_bad_bounds_stop_the_command(flag: str, value: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        _settings(flag, value)
    assert flag in capsys.readouterr().err


def test_a_sessions_directory_that_cannot_be_made_stops_the_command(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    from superfluid.cli import main

    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    assert main(["serve", "--sessions", str(blocker / "sessions")]) == 2
    assert "--sessions" in capsys.readouterr().err


def test_lora_flags_mirror_llama_server(tmp_path: Path) -> None:
    settings = _settings("--lora-dir", str(tmp_path), "--lora", "a.gguf", "--lora-scaled", "b.gguf", "0.5",
                         "--lora", "c.gguf", "--lora-scaled", "d.gguf", "-1", "--lora-init-without-apply")
    assert settings.lora_dir == tmp_path
    # --lora adapters first, then --lora-scaled ones, each in the order given
    assert settings.lora == (("a.gguf", 1.0), ("c.gguf", 1.0), ("b.gguf", 0.5), ("d.gguf", -1.0))
    assert settings.lora_init_without_apply


def test_lora_scaled_needs_a_number(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        _settings("--lora-scaled", "a.gguf", "strong")
    assert caught.value.code == 2
    assert "SCALE must be a number, got 'strong'" in capsys.readouterr().err


@pytest.mark.parametrize("argv, message", [
    (["--lora-dir", "/no/such/dir"], "--lora-dir /no/such/dir is not a directory"),
    (["--lora", "/no/such/adapter.gguf"], "/no/such/adapter.gguf named at start-up is not a file"),
])
def test_missing_adapter_paths_stop_serve_before_it_listens(argv: list[str], message: str,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", *argv]) == 2
    assert message in capsys.readouterr().err


def test_a_fim_model_that_is_not_served_stops_serve_in_one_line(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from superfluid import cli

    monkeypatch.setattr(cli, "configure_logging", lambda level, fmt: None)
    assert _settings("--fim-model", "coder").fim_model == "coder"
    assert cli.main(["serve", "smollm2-135m-instruct", "--fim-model", "coder"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "--fim-model 'coder'" in err and "smollm2-135m-instruct" in err, err


def test_a_database_that_cannot_be_read_stops_serve_in_one_line_and_is_kept(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from superfluid import cli

    monkeypatch.setattr(cli, "configure_logging", lambda level, fmt: None)
    damaged = tmp_path / "state.sqlite3"
    garbage = b"this is not a database\n" * 512
    damaged.write_bytes(garbage)
    assert cli.main(["serve", "--sessions", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and str(damaged) in err and "not a database" in err and "move" in err, err
    assert damaged.read_bytes() == garbage  # never rewritten


def test_docs_cli_md_tables_are_the_flag_table() -> None:
    """docs/cli.md's flag tables are generated from superfluid/flags.py (python -m superfluid.flags --write)."""
    from superfluid import flags

    current = (Path(__file__).resolve().parents[1] / flags.DOCS).read_text(encoding="utf-8")
    assert flags.documented(current) == current, "docs/cli.md is stale: python -m superfluid.flags --write"
    for flag in flags.FLAGS:
        assert any(name in current for name in flag.names), flag.names


def test_every_flag_sets_a_settings_field_or_is_read_with_others() -> None:
    """One declaration per flag: each names its Settings field (checked against Settings), and the fields no flag
    names one to one are the ones several flags make together."""
    import dataclasses

    from superfluid import flags

    fields = {f.name for f in dataclasses.fields(Settings)}
    named = [flag.setting for flag in flags.FLAGS if flag.setting is not None]
    assert len(named) == len(set(named))
    assert set(named) <= fields
    together = {"models", "sampling", "offload", "api_keys", "lora"}
    assert fields - set(named) == together | {"max_body_bytes"}  # the 100 MiB body limit has no flag
    assert len({name for flag in flags.FLAGS for name in flag.names}) == sum(len(f.names) for f in flags.FLAGS)


@pytest.mark.parametrize("window", [None, 65536])
def test_launch_starts_serve_with_serve_flags(window: int | None) -> None:
    """What launch passes the server it starts is read by serve's own flags."""
    from superfluid.flags import serve_parser, settings_from
    from superfluid.launch.agents import AGENTS

    for agent in AGENTS.values():
        settings = settings_from(serve_parser().parse_args(agent.serve_arguments(window)))
        if window is not None:
            assert settings.ctx_size == window
