"""A loaded GGUF model and its llama.cpp context: metadata (read by :mod:`.model_metadata`), tokenizer and raw
decode access."""

from __future__ import annotations

import ctypes
import functools
import logging
import os
import threading
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar

import llama_cpp

from superfluid.engine.models.amx import extra_buffers_usable
from superfluid.engine.models.devices import backend_devices
from superfluid.engine.models.model_metadata import ModelMetadata, read_metadata, token_text
from superfluid.engine.models.offload import (
    ALL,
    DeviceBook,
    Fit,
    OffloadParams,
    Placement,
    chosen_devices,
    estimate,
    fit,
    layer_devices,
    model_shape,
    placement,
)
from superfluid.engine.models.placement_log import capture
from superfluid.engine.models.special_split import PART_CHARS, SpecialSplitter
from superfluid.errors import DeviceMemoryExceeded, EngineFailure, UnknownDevice
from superfluid.settings import KvOverride, OffloadSettings, Settings

T = TypeVar("T")

log = logging.getLogger(__name__)

BACKEND_VERSION: str = llama_cpp.__version__

# llama-cpp-python's import installs a log callback that prints every llama.cpp line; keep errors only.
logging.getLogger("llama-cpp-python").setLevel(logging.ERROR)


_OVERRIDE_TAGS = {"int": llama_cpp.LLAMA_KV_OVERRIDE_TYPE_INT, "float": llama_cpp.LLAMA_KV_OVERRIDE_TYPE_FLOAT,
                  "bool": llama_cpp.LLAMA_KV_OVERRIDE_TYPE_BOOL, "str": llama_cpp.LLAMA_KV_OVERRIDE_TYPE_STR}


def _override_array(overrides: tuple[KvOverride, ...]) -> ctypes.Array[llama_cpp.llama_model_kv_override]:
    """The C array llama.cpp reads: one entry per override, then one with an empty key."""
    array = (llama_cpp.llama_model_kv_override * (len(overrides) + 1))()
    for entry, (key, kind, value) in zip(array, overrides, strict=False):
        entry.tag = _OVERRIDE_TAGS[kind]
        entry.key = key.encode()
        if kind == "int":
            entry.value.val_i64 = int(value)
        elif kind == "float":
            entry.value.val_f64 = float(value)
        elif kind == "bool":
            entry.value.val_bool = value == "true"
        else:
            entry.value.val_str = value.encode()
    return array


def _load(path: Path, *, vocab_only: bool, overrides: tuple[KvOverride, ...] = (),
          offload: Callable[[Any], None] | None = None) -> llama_cpp.llama_model_p:
    """Load ``path``; ``offload`` sets the model parameters' devices and layers (none: every layer on the CPU)."""
    llama_cpp.llama_backend_init()
    mparams = llama_cpp.llama_model_default_params()
    mparams.n_gpu_layers = 0
    mparams.vocab_only = vocab_only
    if offload is not None:
        offload(mparams)
    if not vocab_only and not extra_buffers_usable():
        mparams.use_extra_bufts = False  # a build whose AMX kernels fault (see amx.py)
    if overrides:
        array = _override_array(overrides)  # llama.cpp reads it during the load only
        mparams.kv_overrides = ctypes.cast(array, ctypes.POINTER(llama_cpp.llama_model_kv_override))
    if not vocab_only:
        progress = _progress_logger(path)  # kept referenced until the load returns
        mparams.progress_callback = progress
    model = _in_passing_thread(lambda: llama_cpp.llama_model_load_from_file(str(path).encode(), mparams))
    if not model:
        raise EngineFailure(f"llama.cpp could not load {path}")
    return model  # type: ignore[no-any-return]


def _in_passing_thread(load: Callable[[], T]) -> T:
    """Run a model load in a thread that ends with it.

    With the extra buffer types llama.cpp converts the weights in an OpenMP parallel region, and libgomp keeps a
    pool of worker threads for every thread that ever opened one, for as long as that thread lives. A second pool
    (the engine thread's) then makes more OpenMP threads than cores on a small machine, and libgomp cuts its
    spin-wait to a hundred spins: every decode waits on futexes. Measured on 2 cores with the AMX kernels: 34
    tok/s decoding after a load on the long-lived main thread, 200 tok/s after a load in a thread that ended
    (docs/performance.md). A pool goes with its thread."""
    box: list[T] = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            box.append(load())
        except BaseException as exc:  # handed to the caller's thread
            errors.append(exc)

    thread = threading.Thread(target=run, name="model-load")
    thread.start()
    thread.join()
    if errors:
        raise errors[0]
    return box[0]


