"""`superfluid serve`'s flags, declared once: names, the Settings field each sets, type and bounds, default, the
``--help`` line and the row docs/cli.md shows. ``serve``, ``fleet`` (which passes serve's flags to its
replicas) and ``launch`` (which starts ``serve``) read them from here, and docs/cli.md's tables are generated from
this table (``python -m superfluid.flags --write``; tests/test_cli.py fails when they are stale).

A flag's default is its Settings field's unless it says otherwise (a flag read in other units, or that sets no
field by itself). llama-server's names are used where it has the flag.
"""

from __future__ import annotations

import argparse
import builtins
import dataclasses
import math
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from superfluid.arguments import non_negative_int, positive_float, positive_int
from superfluid.engine import BUILTIN_TEMPLATES, DEFAULT_MODEL, OFFLOAD_FIELDS, default_references, offload_from
from superfluid.http.access_log import LOG_FORMATS
from superfluid.http.rate_limit import parse_rate
from superfluid.settings import (
    FLASH_ATTN_CHOICES,
    KvOverride,
    OffloadSettings,
    Settings,
    parse_duration,
    parse_override,
    parse_size,
)

API_KEY_ENV = "SUPERFLUID_API_KEY"
DOCS = Path("docs") / "cli.md"
"""docs/cli.md, from the checkout's root (where ``python -m superfluid.flags`` runs)."""
OFFLOAD = "GPU offload (a llama-cpp-python build with CUDA, Vulkan, Metal or HIP)"

# ---- value types ----------------------------------------------------------------------------------------------


def _from(parse: Callable[[str], Any]) -> Callable[[str], Any]:
    """``parse`` as an argparse type: its ValueError becomes argparse's message."""

    def checked(text: str) -> Any:
        try:
            return parse(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    checked.__name__ = parse.__name__
    return checked


size = _from(parse_size)
duration = _from(parse_duration)
rate = _from(parse_rate)


def override(text: str) -> KvOverride:
    try:
        return parse_override(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def bounded(low: float, high: float | None = None, *, whole: bool = False) -> Callable[[str], float]:
    """A number between ``low`` and ``high`` (inclusive; no upper bound when None), whole when ``whole``."""

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


def gather_ms(text: str) -> float:
    value = float(text)
    if not 0 <= value <= 1000:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1000 ms, got {text}")
    return value


def offload_value(key: str) -> Callable[[str], str]:
    """An offload flag's text, checked as the models file's ``key`` is checked."""

    def check(text: str) -> str:
        try:
            offload_from(OffloadSettings(), {key: text})
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc).split(": ", 1)[-1]) from None
        return text

    return check


