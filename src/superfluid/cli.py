"""`superfluid serve MODEL...` and the other commands' entry point. serve's flags and how they make Settings are
declared once, in superfluid/flags.py."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Mapping, Sequence

from superfluid import __version__
from superfluid.engine import ModelSource, ModelSourceError, TemplateCompileError
from superfluid.flags import add_serve_flags, settings_from
from superfluid.http.access import AccessControl
from superfluid.http.access_log import configure_logging
from superfluid.http.keys import KeyPolicyError
from superfluid.settings import Settings
from superfluid.state import unusable
from superfluid.web.address import WebAddress, WebAddressError

log = logging.getLogger("superfluid")

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})


def _refuse_unplaceable(settings: Settings, sources: Mapping[str, ModelSource]) -> None:
    """The default model's offload flags that cannot work on this machine (an unknown device, an explicit -ngl
    that does not fit) stop start-up with one line."""
    from superfluid.engine import offload_problem

    source = next(iter(sources.values()))
    if source.runtime != "llamacpp" or settings.embedding:
        return
    problem = offload_problem(source.locate(), settings)
    if problem is not None:
        raise ModelSourceError(problem)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="superfluid", description="LLM inference server over llama.cpp")
    parser.add_argument("--version", action="version", version=f"superfluid {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="serve models over the OpenAI, Anthropic and Ollama APIs")
    add_serve_flags(serve)
    commands.add_parser("fleet", add_help=False, help="serve from Ray Serve replicas behind a prefix-aware head "
                        "(superfluid[fleet]; superfluid fleet --help)")
    from superfluid.conformance import command as conformance

    conformance.add_parser(commands)
    from superfluid.launch import command as launch

    launch.add_parser(commands)
    return parser


def settings_from_args(args: argparse.Namespace) -> Settings:
    return settings_from(args)


def _warn_if_open(settings: Settings, access: AccessControl) -> None:
    if settings.host not in LOOPBACK_HOSTS and not access.keyring.enabled:
        log.warning("listening on %s without any API key: anyone who can reach this address can use every route, "
                    "load and unload models. Give keys with --api-key-file or --key-policy, or listen on "
                    "127.0.0.1.", settings.host)


def _refuse_undownloadable(sources: Mapping[str, ModelSource]) -> None:
    """Models that need a download the machine cannot make stop serve before it listens (ModelSourceError)."""
    from superfluid.engine import hub_unreachable

    waiting = [model_id for model_id, source in sources.items() if source.downloads]
    if waiting and (why := hub_unreachable()) is not None:
        raise ModelSourceError(f"{', '.join(waiting)}: not in the Hugging Face cache, and cannot be downloaded: "
                               f"{why}")


def _refuse_unknown_fim_model(settings: Settings, sources: Mapping[str, ModelSource]) -> None:
    """--fim-model names one of the models this server serves, or serve stops before it listens."""
    if settings.fim_model is not None and settings.fim_model not in sources:
        raise ModelSourceError(f"--fim-model '{settings.fim_model}' is not one of the served models "
                               f"({', '.join(sources)})")


def _refuse_bad_web(settings: Settings, access: AccessControl) -> None:
    """--web is a loopback address; with keys, --web-key names one of them (docs/web.md)."""
    if settings.web is None:
        if settings.web_key is not None:
            raise WebAddressError("--web-key needs --web")
        return
    address = WebAddress.parse(settings.web)
    if (problem := address.unbindable()) is not None:
        raise WebAddressError(problem)
    ring = access.keyring
    if ring.enabled and settings.web_key is None:
        raise WebAddressError("--web on a server with API keys needs --web-key ID: the key whose models, limits "
                              "and data the web sessions use")
    if settings.web_key is not None and ring.by_id(settings.web_key) is None:
        raise WebAddressError(f"--web-key '{settings.web_key}' is not the id of any key of this server")


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["fleet"]:  # the fleet (superfluid[fleet], docs/fleet.md) reads its flags, then serve's
        from superfluid.fleet.cli import main as fleet_main

        return fleet_main(argv[1:])
    passed: list[str] = []
    if argv[:1] == ["launch"] and "--" in argv:  # the program's own arguments are not ours to parse
        argv, passed = argv[:argv.index("--")], argv[argv.index("--") + 1:]
    args = _parser().parse_args(argv)
    if passed:
        args.passed = passed
    if args.command == "conformance":
        from superfluid.conformance.command import execute

        return execute(args)
    if args.command == "launch":
        from superfluid.launch.command import execute as launch

        return launch(args)
    if args.list_devices:
        from superfluid.engine import backend_devices, device_lines

        print("\n".join(device_lines(backend_devices())))
        return 0
    settings = settings_from_args(args)
    configure_logging(settings.log_level, settings.log_format)
    import prometheus_client
    import uvicorn

    prometheus_client.disable_created_metrics()  # type: ignore[no-untyped-call]  # *_created only repeats the start

    from superfluid.app import create_app
    from superfluid.http.connections import ConnectionLimits, fit_descriptors, protocol_class
    from superfluid.http.direct import expose_connection
    from superfluid.http.offload import few_malloc_arenas

    few_malloc_arenas()  # before the server starts its threads

    try:
        access = AccessControl.from_settings(settings)
        app = create_app(settings, access=access)
        # Resolve model references now, so a bad one fails before the listener opens.
        from superfluid.engine import ModelRegistry

        sources = ModelRegistry(settings).sources
        _refuse_undownloadable(sources)
        _refuse_unplaceable(settings, sources)
        _refuse_unknown_fim_model(settings, sources)
        _refuse_bad_web(settings, access)
        if settings.chat_template_file is not None:
            from superfluid.engine import check_template_file

            check_template_file(settings.chat_template_file)
    except (ModelSourceError, KeyPolicyError, TemplateCompileError, WebAddressError) as exc:
        print(f"superfluid: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"superfluid: cannot read the chat template file: {exc}", file=sys.stderr)
        return 2
    from superfluid.engine import settings_problem

    if (problem := settings_problem(settings)) is not None:
        print(f"superfluid: {problem}", file=sys.stderr)
        return 2
    sessions = settings.sessions_path()
    if (problem := unusable(sessions, settings.state_url)) is not None:
        print(f"superfluid: {problem}; choose another directory with --sessions", file=sys.stderr)
        return 2
    _warn_if_open(settings, access)
    limits = fit_descriptors(ConnectionLimits.from_settings(settings))
    sys.setswitchinterval(settings.switch_interval_ms / 1000)  # process-wide, every thread
    # Logging is configured above (one format for all); superfluid writes its own access log.
    uvicorn.run(expose_connection(app), host=settings.host, port=settings.port, log_level=settings.log_level,
                log_config=None, access_log=False, timeout_graceful_shutdown=5,
                http=protocol_class(limits), timeout_keep_alive=settings.timeout_keep_alive_s)
    return 0


if __name__ == "__main__":
    sys.exit(main())