def _progress_logger(path: Path) -> object:
    """llama.cpp's load progress callback: a log line at each quarter of the weights read."""
    reported = [0]

    def report(progress: float, _user_data: object) -> bool:
        quarter = int(progress * 4)
        if quarter > reported[0]:
            reported[0] = quarter
            log.info("loading %s: %d%%", path.name, quarter * 25)
        return True

    return llama_cpp.llama_progress_callback(report)


def probe_metadata(path: Path, overrides: tuple[KvOverride, ...] = ()) -> ModelMetadata:
    """Read a GGUF's metadata and vocabulary without loading its weights."""
    model = _load(path, vocab_only=True, overrides=overrides)
    try:
        return read_metadata(model, path)
    finally:
        llama_cpp.llama_model_free(model)


def context_window(requested: int, n_ctx_train: int) -> int:
    """The window a model is served with: --ctx-size, else its training context capped at 8192."""
    return requested if requested > 0 else min(n_ctx_train, 8192)



def shared_kv_pool(forced: bool, n_seq_max: int, kv_size: int, window: int) -> bool:
    """Whether lanes share one KV pool (llama.cpp's ``kv_unified``) rather than each having a stream of cells, as
    llama-server lays out its slots. A lane's attention spans every cell up to the highest one in use in its
    pool, its own or not, so in a shared pool the caches other lanes keep slow every decode and prefill
    (docs/scheduling.md, "KV layout"). When the pool holds a full window for every lane anyway, each lane gets
    its own stream; a smaller pool (the default: one window for all) must be shared, and ``forced`` shares it
    whatever its size."""
    return forced or n_seq_max == 1 or max(kv_size, window) < n_seq_max * window


def lanes_own_their_cells(unified: bool, n_seq_max: int) -> bool:
    """Whether each lane attends only to KV cells of its own: a stream per lane, or a single lane in its pool (see
    shared_kv_pool for ``unified``)."""
    return not unified or n_seq_max == 1


def flash_attn_type(choice: str, *, generation: bool, own_cells: bool, offloaded: bool = False) -> int:
    """llama.cpp's flash attention setting for ``--flash-attn`` ``choice`` (auto, on, off).

    With layers on a GPU (``offloaded``), ``auto`` is llama.cpp's own choice for that backend: its GPU kernels
    are the fast path there, and the CPU kernel's slowdown below does not apply.

    ``auto`` turns it off for a chat model whose lanes attend only to cells of their own: a KV stream per lane,
    or a single lane. superfluid runs every layer on the CPU (it offloads none, even from a GPU build), and
    llama.cpp's CPU flash attention kernel decodes one token at a time far slower once the context grows: on the
    bundled model, 2 cores, llama-bench tg64 falls from 211 to 140 tok/s at 128 tokens of context, 60 at 512 and
    28 at 2,000, where without it the figures are 160, 167, 113 and 64 (docs/performance.md, "Flash attention").
    A conversation served warm from the prefix cache decodes at that depth. What off costs: the cold prefill of a
    long prompt (about 1.3x slower at 3,000 tokens) and a few percent at contexts under ~150 tokens.

    In a KV pool the lanes share, a lane attends up to the highest cell any lane uses. The flash attention kernel
    skips the cells masked out for it; without it they are computed densely, so a short chat in one lane slows
    to the speed of the longest cache another lane keeps: 37 instead of ~110 tok/s beside a 3,070-token cache,
    where with it on 88. There ``auto`` keeps llama.cpp's choice, as it does for embedding models, which only
    prefill.
    """
    if choice == "on":
        return int(llama_cpp.LLAMA_FLASH_ATTN_TYPE_ENABLED)
    if choice == "off" or (choice == "auto" and generation and own_cells and not offloaded):
        return int(llama_cpp.LLAMA_FLASH_ATTN_TYPE_DISABLED)
    if choice != "auto":
        raise ValueError(f"--flash-attn must be one of auto, on, off, not {choice!r}")
    return int(llama_cpp.LLAMA_FLASH_ATTN_TYPE_AUTO)


