"""`superfluid serve MODEL...`: flags map one to one onto Settings (llama-server's names where it has them)."""

from __future__ import annotations

import argparse
import logging
import math
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from superfluid import __version__
from superfluid.arguments import non_negative_int, positive_float, positive_int
from superfluid.engine import (
    BUILTIN_TEMPLATES,
    DEFAULT_MODEL,
    OFFLOAD_FIELDS,
    ModelSource,
    ModelSourceError,
    TemplateCompileError,
    default_references,
    offload_from,
)
from superfluid.http.access import AccessControl
from superfluid.http.access_log import LOG_FORMATS, configure_logging
from superfluid.http.keys import KeyPolicyError
from superfluid.http.rate_limit import parse_rate
from superfluid.settings import (
    DEFAULT_PORT,
    FLASH_ATTN_CHOICES,
    KvOverride,
    OffloadSettings,
    Settings,
    parse_duration,
    parse_override,
    parse_size,
)
from superfluid.state import unusable
from superfluid.web.address import WebAddress, WebAddressError

log = logging.getLogger("superfluid")

API_KEY_ENV = "SUPERFLUID_API_KEY"
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})


def _override(text: str) -> KvOverride:
    try:
        return parse_override(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _duration(text: str) -> float:
    try:
        return parse_duration(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _size(text: str) -> int:
    try:
        return parse_size(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


class _ScaledLora(argparse.Action):
    """``--lora-scaled FNAME SCALE``: appends (FNAME, float(SCALE)), refusing a SCALE that is not a number."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        fname, raw = values
        try:
            scale = float(raw)
        except ValueError:
            parser.error(f"--lora-scaled SCALE must be a number, got '{raw}'")
        setattr(namespace, self.dest, [*getattr(namespace, self.dest, []), (fname, scale)])


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
    serve.add_argument("models", nargs="*", metavar="MODEL",
                       help=f"bundled id, path to a .gguf, or owner/repo[:QUANT] (default without --models: "
                            f"{DEFAULT_MODEL} and the bundled embedding and Whisper models); the first is the "
                            "default model")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=DEFAULT_PORT)
    serve.add_argument("-c", "--ctx-size", type=int, default=0,
                       help="context window in tokens (0: the model's training context, at most 8192)")
    serve.add_argument("--kv-size", type=int, default=0,
                       help="tokens in the KV pool of all lanes together (0: one context window, shared); "
                            "e.g. --parallel 8 --ctx-size 4096 --kv-size 32768 gives every lane a full window, "
                            "in a KV stream of its own")
    serve.add_argument("--kv-disk-bytes", type=_size, default=4 * 1024**3, metavar="SIZE",
                       help="the prefix cache's disk tier: KV cells of dropped conversations saved under "
                            "<sessions>/kv/ and loaded back when they return, after a restart too; most bytes "
                            "per model (e.g. 512M, 20G; 0: off; default 4G)")
    serve.add_argument("-cram", "--cache-ram", type=int, default=8192, metavar="MiB",
                       help="the prefix cache's RAM tier: saved conversations kept in memory per model, so one that "
                            "returns after others took its lane is loaded back without prefilling or reading a "
                            "file (llama-server's flag; -1: no bound, 0: off; default 8192)")
    serve.add_argument("--kv-disk-min-tokens", type=int, default=256, metavar="N",
                       help="fewest cached tokens of a conversation worth saving to the disk tier (default 256)")
    serve.add_argument("-kvu", "--kv-unified", action="store_true",
                       help="one KV pool all lanes share even when --kv-size holds a full window per lane")
    serve.add_argument("-t", "--threads", type=int, default=0,
                       help="llama.cpp threads (0: all cores, fewer while other processes keep cores busy)")
    serve.add_argument("-np", "--parallel", type=int, default=4, help="lanes decoded together")
    serve.add_argument("-b", "--batch-size", type=int, default=512, help="most prompt tokens per engine tick")
    serve.add_argument("-fa", "--flash-attn", choices=FLASH_ATTN_CHOICES, default="auto",
                       help="llama.cpp's flash attention (auto: off for a chat model whose lanes have KV cells of "
                            "their own, a stream each or one lane, as its CPU kernel slows decoding at long contexts "
                            "2-3x; llama.cpp's choice for a shared KV pool and for embedding models)")
    _offload_flags(serve)
    serve.add_argument("-n", "--max-tokens", type=int, default=None,
                       help="reply cap when a request names none (default: fill the context)")
    _sampling_flags(serve)
    serve.add_argument("--chat-template", choices=BUILTIN_TEMPLATES, default=None,
                       help="use a built-in chat template instead of the model's")
    serve.add_argument("--chat-template-file", type=Path, default=None, help="Jinja chat template file")
    serve.add_argument("--api-key", action="append", default=[], metavar="KEY",
                       help="require this admin key (Authorization: Bearer or X-Api-Key); repeatable. Visible in "
                            "the process list: prefer --api-key-file or SUPERFLUID_API_KEY")
    serve.add_argument("-a", "--alias", default=None, help="public id of the first model")
    serve.add_argument("--preload", action="append", default=[], metavar="ID",
                       help="also load this known model at start-up (repeatable)")
    serve.add_argument("--hf-cache", type=Path, default=None, help="Hugging Face hub cache directory")
    serve.add_argument("--keepalive", type=float, default=15.0, help="seconds between SSE keep-alive lines")
    serve.add_argument("--queue-size", type=int, default=256,
                       help="most requests waiting for a lane per model; more get 429 concurrency_limit_exceeded")
    serve.add_argument("--completion-deadline-ms", type=int, default=None,
                       help="cut completion-class (FIM) replies still running after this many ms (expired)")
    serve.add_argument("--completion-burst", type=int, default=20, help="FIM token bucket size per client")
    serve.add_argument("--completion-rate", type=float, default=10.0, help="FIM token bucket refill per second")
    serve.add_argument("--fim-model", metavar="ID", default=None,
                       help="a served model (by id) that answers fill-in-the-middle for models without FIM tokens")
    serve.add_argument("--spec-draft", type=int, default=4,
                       help="prompt-lookup draft tokens per decode while at most 2 lanes decode (0: off)")
    serve.add_argument("-ctxcp", "--ctx-checkpoints", "--swa-checkpoints", type=non_negative_int, default=32,
                       metavar="N",
                       help="recurrent and hybrid models: most checkpoints of a lane's recurrent state kept, so a "
                            "later request resumes where it branches off (llama-server's flag; 0: off; default 32)")
    serve.add_argument("-cms", "--checkpoint-min-step", type=non_negative_int, default=8192, metavar="N",
                       help="recurrent and hybrid models: tokens between the checkpoints a long prefill saves "
                            "besides those at the prompt's end (llama-server's flag; default 8192)")
    serve.add_argument("--gather-ms", type=_gather_ms, default=0.0,
                       help="how long an idle engine's first decode may wait for a burst's other requests (0: never)")
    serve.add_argument("--switch-interval-ms", type=positive_float, default=0.5,
                       help="Python's GIL switch interval in ms (Python's default is 5)")
    serve.add_argument("--http-allow-batch-invariant", action="store_true",
                       help="honour x-superfluid-batch-invariant (a lane that ticks alone)")
    serve.add_argument("--override-kv", action="append", default=[], type=_override, metavar="KEY=TYPE:VALUE",
                       help="override a GGUF metadata key for every model (repeatable), e.g. "
                            "tokenizer.ggml.add_bos_token=bool:false; TYPE is int, float, bool or str")
    serve.add_argument("--embedding", "--embeddings", action="store_true",
                       help="serve llama.cpp models for embeddings only (llama-server's flag); a chat model also "
                            "needs --pooling")
    serve.add_argument("--pooling", choices=["mean", "cls", "last"], default=None,
                       help="pooling of embedding models (default: the GGUF's)")
    serve.add_argument("--audio-concurrency", type=positive_int, default=1,
                       help="transcriptions run at once per Whisper model; more wait their turn")
    serve.add_argument("--audio-threads", type=int, default=0, help="CPU threads per transcription (0: all cores)")
    serve.add_argument("--lora-dir", type=Path, default=None, metavar="DIR",
                       help="adapters directory: POST /v1/lora/load may name GGUF LoRA adapters under it")
    serve.add_argument("--lora", action="append", default=[], metavar="FNAME",
                       help="apply this GGUF LoRA adapter to the default model at scale 1 (repeatable)")
    serve.add_argument("--lora-scaled", action=_ScaledLora, default=[], nargs=2, metavar=("FNAME", "SCALE"),
                       help="apply this GGUF LoRA adapter to the default model at SCALE (repeatable)")
    serve.add_argument("--lora-init-without-apply", action="store_true",
                       help="load the --lora adapters at start-up but apply them only when POST /v1/lora/load asks")
    serve.add_argument("--log-level", default="info", choices=["debug", "info", "warning", "error"])
    # Limits against hostile or oversized input (docs/limits.md).
    serve.add_argument("--max-json-depth", type=positive_int, default=128,
                       help="deepest nesting of arrays and objects in a request body; deeper is a 400")
    serve.add_argument("--prepare-workers", type=positive_int, default=1,
                       help="threads that parse, template, tokenize and compile grammars for big requests, "
                            "and as many processes that validate their bodies")
    serve.add_argument("--max-connections", type=positive_int, default=1024,
                       help="open connections; over it the longest-idle one closes, or 503 when none is idle")
    serve.add_argument("--max-header-count", type=positive_int, default=100,
                       help="header fields in a request; more is a 431")
    serve.add_argument("--max-header-bytes", type=positive_int, default=64 * 1024,
                       help="bytes in a request line and headers; more is a 431")
    serve.add_argument("--timeout-headers", type=positive_float, default=30.0,
                       help="seconds to send a whole request head; later is a 408")
    serve.add_argument("--timeout-body", type=positive_float, default=30.0,
                       help="seconds a request body may go without a byte; longer is a 408")
    serve.add_argument("--timeout-keep-alive", type=positive_int, default=5,
                       help="seconds an idle keep-alive connection stays open")
    _team_flags(serve)
    commands.add_parser("fleet", add_help=False, help="serve from Ray Serve replicas behind a prefix-aware head "
                        "(superfluid[fleet]; superfluid fleet --help)")
    # Durable state (docs/responses.md#storage).
    serve.add_argument("--sessions", type=Path, default=None, metavar="DIR",
                       help="directory for durable state (stored responses); default: "
                            "$XDG_DATA_HOME/superfluid/sessions or the platform's user data directory")
    serve.add_argument("--responses-max-age", type=_duration, default=30 * 86400.0, metavar="AGE",
                       help="remove stored responses older than this (e.g. 3600, 90m, 12h, 30d; 0: keep; "
                            "default 30d)")
    serve.add_argument("--responses-max-bytes", type=_size, default=1024**3, metavar="SIZE",
                       help="keep stored responses under this size, removing the oldest first "
                            "(e.g. 512M, 2G; 0: no bound; default 1G)")
    # Files and batches (docs/files-and-batches.md).
    serve.add_argument("--files-max-bytes", type=_size, default=10 * 1024**3, metavar="SIZE",
                       help="most bytes of uploaded files the store holds; an upload past it is a 413 "
                            "files_quota_exceeded (e.g. 512M, 20G; 0: no bound; default 10G)")
    serve.add_argument("--files-expiry", type=_duration, default=30 * 86400.0, metavar="AGE",
                       help="remove uploaded files this long after their upload unless the upload's "
                            "expires_after says otherwise (e.g. 12h, 30d; 0: keep; default 30d)")
    serve.add_argument("--web", default=None, metavar="HOST:PORT",
                       help="open the loopback-only web listener here: the session API and the chat page "
                            "(docs/web.md); its address, with a per-launch token, is printed at start-up")
    serve.add_argument("--web-key", default=None, metavar="ID",
                       help="with API keys: the id of the key whose models, limits and data the web listener's "
                            "sessions use")
    serve.add_argument("--state", default=None, metavar="URL",
                       help="keep durable state on this PostgreSQL server (postgresql://USER@HOST/DB; needs "
                            "superfluid[fleet]) instead of SQLite in --sessions: what a fleet's replicas share")
    from superfluid.conformance import command as conformance

    conformance.add_parser(commands)
    from superfluid.launch import command as launch

    launch.add_parser(commands)
    return parser


SAMPLING_FLAGS = (("--temp", "temperature", 0.0, None, "temperature (0: greedy)"),
                  ("--top-k", "top_k", 0.0, None, "top-k (0: off)"),
                  ("--top-p", "top_p", 0.0, 1.0, "top-p (1: off)"),
                  ("--min-p", "min_p", 0.0, 1.0, "min-p (0: off)"))
"""The operator's sampling defaults, with llama-server's names: flag, field, lowest, highest, what it is."""


def _sampling_flags(serve: argparse.ArgumentParser) -> None:
    for flag, field, low, high, what in SAMPLING_FLAGS:
        serve.add_argument(flag, dest=f"sampling_{field}", type=_bounded(low, high, whole=field == "top_k"),
                           default=None, metavar="X",
                           help=f"{what} for requests that set none (default: the model's; batch lines keep the "
                                "model's)")


def _bounded(low: float, high: float | None, *, whole: bool) -> Callable[[str], float]:
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
        if not math.isfinite(value) or value < low or (high is not None and value > high):
            span = f"between {low:g} and {high:g}" if high is not None else f"at least {low:g}"
            raise argparse.ArgumentTypeError(f"must be {span}, got {text}")
        if whole:
            if not value.is_integer():
                raise argparse.ArgumentTypeError(f"must be a whole number, got {text}")
            return int(value)
        return value

    return parse


def _gather_ms(text: str) -> float:
    value = float(text)
    if not 0 <= value <= 1000:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1000 ms, got {text}")
    return value


def _rate(text: str) -> float:
    try:
        return parse_rate(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _team_flags(serve: argparse.ArgumentParser) -> None:
    """Models, keys and limits, observability (docs/operations.md, docs/security.md, docs/metrics.md)."""
    serve.add_argument("--models", dest="models_file", type=Path, default=None, metavar="FILE",
                       help="TOML/YAML/JSON file of known models (alias, ctx_size, parallel, idle_timeout, eager)")
    serve.add_argument("--idle-timeout", type=float, default=0.0, metavar="SEC",
                       help="unload a model unused this long (0: never)")
    serve.add_argument("--models-max", type=int, default=0, metavar="N",
                       help="most models loaded at once; the least recently used unloads first (0: no limit)")
    serve.add_argument("--api-key-file", type=Path, default=None, metavar="FILE",
                       help="admin keys, one per line (the recommended way: keys stay out of the process list)")
    serve.add_argument("--key-policy", type=Path, default=None, metavar="FILE",
                       help="keys with roles, concurrency, rate, QoS ceiling and model allow-list; "
                            "reloaded on SIGHUP")
    serve.add_argument("--rate-limit", type=_rate, default=0.0, metavar="N/s",
                       help="requests per client address, e.g. 10/s or 600/m (429 rate_limit_exceeded)")
    serve.add_argument("--rate-limit-burst", type=int, default=0, metavar="N",
                       help="requests a client address may make at once (default: one second's worth)")
    serve.add_argument("--cors-origin", action="append", default=[], metavar="ORIGIN",
                       help="allow this browser origin (repeatable; * allows any); CORS is off without it")
    serve.add_argument("--log-format", default="text", choices=list(LOG_FORMATS),
                       help="every log line, the access log included, as text or one JSON object")
    serve.add_argument("--nonstream-keepalive", type=float, default=None, metavar="SEC",
                       help="non-streaming generations commit 200 at admission and send a space every SEC")


def _offload_flags(serve: argparse.ArgumentParser) -> None:
    """llama-server's offload flags, with its names and meanings (docs/models.md, "GPU offload")."""
    group = serve.add_argument_group("GPU offload (a llama-cpp-python build with CUDA, Vulkan, Metal or HIP)")
    group.add_argument("-ngl", "--gpu-layers", "--n-gpu-layers", dest="n_gpu_layers", default=None, metavar="N",
                       type=_offload_value("n_gpu_layers"),
                       help="layers on the GPUs: a count, 'all', or 'auto' (the default: as many as fit each "
                            "device's free memory less --fit-target)")
    group.add_argument("-dev", "--device", default=None, metavar="LIST", type=_offload_value("device"),
                       help="comma-separated devices to offload to (default: every GPU; 'none': no offload); "
                            "--list-devices names them")
    group.add_argument("--list-devices", action="store_true", help="print the backend devices and exit")
    group.add_argument("-sm", "--split-mode", default=None, choices=["none", "layer", "row"],
                       help="across several GPUs: none (only --main-gpu), layer (the default: layers and their KV "
                            "spread over them) or row (each weight split by rows)")
    group.add_argument("-ts", "--tensor-split", default=None, metavar="N0,N1,...",
                       type=_offload_value("tensor_split"),
                       help="each GPU's share of the layers, e.g. 3,1 (default: in proportion to free memory)")
    group.add_argument("-mg", "--main-gpu", default=None, metavar="INDEX", type=_offload_value("main_gpu"),
                       help="the GPU for the whole model with --split-mode none (default 0)")
    group.add_argument("-nkvo", "--no-kv-offload", action="store_true", default=None,
                       help="keep the KV cells in host memory")
    group.add_argument("-ot", "--override-tensor", action="append", default=None, metavar="PATTERN=TYPE,...",
                       type=_offload_value("override_tensor"),
                       help="put tensors whose names match PATTERN in buffer type TYPE (e.g. 'exps=CPU'; repeatable)")
    group.add_argument("-cmoe", "--cpu-moe", action="store_true", default=None,
                       help="keep every mixture-of-experts weight in host memory")
    group.add_argument("-ncmoe", "--n-cpu-moe", default=None, metavar="N", type=_offload_value("n_cpu_moe"),
                       help="keep the mixture-of-experts weights of the first N layers in host memory")
    group.add_argument("-fitt", "--fit-target", default=None, metavar="MiB", type=_offload_value("fit_target"),
                       help="memory -ngl auto leaves free on each device, in MiB (default 1024)")


def _offload_value(key: str) -> Callable[[str], str]:
    """An argparse type that checks one offload flag's text as the models file's ``key`` is checked."""

    def check(text: str) -> str:
        try:
            offload_from(OffloadSettings(), {key: text})
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc).split(": ", 1)[-1]) from None
        return text

    return check


def _offload(args: argparse.Namespace) -> OffloadSettings:
    """The offload flags given, over the defaults (each was checked as it was read)."""
    fields: dict[str, Any] = {key: getattr(args, key, None) for key in OFFLOAD_FIELDS}
    if fields["override_tensor"] is not None:
        fields["override_tensor"] = ",".join(fields["override_tensor"])
    return offload_from(OffloadSettings(), fields)


def settings_from_args(args: argparse.Namespace) -> Settings:
    return Settings(
        models=tuple(args.models) or (() if args.models_file else default_references()),
        host=args.host,
        port=args.port,
        ctx_size=args.ctx_size,
        kv_size=args.kv_size,
        kv_unified=args.kv_unified,
        threads=args.threads,
        parallel=args.parallel,
        batch_size=args.batch_size,
        flash_attn=args.flash_attn,
        max_tokens=args.max_tokens,
        sampling=tuple((field, getattr(args, f"sampling_{field}")) for _, field, *_ in SAMPLING_FLAGS
                       if getattr(args, f"sampling_{field}") is not None),
        chat_template=args.chat_template,
        chat_template_file=args.chat_template_file,
        alias=args.alias,
        keepalive_s=args.keepalive,
        hf_cache=args.hf_cache,
        preload=tuple(args.preload),
        log_level=args.log_level,
        queue_size=args.queue_size,
        completion_deadline_ms=args.completion_deadline_ms,
        completion_burst=args.completion_burst,
        completion_rate=args.completion_rate,
        fim_model=args.fim_model,
        allow_batch_invariant=args.http_allow_batch_invariant,
        spec_draft=args.spec_draft,
        offload=_offload(args),
        ctx_checkpoints=args.ctx_checkpoints,
        checkpoint_min_step=args.checkpoint_min_step,
        switch_interval_ms=args.switch_interval_ms,
        gather_ms=args.gather_ms,
        override_kv=tuple(args.override_kv),
        max_json_depth=args.max_json_depth,
        prepare_workers=args.prepare_workers,
        max_connections=args.max_connections,
        max_header_count=args.max_header_count,
        max_header_bytes=args.max_header_bytes,
        timeout_headers_s=args.timeout_headers,
        timeout_body_s=args.timeout_body,
        timeout_keep_alive_s=args.timeout_keep_alive,
        models_file=args.models_file,
        idle_timeout_s=args.idle_timeout,
        models_max=args.models_max,
        api_keys=(*args.api_key, *_environment_keys()),
        api_key_file=args.api_key_file,
        key_policy=args.key_policy,
        rate_limit=args.rate_limit,
        rate_limit_burst=args.rate_limit_burst,
        cors_origins=tuple(args.cors_origin),
        web=args.web,
        kv_disk_bytes=args.kv_disk_bytes,
        kv_disk_min_tokens=args.kv_disk_min_tokens,
        cache_ram_bytes=args.cache_ram * 1024**2 if args.cache_ram >= 0 else -1,
        web_key=args.web_key,
        log_format=args.log_format,
        nonstream_keepalive_s=args.nonstream_keepalive,
        sessions_dir=args.sessions,
        responses_max_age_s=args.responses_max_age,
        responses_max_bytes=args.responses_max_bytes,
        files_max_bytes=args.files_max_bytes,
        files_expiry_s=args.files_expiry,
        state_url=args.state,
        embedding=args.embedding,
        pooling=args.pooling,
        audio_concurrency=args.audio_concurrency,
        audio_threads=args.audio_threads,
        lora_dir=args.lora_dir,
        lora=tuple((name, 1.0) for name in args.lora) + tuple(args.lora_scaled),
        lora_init_without_apply=args.lora_init_without_apply,
    )


def _environment_keys() -> tuple[str, ...]:
    """SUPERFLUID_API_KEY: one more admin key, kept out of the process list."""
    key = os.environ.get(API_KEY_ENV, "").strip()
    return (key,) if key else ()


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