class ScaledLora(argparse.Action):
    """``--lora-scaled FNAME SCALE``: appends (FNAME, float(SCALE)), refusing a SCALE that is not a number."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        fname, raw = values
        try:
            scale = float(raw)
        except ValueError:
            parser.error(f"--lora-scaled SCALE must be a number, got '{raw}'")
        setattr(namespace, self.dest, [*getattr(namespace, self.dest, []), (fname, scale)])


def _mib(value: int) -> int:
    """--cache-ram's MiB as Settings' bytes (-1, no bound, stays -1)."""
    return value * 1024**2 if value >= 0 else -1


# ---- the table ----------------------------------------------------------------------------------------------


_UNSET: Any = object()


@dataclass(frozen=True)
class Flag:
    """One flag of ``serve``. ``field``: the Settings field it sets ("" for the flag's own name; None for a flag
    read with others, see ``settings_from``); ``convert`` turns the parsed value into the field's."""

    names: tuple[str, ...]
    help: str
    field: str | None = ""
    dest: str = ""
    type: Callable[[str], Any] | None = None
    action: str | builtins.type[argparse.Action] | None = None
    nargs: int | None = None
    default: Any = _UNSET
    choices: tuple[str, ...] | None = None
    metavar: str | tuple[str, ...] | None = None
    convert: Callable[[Any], Any] | None = None
    group: str | None = None
    section: str = "serve"
    doc: str = ""
    """The meaning docs/cli.md gives (markdown; the help line when empty)."""
    shown: str = ""
    """The default as docs/cli.md shows it, where the value itself would not say it (a size, a rule)."""

    @property
    def key(self) -> str:
        """The argparse destination."""
        return self.dest or self.names[-1].lstrip("-").replace("-", "_")

    @property
    def setting(self) -> str | None:
        return self.key if self.field == "" else self.field

    @property
    def parse_default(self) -> Any:
        """What argparse stores when the flag is not given."""
        if self.default is not _UNSET:
            return self.default
        if self.action in ("append", ScaledLora):
            return []
        if self.action == "store_true":
            return False
        if self.setting is None:
            return None
        return _SETTINGS_DEFAULTS[self.setting]

    def add_to(self, parser: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
        options: dict[str, Any] = {"dest": self.key, "help": self.help, "default": self.parse_default}
        for name in ("type", "action", "nargs", "choices", "metavar"):
            if getattr(self, name) is not None:
                options[name] = getattr(self, name)
        parser.add_argument(*self.names, **options)

    def value(self, args: argparse.Namespace) -> Any:
        raw = getattr(args, self.key)
        return self.convert(raw) if self.convert is not None else raw

    def shown_default(self) -> str:
        if self.shown:
            return self.shown
        value = self.parse_default
        if self.action == "store_true":
            return "off"
        if value is None or value == []:
            return "none"
        return f"`{value:g}`" if isinstance(value, float) else f"`{value}`"

    def row(self) -> str:
        names = [f"`{name}`" for name in self.names]
        if self.metavar and self.action not in ("store_true",):
            metavar = " ".join(self.metavar) if isinstance(self.metavar, tuple) else self.metavar
            names[-1] = f"`{self.names[-1]} {metavar}`"
        return f"| {', '.join(names)} | {self.shown_default()} | {self.doc or self.help} |"


_SETTINGS_DEFAULTS = {f.name: f.default for f in dataclasses.fields(Settings)
                      if f.default is not dataclasses.MISSING}

FLAGS: tuple[Flag, ...] = (
    Flag(('--host',),
         help='listen address'),
    Flag(('--port',), type=int,
         help='listen port',
         doc='listen port (use `--port 11434` to stand in for Ollama — not while Ollama itself runs there)'),
    Flag(('-c', '--ctx-size'), type=int,
         help="context window in tokens (0: the model's training context, at most 8192)",
         doc="context window in tokens; `0` takes the model's training context, capped at 8192"),
    Flag(('--kv-size',), type=int,
         help='tokens in the KV pool of all lanes together (0: one context window, shared); e.g. --parallel 8 '
              '--ctx-size 4096 --kv-size 32768 gives every lane a full window, in a KV stream of its own',
         doc='tokens in the KV pool of all lanes together; `0` makes it one context window, shared. At lanes x '
             'window or more, each lane gets a KV stream of its own (faster; see [scheduling.md](scheduling.md), '
             '"KV layout")'),
    Flag(('--kv-disk-bytes',), type=size, metavar='SIZE',
         help="the prefix cache's disk tier: KV cells of dropped conversations saved under <sessions>/kv/ and "
              'loaded back when they return, after a restart too; most bytes per model (e.g. 512M, 20G; 0: off; '
              'default 4G)',
         doc="the prefix cache's disk tier: saved KV cells per model under `<sessions>/kv/` (0: off; "
             'docs/scheduling.md, "The RAM and disk tiers")',
         shown='`4G`'),
    Flag(('-cram', '--cache-ram'), field='cache_ram_bytes', type=int, default=8192, convert=_mib, metavar='MiB',
         help="the prefix cache's RAM tier: saved conversations kept in memory per model, so one that returns "
              "after others took its lane is loaded back without prefilling or reading a file (llama-server's "
              'flag; -1: no bound, 0: off; default 8192)',
         doc="the prefix cache's RAM tier: saved conversations kept in memory per model (llama-server's flag; "
             '`-1`: no bound, `0`: off; docs/scheduling.md, "The RAM and disk tiers")'),
    Flag(('--kv-disk-min-tokens',), type=int, metavar='N',
         help='fewest cached tokens of a conversation worth saving to the disk tier (default 256)',
         doc='fewest cached tokens of a conversation worth saving to the disk tier'),
    Flag(('-kvu', '--kv-unified'), action='store_true',
         help='one KV pool all lanes share even when --kv-size holds a full window per lane',
         doc='keep one KV pool all lanes share even when `--kv-size` holds a window per lane'),
    Flag(('-t', '--threads'), type=int,
         help='llama.cpp threads (0: all cores, fewer while other processes keep cores busy)',
         doc='llama.cpp threads; `0` uses every core the process may run on, and fewer while other processes keep '
             'some of those cores busy (looked at four times a second while decoding; '
             '[performance.md](performance.md#a-neighbour-on-the-same-cores)); a number is kept as given'),
    Flag(('-np', '--parallel'), type=int,
         help='lanes decoded together',
         doc='lanes: sequences decoded together in one batch per engine tick'),
    Flag(('-b', '--batch-size'), type=int,
         help='most prompt tokens per engine tick',
         doc='most tokens in one engine tick (prompt chunks plus one token per generating lane)'),
    Flag(('-fa', '--flash-attn'), choices=FLASH_ATTN_CHOICES,
         help="llama.cpp's flash attention (auto: off for a chat model whose lanes have KV cells of their own, a "
              "stream each or one lane, as its CPU kernel slows decoding at long contexts 2-3x; llama.cpp's choice "
              'for a shared KV pool and for embedding models)',
         doc="llama.cpp's flash attention: `on`, `off`, or `auto`: off for a chat model whose lanes attend only to "
             'KV cells of their own, that is a KV stream per lane (`--kv-size` of lanes x window) or `--parallel '
             "1` (llama.cpp's CPU kernel decodes 2-3x slower once a conversation passes a few hundred tokens); "
             "llama.cpp's own choice (on) for lanes in a shared pool, where without the kernel every lane would "
             "attend densely over the others' cells, and for embedding models. `GET /props` says what a model's "
             'contexts ask for (`flash_attention`). See '
             '[performance.md](performance.md#flash-attention-off-by-default-where-each-lane-has-its-own-kv-cells)'),
    Flag(('-ngl', '--gpu-layers', '--n-gpu-layers'), field=None, type=offload_value('n_gpu_layers'), metavar='N',
         group=OFFLOAD,
         help="layers on the GPUs: a count, 'all', or 'auto' (the default: as many as fit each device's free "
              'memory less --fit-target)',
         doc="layers on the GPUs: a count, `all`, or `auto` (as many as fit each device's free memory less "
             '`--fit-target`); an explicit count that cannot fit stops start-up with one line '
             '([models.md](models.md#gpu-offload))',
         shown='`auto`'),
    Flag(('-fitt', '--fit-target'), field=None, type=offload_value('fit_target'), metavar='MiB', group=OFFLOAD,
         help='memory -ngl auto leaves free on each device, in MiB (default 1024)',
         doc='memory `-ngl auto` leaves free on each device',
         shown='`1024`'),
    Flag(('-dev', '--device'), field=None, type=offload_value('device'), metavar='LIST', group=OFFLOAD,
         help="comma-separated devices to offload to (default: every GPU; 'none': no offload); --list-devices "
              'names them',
         doc='the devices to offload to (`none`: no offload)',
         shown='every GPU'),
    Flag(('--list-devices',), field=None, action='store_true', group=OFFLOAD,
         help='print the backend devices and exit',
         doc='print the backend devices llama.cpp found (name, description, type, memory) and exit',
         shown=''),
    Flag(('-sm', '--split-mode'), field=None, choices=('none', 'layer', 'row'), group=OFFLOAD,
         help='across several GPUs: none (only --main-gpu), layer (the default: layers and their KV spread over '
              'them) or row (each weight split by rows)',
         doc='across several GPUs: `none` (`--main-gpu` only), `layer`, `row`',
         shown='`layer`'),
    Flag(('-ts', '--tensor-split'), field=None, type=offload_value('tensor_split'), metavar='N0,N1,...',
         group=OFFLOAD,
         help="each GPU's share of the layers, e.g. 3,1 (default: in proportion to free memory)",
         doc="each GPU's share of the layers",
         shown='by free memory'),
    Flag(('-mg', '--main-gpu'), field=None, type=offload_value('main_gpu'), metavar='INDEX', group=OFFLOAD,
         help='the GPU for the whole model with --split-mode none (default 0)',
         doc='the GPU for the whole model with `--split-mode none`',
         shown='`0`'),
    Flag(('-nkvo', '--no-kv-offload'), field=None, action='store_true', default=None, group=OFFLOAD,
         help='keep the KV cells in host memory'),
    Flag(('-ot', '--override-tensor'), field=None, default=None, type=offload_value('override_tensor'),
         action='append', metavar='PATTERN=TYPE,...', group=OFFLOAD,
         help="put tensors whose names match PATTERN in buffer type TYPE (e.g. 'exps=CPU'; repeatable)",
         doc='tensors whose names match PATTERN go to buffer type TYPE (`CPU`, `CUDA0`, `Vulkan0`...; repeatable)',
         shown=''),
    Flag(('-cmoe', '--cpu-moe'), field=None, action='store_true', default=None, group=OFFLOAD,
         help='keep every mixture-of-experts weight in host memory',
         doc='every mixture-of-experts weight in host memory'),
    Flag(('-ncmoe', '--n-cpu-moe'), field=None, type=offload_value('n_cpu_moe'), metavar='N', group=OFFLOAD,
         help='keep the mixture-of-experts weights of the first N layers in host memory',
         doc='the expert weights of the first N layers in host memory',
         shown='`0`'),
    Flag(('-n', '--max-tokens'), type=int,
         help='reply cap when a request names none (default: fill the context)',
         doc='reply cap when a request names none; without it a chat reply may fill the context, a completion '
             'stops at 128'),
    Flag(('--temp',), field=None, dest='sampling_temperature', type=bounded(0.0), default=None, metavar='X',
         help="temperature (0: greedy) for requests that set none (default: the model's; batch lines keep the "
              "model's)",
         doc="sampling defaults for every request that leaves the field out (llama-server's names): temperature "
             '(`0`: greedy; at least 0), top-k (`0`: off; a whole number), top-p and min-p (0 to 1). Without them '
             "a request gets the model's defaults: what its GGUF declares (`general.sampling.*`) over llama.cpp's "
             '(temperature 0.8, top-k 40, top-p 0.95, min-p 0.05). A field the request sends always wins. Batch '
             "lines keep the model's defaults, as the product document asks. `GET /props` "
             "(`default_generation_settings.params`), `GET /slots` and Ollama's `/api/show` (`parameters`) show "
             'the defaults in force.',
         shown="the model's"),
    Flag(('--top-k',), field=None, dest='sampling_top_k', type=bounded(0.0, whole=True), default=None, metavar='N',
         help="top-k (0: off) for requests that set none (default: the model's; batch lines keep the model's)",
         shown="the model's"),
    Flag(('--top-p',), field=None, dest='sampling_top_p', type=bounded(0.0, 1.0), default=None, metavar='X',
         help="top-p (1: off) for requests that set none (default: the model's; batch lines keep the model's)",
         shown="the model's"),
    Flag(('--min-p',), field=None, dest='sampling_min_p', type=bounded(0.0, 1.0), default=None, metavar='X',
         help="min-p (0: off) for requests that set none (default: the model's; batch lines keep the model's)",
         shown="the model's"),
    Flag(('--chat-template',), choices=BUILTIN_TEMPLATES, metavar='NAME',
         help="use a built-in chat template instead of the model's",
         doc='use a built-in template: `chatml`, `gemma`, `llama3`, `mistral`',
         shown="the model's"),
    Flag(('--chat-template-file',), type=Path, metavar='PATH',
         help='Jinja chat template file',
         doc='use a Jinja template file (wins over `--chat-template`)'),
    Flag(('--api-key',), field=None, action='append', metavar='KEY',
         help='require this admin key (Authorization: Bearer or X-Api-Key); repeatable. Visible in the process '
              'list: prefer --api-key-file or SUPERFLUID_API_KEY',
         doc='an admin key: `Authorization: Bearer KEY` or `X-Api-Key: KEY` is then required on every route but '
             'the liveness routes (`GET /health`, `GET`/`HEAD /`); repeatable. Visible in the process list: prefer '
             '`--api-key-file` ([security.md](security.md))'),
    Flag(('-a', '--alias'), metavar='ID',
         help='public id of the first model',
         shown='derived'),
    Flag(('--preload',), action='append', convert=tuple, metavar='ID',
         help='also load this known model at start-up (repeatable)'),
    Flag(('--hf-cache',), type=Path, metavar='DIR',
         help='Hugging Face hub cache directory',
         doc='where `owner/repo` references are looked up',
         shown='`$HF_HUB_CACHE`, else `$HF_HOME/hub`, else `~/.cache/huggingface/hub`'),
    Flag(('--keepalive',), field='keepalive_s', type=float, metavar='SEC',
         help='seconds between SSE keep-alive lines',
         doc='seconds of silence before an SSE stream sends a `: keep-alive` comment line'),
    Flag(('--queue-size',), type=int,
         help='most requests waiting for a lane per model; more get 429 concurrency_limit_exceeded',
         doc='requests waiting for a lane, per model; more get 429 `concurrency_limit_exceeded`'),
    Flag(('--completion-deadline-ms',), type=int,
         help='cut completion-class (FIM) replies still running after this many ms (expired)',
         doc='cut completion-class (fill-in-the-middle) replies still running after this long'),
    Flag(('--completion-burst',), type=int,
         help='FIM token bucket size per client',
         doc='fill-in-the-middle token bucket size per client'),
    Flag(('--completion-rate',), type=float,
         help='FIM token bucket refill per second',
         doc='fill-in-the-middle token bucket refill per second; over it, 429 `completion_rate_limited`'),
    Flag(('--fim-model',), metavar='ID',
         help='a served model (by id) that answers fill-in-the-middle for models without FIM tokens',
         doc='a served model (by id) that answers fill-in-the-middle sent to models without FIM tokens; see '
             '[models.md](models.md#a-separate-fim-model---fim-model)'),
    Flag(('--spec-draft',), type=int,
         help='prompt-lookup draft tokens per decode while at most 2 lanes decode (0: off)',
         doc='prompt-lookup draft tokens verified per decode while at most two lanes decode and the reply repeats '
             'its last 8 tokens from earlier; `0` turns drafting off; always off for recurrent and hybrid models'),
    Flag(('-ctxcp', '--ctx-checkpoints', '--swa-checkpoints'), dest='ctx_checkpoints', type=non_negative_int,
         metavar='N',
         help="recurrent and hybrid models: most checkpoints of a lane's recurrent state kept, so a later request "
              "resumes where it branches off (llama-server's flag; 0: off; default 32)",
         doc='recurrent and hybrid models: most checkpoints of recurrent state a lane keeps, so a later request '
             'resumes where it branches off '
             '([scheduling.md](scheduling.md#recurrent-state-checkpoints-instead-of-cutting-back)); `0`: none'),
    Flag(('-cms', '--checkpoint-min-step'), type=non_negative_int, metavar='N',
         help='recurrent and hybrid models: tokens between the checkpoints a long prefill saves besides those at '
              "the prompt's end (llama-server's flag; default 8192)",
         doc='recurrent and hybrid models: tokens between the checkpoints a long prefill saves besides those at '
             "each prompt's end"),
    Flag(('--gather-ms',), type=gather_ms,
         help="how long an idle engine's first decode may wait for a burst's other requests (0: never)",
         doc="how long an idle engine's first decode may wait for a burst's other requests still being read, "
             'validated or tokenized, so their prompts are prefilled together (0 to 1000; `0`, the default, never '
             'waits: on a CPU the wait measured no gain); see [scheduling.md](scheduling.md), "Bursts"'),
    Flag(('--switch-interval-ms',), type=positive_float,
         help="Python's GIL switch interval in ms (Python's default is 5)",
         doc="Python's GIL switch interval (Python's own default is 5 ms): how long the engine thread may wait for "
             'the GIL while another thread runs Python; see [performance.md](performance.md)'),
    Flag(('--http-allow-batch-invariant',), field='allow_batch_invariant', action='store_true',
         help='honour x-superfluid-batch-invariant (a lane that ticks alone)',
         doc='honour `x-superfluid-batch-invariant: 1`'),
    Flag(('--override-kv',), type=override, action='append', convert=tuple, metavar='KEY=TYPE:VALUE',
         help='override a GGUF metadata key for every model (repeatable), e.g. '
              'tokenizer.ggml.add_bos_token=bool:false; TYPE is int, float, bool or str',
         doc='read a GGUF metadata key as this value (TYPE `int`, `float`, `bool`, `str`), for every model; '
             'repeatable'),
    Flag(('--embedding', '--embeddings'), dest='embedding', action='store_true',
         help="serve llama.cpp models for embeddings only (llama-server's flag); a chat model also needs --pooling",
         doc='serve llama.cpp models for embeddings only, as llama-server does; a chat model then needs '
             '`--pooling` (see [embeddings.md](embeddings.md))'),
    Flag(('--pooling',), choices=('mean', 'cls', 'last'),
         help="pooling of embedding models (default: the GGUF's)",
         doc='pooling of embedding models: `mean`, `cls` or `last`',
         shown="the GGUF's"),
    Flag(('--audio-concurrency',), type=positive_int,
         help='transcriptions run at once per Whisper model; more wait their turn',
         doc='transcriptions running at once per Whisper model; more wait their turn (see [audio.md](audio.md))'),
    Flag(('--audio-threads',), type=int,
         help='CPU threads per transcription (0: all cores)',
         doc='CPU threads one transcription uses; `0` uses every core'),
    Flag(('--lora-dir',), type=Path, metavar='DIR',
         help='adapters directory: POST /v1/lora/load may name GGUF LoRA adapters under it',
         doc='adapters directory: `POST /v1/lora/load` may name GGUF LoRA adapters under it, and nothing outside '
             'it (see [lora.md](lora.md))'),
    Flag(('--lora',), field=None, action='append', metavar='FNAME',
         help='apply this GGUF LoRA adapter to the default model at scale 1 (repeatable)',
         doc='apply this GGUF LoRA adapter to the default model at scale 1 from start-up (repeatable)'),
    Flag(('--lora-scaled',), field=None, action=ScaledLora, nargs=2, metavar=('FNAME', 'SCALE'),
         help='apply this GGUF LoRA adapter to the default model at SCALE (repeatable)',
         doc='the same at scale `SCALE` (repeatable)'),
    Flag(('--lora-init-without-apply',), action='store_true',
         help='load the --lora adapters at start-up but apply them only when POST /v1/lora/load asks',
         doc='load the start-up adapters without applying them; `POST /v1/lora/load` applies one later'),
    Flag(('--log-level',), choices=('debug', 'info', 'warning', 'error'),
         help='log level; warning silences the access log',
         doc='`warning` silences the access log'),
    Flag(('--max-json-depth',), type=positive_int,
         help='deepest nesting of arrays and objects in a request body; deeper is a 400'),
    Flag(('--prepare-workers',), type=positive_int,
         help='threads that parse, template, tokenize and compile grammars for big requests, and as many processes '
              'that validate their bodies',
         doc='worker threads that parse, template, tokenize and compile grammars for big requests (small ones stay '
             'on the event loop), and as many worker processes that validate big bodies '
             '([limits.md](limits.md#big-requests-and-the-event-loop))'),
    Flag(('--max-connections',), type=positive_int,
         help='open connections; over it the longest-idle one closes, or 503 when none is idle',
         doc='open client connections; at the cap the longest-idle one is closed for a newcomer, and with none '
             'idle the newcomer gets 503 (logged)'),
    Flag(('--max-header-count',), type=positive_int,
         help='header fields in a request; more is a 431'),
    Flag(('--max-header-bytes',), type=positive_int,
         help='bytes in a request line and headers; more is a 431',
         doc='bytes in a request line and its headers; more is a 431'),
    Flag(('--timeout-headers',), field='timeout_headers_s', type=positive_float, metavar='SEC',
         help='seconds to send a whole request head; later is a 408',
         doc='time to send a whole request head; later is a 408 (a silent connection just closes)'),
    Flag(('--timeout-body',), field='timeout_body_s', type=positive_float, metavar='SEC',
         help='seconds a request body may go without a byte; longer is a 408',
         doc='time a request body may go without a byte; longer is a 408'),
    Flag(('--timeout-keep-alive',), field='timeout_keep_alive_s', type=positive_int, metavar='SEC',
         help='seconds an idle keep-alive connection stays open',
         doc='how long an idle keep-alive connection stays open'),
    Flag(('--sessions',), field='sessions_dir', type=Path, metavar='DIR',
         help='directory for durable state (stored responses); default: $XDG_DATA_HOME/superfluid/sessions or the '
              "platform's user data directory",
         doc='durable state: the SQLite database of stored responses; created at start-up, exit status 2 if it '
             'cannot be',
         shown='`$XDG_DATA_HOME/superfluid/sessions` (Linux; see [responses.md](responses.md#storage))'),
    Flag(('--responses-max-age',), field='responses_max_age_s', type=duration, metavar='AGE',
         help='remove stored responses older than this (e.g. 3600, 90m, 12h, 30d; 0: keep; default 30d)',
         doc='stored responses older than this are removed (`3600`, `90m`, `12h`, `30d`; `0` keeps them)',
         shown='`30d`'),
    Flag(('--responses-max-bytes',), type=size, metavar='SIZE',
         help='keep stored responses under this size, removing the oldest first (e.g. 512M, 2G; 0: no bound; '
              'default 1G)',
         doc='stored responses are kept under this size, the oldest removed first (`512M`, `2G`; `0`: no bound)',
         shown='`1G`'),
    Flag(('--files-max-bytes',), type=size, metavar='SIZE',
         help='most bytes of uploaded files the store holds; an upload past it is a 413 files_quota_exceeded (e.g. '
              '512M, 20G; 0: no bound; default 10G)',
         doc='uploaded files (`/v1/files`) are kept under this size; an upload that does not fit is a 413 '
             '`files_quota_exceeded` (`0`: no bound); see [files-and-batches.md](files-and-batches.md)',
         shown='`10G`'),
    Flag(('--files-expiry',), field='files_expiry_s', type=duration, metavar='AGE',
         help="remove uploaded files this long after their upload unless the upload's expires_after says otherwise "
              '(e.g. 12h, 30d; 0: keep; default 30d)',
         doc="uploaded files are removed this long after upload unless the upload's `expires_after` says otherwise "
             '(`0` keeps them)',
         shown='`30d`'),
    Flag(('--state',), field='state_url', metavar='URL',
         help='keep durable state on this PostgreSQL server (postgresql://USER@HOST/DB; needs superfluid[fleet]) '
              "instead of SQLite in --sessions: what a fleet's replicas share",
         doc='durable state on a PostgreSQL server (`postgresql://USER@HOST/DB`; needs `superfluid[fleet]`), what '
             "a fleet's replicas share ([fleet.md](fleet.md#state-backends))",
         shown='none (SQLite in `--sessions`)'),
    Flag(('--models',), dest='models_file', type=Path, metavar='FILE', section='team',
         help='TOML/YAML/JSON file of known models (alias, ctx_size, parallel, idle_timeout, eager)',
         doc='TOML/YAML/JSON file of known models, each with `alias`, `ctx_size`, `kv_size`, `parallel`, '
             '`idle_timeout`, `eager`; after any command-line models (the first model overall is the default)'),
    Flag(('--idle-timeout',), field='idle_timeout_s', type=float, metavar='SEC', section='team',
         help='unload a model unused this long (0: never)',
         doc='unload a model unused this long (`0`: never); a models-file entry may set its own'),
    Flag(('--models-max',), type=int, metavar='N', section='team',
         help='most models loaded at once; the least recently used unloads first (0: no limit)',
         doc='most models loaded at once; loading one more unloads the least recently used first (`0`: no limit)'),
    Flag(('--api-key-file',), type=Path, metavar='FILE', section='team',
         help='admin keys, one per line (the recommended way: keys stay out of the process list)',
         doc='admin keys, one per line; **the recommended way to give keys** (reloaded on SIGHUP)'),
    Flag(('--key-policy',), type=Path, metavar='FILE', section='team',
         help='keys with roles, concurrency, rate, QoS ceiling and model allow-list; reloaded on SIGHUP',
         doc='keys with a role (admin, user), `max_concurrent`, `rate`/`burst`, `qos_ceiling` and a `models` '
             'allow-list; reloaded on SIGHUP'),
    Flag(('--rate-limit',), type=rate, metavar='N/s', section='team',
         help='requests per client address, e.g. 10/s or 600/m (429 rate_limit_exceeded)',
         doc='requests per client address (`/s`, `/m`, `/h`); over it, 429 `rate_limit_exceeded` with `Retry-After`',
         shown='off'),
    Flag(('--rate-limit-burst',), type=int, metavar='N', section='team',
         help="requests a client address may make at once (default: one second's worth)",
         doc='requests a client address may make at once before the rate applies',
         shown="one second's worth"),
    Flag(('--cors-origin',), field='cors_origins', action='append', convert=tuple, metavar='ORIGIN', section='team',
         help='allow this browser origin (repeatable; * allows any); CORS is off without it',
         doc='allow this browser origin, preflights included; repeatable; `*` allows any',
         shown='none (CORS off)'),
    Flag(('--web',), metavar='HOST:PORT', section='team',
         help='open the loopback-only web listener here: the session API and the chat page (docs/web.md); its '
              'address, with a per-launch token, is printed at start-up',
         doc='open the loopback-only web listener: the session API and the chat page (docs/web.md); prints the '
             "page's address with a per-launch token",
         shown='off'),
    Flag(('--web-key',), metavar='ID', section='team',
         help="with API keys: the id of the key whose models, limits and data the web listener's sessions use",
         doc='with API keys: the key whose models, limits and data the web sessions use (required then)'),
    Flag(('--log-format',), choices=tuple(LOG_FORMATS), section='team',
         help='every log line, the access log included, as text or one JSON object',
         doc='every log line, the access log included, as text or as one JSON object'),
    Flag(('--nonstream-keepalive',), field='nonstream_keepalive_s', type=float, metavar='SEC', section='team',
         help='non-streaming generations commit 200 at admission and send a space every SEC',
         doc='non-streaming chat and completions commit 200 at admission and send a space every SEC until the JSON '
             'body (`x-superfluid-keepalive: whitespace`)',
         shown='off'),
)


def add_serve_flags(serve: argparse.ArgumentParser) -> None:
    """Every flag of ``serve`` (and its MODEL arguments) on ``serve``."""
    serve.add_argument("models", nargs="*", metavar="MODEL",
                       help=f"bundled id, path to a .gguf, or owner/repo[:QUANT] (default without --models: "
                            f"{DEFAULT_MODEL} and the bundled embedding and Whisper models); the first is the "
                            "default model")
    groups: dict[str, argparse._ArgumentGroup] = {}
    for flag in FLAGS:
        if flag.group is not None and flag.group not in groups:
            groups[flag.group] = serve.add_argument_group(flag.group)
        flag.add_to(groups[flag.group] if flag.group is not None else serve)


def serve_parser(prog: str = "superfluid serve") -> argparse.ArgumentParser:
    """A parser of ``serve``'s flags alone (what ``fleet`` hands its replicas)."""
    parser = argparse.ArgumentParser(prog=prog)
    add_serve_flags(parser)
    return parser


def _environment_keys() -> tuple[str, ...]:
    """SUPERFLUID_API_KEY: one more admin key, kept out of the process list."""
    key = os.environ.get(API_KEY_ENV, "").strip()
    return (key,) if key else ()


def _offload(args: argparse.Namespace) -> OffloadSettings:
    """The offload flags given, over the defaults (each was checked as it was read)."""
    fields: dict[str, Any] = {key: getattr(args, key, None) for key in OFFLOAD_FIELDS}
    if fields["override_tensor"] is not None:
        fields["override_tensor"] = ",".join(fields["override_tensor"])
    return offload_from(OffloadSettings(), fields)


def settings_from(args: argparse.Namespace) -> Settings:
    """The Settings of parsed ``serve`` flags: each flag's field, then the fields several flags make together."""
    values = {flag.setting: flag.value(args) for flag in FLAGS if flag.setting is not None}
    sampling = [flag for flag in FLAGS if flag.key.startswith("sampling_")]
    return Settings(
        **values,
        models=tuple(args.models) or (() if args.models_file else default_references()),
        sampling=tuple((flag.key.removeprefix("sampling_"), getattr(args, flag.key)) for flag in sampling
                       if getattr(args, flag.key) is not None),
        offload=_offload(args),
        api_keys=(*args.api_key, *_environment_keys()),
        lora=tuple((name, 1.0) for name in args.lora) + tuple(args.lora_scaled),
    )


# ---- docs/cli.md ----------------------------------------------------------------------------------------------

_TABLE = "| flag | default | meaning |\n| --- | --- | --- |\n"


def table(section: str) -> str:
    """docs/cli.md's table of one section's flags."""
    return _TABLE + "\n".join(flag.row() for flag in FLAGS if flag.section == section) + "\n"


def documented(text: str) -> str:
    """``text`` (docs/cli.md) with each generated table, between its markers, written from the table."""
    for section in sorted({flag.section for flag in FLAGS}):
        start, end = f"<!-- flags: {section} -->\n", f"<!-- /flags: {section} -->"
        head, found, rest = text.partition(start)
        _, closed, tail = rest.partition(end)
        if not (found and closed):
            raise ValueError(f"docs/cli.md has no {start.strip()} ... {end} markers")
        text = head + start + table(section) + end + tail
    return text


def main(argv: Sequence[str]) -> int:
    """``python -m superfluid.flags [--write]``: check docs/cli.md's tables against the flags, or rewrite them."""
    current = DOCS.read_text(encoding="utf-8")
    wanted = documented(current)
    if "--write" in argv:
        DOCS.write_text(wanted, encoding="utf-8")
        return 0
    if wanted != current:
        print("docs/cli.md is stale: python -m superfluid.flags --write", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