def flash_attn_name(kind: int) -> str:
    """``on``, ``off`` or ``auto`` (llama.cpp decides) for a ``LLAMA_FLASH_ATTN_TYPE_*`` value."""
    return {int(llama_cpp.LLAMA_FLASH_ATTN_TYPE_ENABLED): "on",
            int(llama_cpp.LLAMA_FLASH_ATTN_TYPE_DISABLED): "off"}.get(kind, "auto")


def flash_attention(choice: str, *, generation: bool = True, own_cells: bool = True, offloaded: bool = False) -> str:
    """What a model's contexts ask for under ``choice``, by name (``flash_attn_name``)."""
    return flash_attn_name(flash_attn_type(choice, generation=generation, own_cells=own_cells, offloaded=offloaded))


MEMORY_KINDS = ("attention", "sliding", "recurrent", "hybrid")
"""What a model's sequence memory is: attention KV cells only, attention with sliding-window layers, recurrent state
only (Mamba, RWKV), or recurrent layers beside attention ones (LFM2, Granite 4.0-H, Qwen3-Next...)."""


def memory_kind(model: llama_cpp.llama_model_p) -> str:
    """One of ``MEMORY_KINDS``, as llama.cpp reports the model's architecture."""
    if llama_cpp.llama_model_is_hybrid(model):
        return "hybrid"
    if llama_cpp.llama_model_is_recurrent(model):
        return "recurrent"
    return "sliding" if int(llama_cpp.llama_model_n_swa(model)) > 0 else "attention"


def rolls_back(kind: str) -> bool:
    """Whether a sequence of this memory can be cut back to any earlier token. Attention cells can (a sliding
    window too: superfluid keeps llama.cpp's full-size window cache); a recurrent state holds only the sequence's
    end, so it can be taken back only to a checkpoint saved earlier (engine/scheduling/checkpoints.py)."""
    return kind in ("attention", "sliding")


def offload_problem(path: Path, settings: Settings) -> str | None:
    """What stops ``path`` loading under ``settings``' offload flags on this machine (an unknown device, a layer
    count that cannot fit), in one line, or None; read from the GGUF's header and the devices, nothing loaded."""
    try:
        shape = model_shape(path)
        window = context_window(settings.ctx_size, shape.n_ctx_train)
        fit(settings.offload, shape, backend_devices(), {}, cells=max(settings.kv_size, window),
            n_ubatch=max(settings.batch_size, 1))
    except (DeviceMemoryExceeded, UnknownDevice) as exc:
        return exc.message
    return None


def device_need(path: Path, settings: Settings) -> dict[str, int]:
    """Bytes ``path`` would take on each offload device with the layers its flags ask for (``auto``: all of them),
    whatever is free now: what a server with several models makes room for before loading it."""
    offload = settings.offload
    if offload.gpu_layers == "auto":
        offload = replace(offload, gpu_layers="all")
    shape = model_shape(path)
    devices = chosen_devices(offload, backend_devices())
    if not devices or offload.gpu_layers == "0":
        return {}
    placed = layer_devices(shape.n_layer, ALL if offload.gpu_layers == "all" else int(offload.gpu_layers), devices,
                           offload.tensor_split)
    window = context_window(settings.ctx_size, shape.n_ctx_train)
    return estimate(shape, placed, cells=max(settings.kv_size, window), n_ubatch=max(settings.batch_size, 1),
                    kv_offload=offload.kv_offload)


CPU_ONLY = Fit(0, (), {}, "0", "every layer on the CPU")
"""The placement of a model loaded without offload settings (embedding models)."""


def _log_placement(path: Path, placed: Placement) -> None:
    """The start log's line about where a model went: layers, then each device's buffers."""
    mib = 1024 * 1024
    parts = [f"{u.device}: weights {u.weights / mib:.1f} MiB, KV {u.kv / mib:.1f} MiB, compute "
             f"{u.compute / mib:.1f} MiB" for u in placed.devices]
    log.info("%s: %d of %d layers offloaded (%s); %s", path.name, placed.layers, placed.of, placed.note,
             "; ".join(parts))


