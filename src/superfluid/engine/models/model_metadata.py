"""What a GGUF model says of itself, read through llama.cpp from a loaded (or vocabulary-only) model: its
architecture and name, sizes, chat template, special tokens, fill-in-the-middle tokens, pooling and sampling
defaults.
"""

from __future__ import annotations

import ctypes
import logging
from dataclasses import dataclass
from pathlib import Path

import llama_cpp

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class FimTokens:
    prefix: int
    suffix: int
    middle: int


@dataclass(frozen=True)
class ModelMetadata:
    architecture: str
    name: str
    n_ctx_train: int
    n_params: int | None
    size_bytes: int
    n_vocab: int
    chat_template: str | None
    bos_token: str
    eos_token: str
    add_bos: bool
    fim: FimTokens | None
    pooling_embeddings: bool
    sampling_defaults: dict[str, float]
    """Sampling defaults the GGUF declares (general.sampling.*); empty when it declares none."""
    pooling: str = "none"
    """The GGUF's ``<arch>.pooling_type`` (none, mean, cls, last, rank); llama.cpp's default for BERT-family
    encoders that do not say is cls."""


def _meta(model: llama_cpp.llama_model_p, key: str) -> str | None:
    buf = ctypes.create_string_buffer(256)
    n = llama_cpp.llama_model_meta_val_str(model, key.encode(), buf, len(buf))
    if n < 0:
        return None
    if n >= len(buf):
        buf = ctypes.create_string_buffer(n + 1)
        llama_cpp.llama_model_meta_val_str(model, key.encode(), buf, len(buf))
    return buf.value.decode("utf-8", errors="replace")


_SAMPLING_KEYS = {
    "general.sampling.temp": "temperature",
    "general.sampling.top_k": "top_k",
    "general.sampling.top_p": "top_p",
    "general.sampling.min_p": "min_p",
    "general.sampling.penalty_repeat": "repeat_penalty",
}


def token_text(vocab: llama_cpp.llama_vocab_p, token: int) -> str:
    """A token's text as the vocabulary stores it (special tokens spelled out)."""
    raw = llama_cpp.llama_vocab_get_text(vocab, token)
    return raw.decode("utf-8", errors="replace") if raw else ""


def _trained_context(m: llama_cpp.llama_model_p) -> int:
    """The training context; read from the metadata too, since a vocab-only load leaves the model's at 0."""
    n = int(llama_cpp.llama_model_n_ctx_train(m))
    if n > 0:
        return n
    arch = _meta(m, "general.architecture")
    raw = _meta(m, f"{arch}.context_length") if arch else None
    return int(raw) if raw and raw.isdigit() else 0


def read_metadata(m: llama_cpp.llama_model_p, path: Path) -> ModelMetadata:
    """Everything :class:`ModelMetadata` holds, from a model llama.cpp has loaded (weights or vocabulary only)."""
    v = llama_cpp.llama_model_get_vocab(m)
    template = llama_cpp.llama_model_chat_template(m, None)
    fim = None
    pre, suf, mid = (llama_cpp.llama_vocab_fim_pre(v), llama_cpp.llama_vocab_fim_suf(v),
                     llama_cpp.llama_vocab_fim_mid(v))
    if min(pre, suf, mid) >= 0:
        fim = FimTokens(prefix=pre, suffix=suf, middle=mid)
    sampling: dict[str, float] = {}
    for key, name in _SAMPLING_KEYS.items():
        raw = _meta(m, key)
        if raw is not None:
            try:
                sampling[name] = float(raw)
            except ValueError:
                log.warning("ignoring unreadable %s=%r", key, raw)
    bos, eos = llama_cpp.llama_vocab_bos(v), llama_cpp.llama_vocab_eos(v)
    return ModelMetadata(
        architecture=_meta(m, "general.architecture") or "unknown",
        name=_meta(m, "general.name") or path.stem,
        n_ctx_train=_trained_context(m),
        n_params=llama_cpp.llama_model_n_params(m) or None,
        size_bytes=llama_cpp.llama_model_size(m) or path.stat().st_size,
        n_vocab=llama_cpp.llama_vocab_n_tokens(v),
        chat_template=template.decode("utf-8") if template else None,
        bos_token=token_text(v, bos) if bos >= 0 else "",
        eos_token=token_text(v, eos) if eos >= 0 else "",
        add_bos=bool(llama_cpp.llama_vocab_get_add_bos(v)),
        fim=fim,
        pooling_embeddings=_meta(m, "general.architecture") in _EMBEDDING_ARCHITECTURES,
        pooling=_pooling_type(m),
        sampling_defaults=sampling,
    )


POOLING_NAMES = {0: "none", 1: "mean", 2: "cls", 3: "last", 4: "rank"}
POOLING_TYPES = {name: value for value, name in POOLING_NAMES.items()}


def _pooling_type(m: llama_cpp.llama_model_p) -> str:
    arch = _meta(m, "general.architecture") or ""
    raw = _meta(m, f"{arch}.pooling_type")
    if raw is not None and raw.isdigit():
        return POOLING_NAMES.get(int(raw), "none")
    return "cls" if arch in _EMBEDDING_ARCHITECTURES else "none"


_EMBEDDING_ARCHITECTURES = frozenset({"bert", "nomic-bert", "jina-bert-v2", "t5encoder"})
