"""One typed settings object for the whole server; the CLI's flags map onto its fields one to one."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from superfluid.paths import default_sessions_dir

DEFAULT_PORT = 8453
MAX_BODY_BYTES = 100 * 1024 * 1024
FLASH_ATTN_CHOICES = ("auto", "on", "off")

KvOverride = tuple[str, str, str]
"""One GGUF metadata override: (key, type, value), type one of int, float, bool, str (llama-server's
``--override-kv KEY=TYPE:VALUE``)."""

OVERRIDE_TYPES = ("int", "float", "bool", "str")


def parse_override(text: str) -> KvOverride:
    """``KEY=TYPE:VALUE`` -> (key, type, value); ValueError says what is wrong."""
    key, eq, rest = text.partition("=")
    kind, colon, value = rest.partition(":")
    if not eq or not colon or not key:
        raise ValueError(f"expected KEY=TYPE:VALUE, got '{text}'")
    if kind not in OVERRIDE_TYPES:
        raise ValueError(f"type must be one of {', '.join(OVERRIDE_TYPES)}; got '{kind}' in '{text}'")
    if len(key.encode()) >= 128 or (kind == "str" and len(value.encode()) >= 128):
        raise ValueError(f"keys and string values are limited to 127 bytes: '{text}'")
    try:
        if kind == "int":
            int(value)
        elif kind == "float":
            float(value)
        elif kind == "bool" and value not in ("true", "false"):
            raise ValueError
    except ValueError:
        raise ValueError(f"'{value}' is not a {kind} in '{text}'") from None
    return key, kind, value


_DURATION_UNITS = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}
_SIZE_UNITS = {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3, "t": 1024**4}


def _with_unit(text: str, units: dict[str, int], what: str, *, suffixes: tuple[str, ...] = ()) -> float:
    """A non-negative number with an optional one-letter unit (then any of ``suffixes``), times the unit."""
    raw = text.strip().lower()
    for suffix in suffixes:
        raw = raw.removesuffix(suffix)
    unit = raw[-1:] if raw[-1:].isalpha() else ""
    try:
        if unit not in units:
            raise ValueError
        value = float(raw[: len(raw) - len(unit)])
    except ValueError:
        raise ValueError(f"expected {what}; got '{text}'") from None
    if value < 0:
        raise ValueError(f"{what.split(' such as')[0]} cannot be negative: '{text}'")
    return value * units[unit]


def parse_duration(text: str) -> float:
    """``90``, ``90s``, ``15m``, ``12h``, ``30d`` -> seconds; ValueError says what is wrong."""
    return _with_unit(text, _DURATION_UNITS, "a duration such as 3600, 90m, 12h or 30d")


def parse_size(text: str) -> int:
    """``1048576``, ``512K``, ``256M``, ``2G`` (powers of 1024; a trailing ``B``/``iB`` is allowed) -> bytes."""
    return int(_with_unit(text, _SIZE_UNITS, "a size such as 1048576, 512M or 2G", suffixes=("ib", "b")))


@dataclass(frozen=True)
class OffloadSettings:
    """Where a llama.cpp model's layers go: llama-server's offload flags (docs/models.md, "GPU offload")."""

    gpu_layers: str = "auto"
    """``-ngl``: ``auto`` (as many as fit the devices' free memory less ``fit_target_mib``), ``all``, or a count."""
    devices: tuple[str, ...] | None = None
    """``--device``: the devices to offload to, by name; None: every GPU llama.cpp found; (): none."""
    split_mode: str = "layer"
    """``--split-mode``: none (one device, ``main_gpu``), layer (layers spread over the devices) or row."""
    tensor_split: tuple[float, ...] = ()
    """``--tensor-split``: each device's share of the layers (default: in proportion to its free memory)."""
    main_gpu: int = 0
    kv_offload: bool = True
    """False (``--no-kv-offload``): the KV cells stay in host memory."""
    override_tensor: tuple[tuple[str, str], ...] = ()
    """``--override-tensor``: (tensor name pattern, buffer type) pairs, e.g. ``("ffn_.*_exps", "CPU")``."""
    cpu_moe: bool = False
    """``--cpu-moe``: every expert weight of a mixture-of-experts model in host memory."""
    n_cpu_moe: int = 0
    """``--n-cpu-moe``: the expert weights of the first N layers in host memory."""
    fit_target_mib: int = 1024
    """``--fit-target``: MiB ``auto`` leaves free on each device."""


@dataclass(frozen=True)
class Settings:
    """Everything `superfluid serve` can be told. Immutable: build a new one to change it."""

    models: tuple[str, ...] = ("smollm2-135m-instruct",)
    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    ctx_size: int = 0
    """Context window in tokens; 0 takes the model's training context."""
    kv_size: int = 0
    """Cells in the KV pool of all lanes together; 0 makes it the context window."""
    kv_unified: bool = False
    """Keep one pool all lanes share even when it holds a full window per lane (else each lane gets a stream)."""
    kv_disk_bytes: int = 4 * 1024**3
    """The prefix cache's disk tier: most bytes of saved KV cells per model under <sessions>/kv/ (0: off)."""
    kv_disk_min_tokens: int = 256
    cache_ram_bytes: int = 8192 * 1024**2
    """The prefix cache's RAM tier: most bytes of saved lanes kept in memory per model (0: off; negative: no
    bound); --cache-ram, llama-server's flag, in MiB."""
    """Fewest cached tokens of a lane worth saving to the disk tier."""
    threads: int = 0
    """llama.cpp threads; 0 uses every core the process may run on."""
    parallel: int = 4
    """Lanes: sequences decoded together on one llama.cpp context."""
    batch_size: int = 512
    """Most prompt tokens decoded in one engine tick."""
    flash_attn: str = "auto"
    """llama.cpp's flash attention: ``on``, ``off``, or ``auto`` (off for a chat model whose lanes attend only to
    their own KV cells, where it makes decoding past a few hundred tokens of context 2-3x slower; llama.cpp's own
    choice for a shared pool and for embedding models; see ``flash_attn_type`` in engine/models/llama_model.py)."""
    max_tokens: int | None = None
    """Server-wide cap on generated tokens when a request names none."""
    sampling: tuple[tuple[str, float], ...] = ()
    """The operator's sampling defaults (--temp, --top-k, --top-p, --min-p), over each generation model's own
    for every request that names none of them, batch lines excepted (they keep the model's)."""
    chat_template: str | None = None
    """Built-in template name (chatml, gemma, llama3, ...) overriding the model's."""
    chat_template_file: Path | None = None
    alias: str | None = None
    """Public id for the first model instead of the derived one."""
    keepalive_s: float = 15.0
    """Seconds between SSE keep-alive comment lines on a quiet stream."""
    max_body_bytes: int = MAX_BODY_BYTES
    hf_cache: Path | None = None
    """Hugging Face hub cache to resolve owner/repo references from; None reads HF_HUB_CACHE/HF_HOME."""
    preload: tuple[str, ...] = field(default_factory=tuple)
    """Model ids loaded at start-up besides the first."""
    log_level: str = "info"
    queue_size: int = 256
    """Most requests waiting for a lane, per model; beyond it a request is a 429."""
    completion_deadline_ms: int | None = None
    """Completion-class (FIM) replies still running after this long are cut short (expired)."""
    completion_burst: int = 20
    completion_rate: float = 10.0
    """Per-client token bucket for fill-in-the-middle requests: burst size and refill per second."""
    fim_model: str | None = None
    """The served model that answers fill-in-the-middle requests sent to a model without FIM tokens."""
    spec_draft: int = 4
    """Most prompt-lookup draft tokens verified per decode while few lanes are busy; 0 turns drafting off."""
    ctx_checkpoints: int = 32
    """Recurrent and hybrid models: most checkpoints of recurrent state a lane keeps (0: none; engine/scheduling/
    checkpoints.py)."""
    checkpoint_min_step: int = 8192
    """Recurrent and hybrid models: tokens between the checkpoints a long prefill saves."""
    gather_ms: float = 0.0
    """Most an idle engine's first decode waits for requests still on their way (a burst), in ms; 0: never (the
    default: on a CPU a prefill decode's cost grows with its rows, so the wait bought nothing; docs/scheduling.md)."""
    switch_interval_ms: float = 0.5
    """Python's GIL switch interval (sys.setswitchinterval), set at start: how long the engine thread can wait
    for the GIL while another thread runs Python (docs/performance.md)."""
    offload: OffloadSettings = field(default_factory=OffloadSettings)
    """Where each llama.cpp generation model's layers go (per model in the models file and admin loads)."""
    override_kv: tuple[KvOverride, ...] = field(default_factory=tuple)
    """GGUF metadata overrides (key, int|float|bool|str, value) applied to every model this server loads."""
    allow_batch_invariant: bool = False
    """Honour x-superfluid-batch-invariant (--http-allow-batch-invariant)."""

    # ---- limits against hostile or oversized input (docs/limits.md) ----
    max_json_depth: int = 128
    """Deepest nesting of arrays and objects a request body may have; deeper is a 400."""
    prepare_workers: int = 1
    """Worker threads that parse, validate, template, tokenize and compile grammars for big requests."""
    max_connections: int = 1024
    """Open client connections; at the cap the longest-idle one is closed, and with none idle a new one gets 503."""
    max_header_count: int = 100
    max_header_bytes: int = 64 * 1024
    """Request head limits (request line and headers); over either, 431."""
    timeout_headers_s: float = 30.0
    """Seconds a client has to send a complete request head, from connecting or from its first byte."""
    timeout_body_s: float = 30.0
    """Seconds a request body may go without a new byte while the server waits for it."""
    timeout_keep_alive_s: int = 5
    """Seconds an idle keep-alive connection stays open between requests."""

    # ---- operating for a team: models, keys and limits, observability (docs/operations.md, security.md) ----
    models_file: Path | None = None
    """TOML/YAML/JSON file of models known at start, each with alias, context, lanes, idle timeout, eager."""
    idle_timeout_s: float = 0.0
    """Seconds unused after which a loaded model unloads (per model in the models file); 0: never."""
    models_max: int = 0
    """Most models loaded at once; loading one more unloads the least recently used. 0: no limit."""
    api_keys: tuple[str, ...] = ()
    """Admin keys without limits (--api-key, SUPERFLUID_API_KEY)."""
    api_key_file: Path | None = None
    """A file of admin keys, one per line (reloaded on SIGHUP)."""
    key_policy: Path | None = None
    """A file of keys with roles and limits (reloaded on SIGHUP)."""
    rate_limit: float = 0.0
    """Requests per second per client address; 0: no limit."""
    rate_limit_burst: int = 0
    """Requests a client address may make at once before the rate applies; 0: one second's worth."""
    cors_origins: tuple[str, ...] = ()
    """Browser origins allowed to call the API (CORS); empty: CORS off."""
    web: str | None = None
    """HOST:PORT of the loopback web listener (the session API and the chat page, docs/web.md); None: off."""
    web_key: str | None = None
    """The id of the key the web listener's sessions act as; needed when the server has keys."""
    log_format: str = "text"
    """text or json, for every log line, the access log included."""
    nonstream_keepalive_s: float | None = None
    """Commit 200 at admission and pad non-streaming replies with a space this often; None: off."""

    # ---- durable state (docs/responses.md#storage) ----
    sessions_dir: Path | None = None
    """Where durable state lives (the SQLite database of stored responses); None: the user's data directory."""
    responses_max_age_s: float = 30 * 86400.0
    """Stored responses older than this are removed; 0 keeps them for ever."""
    responses_max_bytes: int = 1024**3
    """Stored responses past this many bytes are removed, oldest first; 0 means no bound."""
    files_max_bytes: int = 10 * 1024**3
    """Most bytes of uploaded files (--files-max-bytes); an upload past it is a 413; 0 means no bound."""
    files_expiry_s: float = 30 * 86400.0
    """Uploaded files are removed this long after upload unless they say otherwise (--files-expiry); 0: kept."""
    state_url: str | None = None
    """A postgresql:// URL: durable state on that server (what a fleet's replicas share); None: SQLite."""

    # ---- embeddings and speech (docs/embeddings.md, docs/audio.md) ----
    embedding: bool = False
    """Serve llama.cpp models for embeddings only, as llama-server's --embedding does."""
    pooling: str | None = None
    """Pooling of embedding models: mean, cls or last; None takes the GGUF's (--pooling)."""
    audio_concurrency: int = 1
    """Transcriptions run at once per Whisper model, each on a worker thread; more wait their turn."""
    audio_threads: int = 0
    """CPU threads one transcription uses (CTranslate2 intra_threads); 0 uses every core."""

    # ---- LoRA adapters (docs/lora.md) ----
    lora_dir: Path | None = None
    """Adapters directory: POST /v1/lora/load may name any GGUF file under it, and nothing outside it."""
    lora: tuple[tuple[str, float], ...] = field(default_factory=tuple)
    """Adapters named at start-up (--lora FNAME, --lora-scaled FNAME SCALE), applied to the default model."""
    lora_init_without_apply: bool = False
    """Load the start-up adapters but apply none of them until POST /v1/lora/load names one."""

    def sessions_path(self) -> Path:
        """The sessions directory: --sessions, or the platform's default (superfluid/paths.py). The state store,
        the prefix cache's disk tier and the CLI are all handed this one path."""
        return self.sessions_dir or default_sessions_dir()