class LlamaModel:
    """Owns one llama_model and one llama_context. Decode calls must come from one thread at a time."""

    def __init__(self, path: Path, *, n_ctx: int, n_seq_max: int, n_batch: int, n_threads: int,
                 kv_size: int = 0, overrides: tuple[KvOverride, ...] = (), pooling: int | None = None,
                 kv_unified: bool = False, flash_attn: str = "auto", offload: OffloadSettings | None = None,
                 book: DeviceBook | None = None) -> None:
        """``offload``: where the layers go (None: every layer on the CPU, as for embedding models); ``book``: what
        the server's other models placed on each device, which this one's placement joins."""
        self.path = path
        self.pooling = pooling
        """None: a generation context; otherwise an embedding context with this llama.cpp pooling type
        (LLAMA_POOLING_TYPE_UNSPECIFIED takes the GGUF's)."""
        self.n_threads = n_threads if n_threads > 0 else max(1, len(os.sched_getaffinity(0)))
        self.n_batch = max(n_batch, 1)
        self.n_seq_max = max(n_seq_max, 1)
        self._contexts: list[llama_cpp.llama_context_p] = []
        self._book = book
        self._kv_offload = offload is None or offload.kv_offload
        shape = model_shape(path)
        self.window = context_window(n_ctx, shape.n_ctx_train)
        kv_size = max(kv_size, self.window)
        self.kv_unified = pooling is not None or shared_kv_pool(kv_unified, self.n_seq_max, kv_size, self.window)
        """One pool whose cells all lanes share, or (False) a stream of cells per lane (see shared_kv_pool)."""
        plan = fit(offload, shape, backend_devices(), book.used() if book else {}, cells=kv_size,
                   n_ubatch=self.n_batch) if offload is not None else CPU_ONLY
        self.flash_attn_type = flash_attn_type(flash_attn, generation=pooling is None,
                                               own_cells=lanes_own_their_cells(self.kv_unified, self.n_seq_max),
                                               offloaded=bool(plan.devices))
        """What this model's contexts ask llama.cpp for (``LLAMA_FLASH_ATTN_TYPE_*``)."""
        log.info("%s: flash attention %s (--flash-attn %s)", path.name, flash_attn_name(self.flash_attn_type),
                 flash_attn)
        params = OffloadParams()
        with capture() as placed:
            model = _load(path, vocab_only=False, overrides=overrides,
                          offload=lambda mparams: params.apply(mparams, plan, offload or OffloadSettings()))
            self.model = model
            try:
                self.ctx, self.memory = self.open_context(self.n_seq_max, kv_size, unified=self.kv_unified)
            except EngineFailure:
                llama_cpp.llama_model_free(model)
                raise
        self.placement = placement(placed, plan, shape.n_layer)
        """What llama.cpp placed on each device (offload.Placement)."""
        if book is not None:
            book.add(self, self.placement)
        _log_placement(path, self.placement)
        self.vocab = llama_cpp.llama_model_get_vocab(model)
        self.meta = read_metadata(model, path)
        self.n_ctx = self.window
        """The served window: the most tokens (prompt + reply) one sequence may hold."""
        self.kv_size = int(llama_cpp.llama_n_ctx(self.ctx))
        """Cells in the KV pool (all lanes together)."""
        self.n_swa = int(llama_cpp.llama_model_n_swa(model))
        """Tokens the sliding-window attention layers attend to (0: the model has none)."""
        self.memory_kind = memory_kind(model)
        """attention, sliding, recurrent or hybrid (``MEMORY_KINDS``)."""
        self.rollback = rolls_back(self.memory_kind)
        """A lane's cells can be cut back to any earlier token (False: recurrent state; see ``rolls_back``)."""
        self.bos_token = int(llama_cpp.llama_vocab_bos(self.vocab))
        self.eog_tokens = tuple(t for t in range(self.meta.n_vocab) if llama_cpp.llama_vocab_is_eog(self.vocab, t))
        self._eog = frozenset(self.eog_tokens)

    def open_context(self, n_seq_max: int, kv_size: int = 0, *, unified: bool = True) -> tuple[
            llama_cpp.llama_context_p, llama_cpp.llama_memory_t]:
        """A llama.cpp context over this model's weights: ``kv_size`` cells (the window by default) in one pool
        the sequences share, or (``unified`` False) split evenly into a stream of cells per sequence."""
        cparams = llama_cpp.llama_context_default_params()
        cparams.n_ctx = kv_size or self.window
        cparams.n_batch = self.n_batch
        cparams.n_ubatch = self.n_batch
        cparams.n_seq_max = n_seq_max
        cparams.n_threads = self.n_threads
        cparams.n_threads_batch = self.n_threads
        cparams.kv_unified = unified
        cparams.no_perf = True
        cparams.offload_kqv = self._kv_offload
        cparams.flash_attn_type = self.flash_attn_type
        if self.pooling is not None:
            cparams.embeddings = True
            cparams.pooling_type = self.pooling
        ctx = llama_cpp.llama_init_from_model(self.model, cparams)
        if not ctx:
            raise EngineFailure(f"llama.cpp could not create a context for {self.path}")
        self._contexts.append(ctx)
        return ctx, llama_cpp.llama_get_memory(ctx)

    def token_text(self, token: int) -> str:
        return token_text(self.vocab, token)

    def tokenize(self, text: str, *, add_special: bool, parse_special: bool,
                 stop_after: int | None = None) -> list[int]:
        """``text``'s tokens. A long text read for special tokens is tokenized in parts (engine/models/
        special_split.py), and with ``stop_after`` the count may stop early, once past that many tokens."""
        if add_special or not parse_special or len(text) <= 2 * PART_CHARS:
            return self._tokenize(text, add_special, parse_special)
        tokens: list[int] = []
        for part in self.splitter.parts(text):
            tokens += self._tokenize(part, False, True)
            if stop_after is not None and len(tokens) > stop_after:
                break
        return tokens

    @functools.cached_property
    def splitter(self) -> SpecialSplitter:
        """Where this vocabulary's texts may be cut for tokenizing (built on first use: a pass over the vocabulary)."""
        specials = []
        special = llama_cpp.LLAMA_TOKEN_ATTR_CONTROL | llama_cpp.LLAMA_TOKEN_ATTR_USER_DEFINED
        special |= llama_cpp.LLAMA_TOKEN_ATTR_UNKNOWN
        for token in range(int(llama_cpp.llama_vocab_n_tokens(self.vocab))):
            attr = int(llama_cpp.llama_vocab_get_attr(self.vocab, token))
            if attr & special:
                text = (llama_cpp.llama_vocab_get_text(self.vocab, token) or b"").decode("utf-8", "replace")
                specials.append((text, bool(attr & llama_cpp.LLAMA_TOKEN_ATTR_LSTRIP)))
        return SpecialSplitter(specials)

    def _tokenize(self, text: str, add_special: bool, parse_special: bool) -> list[int]:
        data = text.encode("utf-8")
        capacity = len(data) + 16
        buf = (llama_cpp.llama_token * capacity)()
        n = llama_cpp.llama_tokenize(self.vocab, data, len(data), buf, capacity, add_special, parse_special)
        if n < 0:
            capacity = -n
            buf = (llama_cpp.llama_token * capacity)()
            n = llama_cpp.llama_tokenize(self.vocab, data, len(data), buf, capacity, add_special, parse_special)
        return list(buf[:n])

    def control_token(self, text: str) -> int | None:
        """The control token ``text`` spells in this vocabulary (one token that plain decoding drops), if any."""
        tokens = self.tokenize(text, add_special=False, parse_special=True)
        if len(tokens) != 1 or self.piece(tokens[0], ctypes.create_string_buffer(64)) != b"":
            return None
        return tokens[0]

    def piece(self, token: int, buf: ctypes.Array[ctypes.c_char], *, special: bool = False) -> bytes:
        n = llama_cpp.llama_token_to_piece(self.vocab, token, buf, len(buf), 0, special)
        if n < 0:
            bigger = ctypes.create_string_buffer(-n)
            n = llama_cpp.llama_token_to_piece(self.vocab, token, bigger, len(bigger), 0, special)
            return bigger.raw[:n]
        return buf.raw[:n]

    def is_eog(self, token: int) -> bool:
        return token in self._eog

    def close(self) -> None:
        book = getattr(self, "_book", None)
        if book is not None:
            book.remove(self)
        for ctx in getattr(self, "_contexts", []):
            llama_cpp.llama_free(ctx)
        self._contexts = []
        if getattr(self, "model", None):
            llama_cpp.llama_model_free(self.model)
            self.model = None  # type: ignore[assignment]
