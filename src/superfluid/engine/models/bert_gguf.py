"""A small BERT -> GGUF converter (sentence-transformers layout: safetensors, tokenizer.json, 1_Pooling).

It writes what llama.cpp's BERT graph reads, the way llama.cpp's own ``convert_hf_to_gguf.py`` spells it:
token, position and token-type embeddings; N encoder blocks (q/k/v/output, two layer norms, GELU feed-forward);
a WordPiece vocabulary in llama.cpp's "phantom space" form (continuations lose ``##``, other tokens gain
U+2581, control tokens stay as they are); non-causal attention; the pooling type from ``1_Pooling/config.json``.
Matrices are stored as F16, everything else (norms, biases, position and token-type tables) as F32, as
llama.cpp's converter does. Only numpy, ``safetensors`` and ``gguf`` are needed: no torch.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gguf
import numpy as np
from safetensors.numpy import load_file

log = logging.getLogger(__name__)

_SKIPPED = ("embeddings.position_ids", "pooler.dense.weight", "pooler.dense.bias")
_F32_KEEP = (gguf.MODEL_TENSOR.POS_EMBD, gguf.MODEL_TENSOR.TOKEN_TYPES)


class ConversionError(ValueError):
    """The input directory is not a BERT model this converter understands."""


def _pooling(model_dir: Path) -> gguf.PoolingType:
    path = model_dir / "1_Pooling" / "config.json"
    if not path.is_file():
        return gguf.PoolingType.CLS  # a bare BertModel: the [CLS] state, as llama.cpp's converter assumes
    config = json.loads(path.read_text())
    if config.get("pooling_mode_mean_tokens"):
        return gguf.PoolingType.MEAN
    if config.get("pooling_mode_cls_token"):
        return gguf.PoolingType.CLS
    raise ConversionError("only mean and CLS pooling are supported")


def _vocab(model_dir: Path) -> tuple[list[str], list[int]]:
    """Tokens in id order in llama.cpp's spelling, and their types."""
    doc = json.loads((model_dir / "tokenizer.json").read_text("utf-8"))
    model = doc.get("model", {})
    if model.get("type") != "WordPiece":
        raise ConversionError(f"expected a WordPiece tokenizer, found {model.get('type')}")
    by_id = {int(i): tok for tok, i in model["vocab"].items()}
    control = {int(t["id"]) for t in doc.get("added_tokens", ()) if t.get("special")}
    tokens, types = [], []
    for i in range(max(by_id) + 1):
        tok = by_id.get(i, f"[PAD{i}]")
        if i in control:
            tokens.append(tok)
            types.append(int(gguf.TokenType.CONTROL))
        else:
            tokens.append(tok[2:] if tok.startswith("##") else "\u2581" + tok)
            types.append(int(gguf.TokenType.NORMAL))
    return tokens, types


def _write_metadata(writer: gguf.GGUFWriter, config: dict[str, Any], model_dir: Path, name: str) -> int:
    arch = "bert"
    writer.add_name(name)
    writer.add_context_length(int(config["max_position_embeddings"]))
    writer.add_embedding_length(int(config["hidden_size"]))
    writer.add_feed_forward_length(int(config["intermediate_size"]))
    writer.add_block_count(int(config["num_hidden_layers"]))
    writer.add_head_count(int(config["num_attention_heads"]))
    writer.add_layer_norm_eps(float(config.get("layer_norm_eps", 1e-12)))
    writer.add_causal_attention(False)
    writer.add_pooling_type(_pooling(model_dir))
    writer.add_file_type(gguf.LlamaFileType.MOSTLY_F16)
    tokens, types = _vocab(model_dir)
    writer.add_token_type_count(int(config.get("type_vocab_size", 2)))
    writer.add_tokenizer_model(arch)
    writer.add_tokenizer_pre("default")
    writer.add_token_list(tokens)
    writer.add_token_types(types)
    gguf.SpecialVocab(model_dir, n_vocab=len(tokens)).add_to_gguf(writer, quiet=True)
    return len(tokens)


def _tensor(name: str, data: np.ndarray[Any, Any], tensor_map: gguf.TensorNameMap) -> tuple[str, np.ndarray[Any, Any]]:
    base, _, suffix = name.removeprefix("bert.").rpartition(".")
    mapped = tensor_map.get_name(base)
    if mapped is None:
        raise ConversionError(f"no GGUF name for tensor {name}")
    out_name = f"{mapped}.{suffix}"
    keep_f32 = data.ndim <= 1 or any(out_name.startswith(gguf.TENSOR_NAMES[t]) for t in _F32_KEEP)
    return out_name, data.astype(np.float32 if keep_f32 else np.float16)


def convert(model_dir: Path, target: Path, *, name: str,
            progress: Callable[[int, int], None] | None = None) -> None:
    """Write ``model_dir``'s BERT as a GGUF at ``target``, atomically (a partial file is never left in place)."""
    config = json.loads((model_dir / "config.json").read_text())
    if config.get("model_type") != "bert":
        raise ConversionError(f"expected model_type bert, found {config.get('model_type')}")
    weights = load_file(str(model_dir / "model.safetensors"))
    tensor_map = gguf.get_tensor_name_map(gguf.MODEL_ARCH.BERT, int(config["num_hidden_layers"]))
    partial = target.with_name(f".{target.name}.{os.getpid()}.partial")
    target.parent.mkdir(parents=True, exist_ok=True)
    writer = gguf.GGUFWriter(str(partial), "bert")
    try:
        n_vocab = _write_metadata(writer, config, model_dir, name)
        names = [n for n in weights if n not in _SKIPPED]
        for done, tensor_name in enumerate(names, 1):
            out_name, data = _tensor(tensor_name, weights[tensor_name], tensor_map)
            if out_name == "token_embd.weight" and data.shape[0] != n_vocab:
                raise ConversionError(f"{data.shape[0]} token embeddings for a {n_vocab}-token vocabulary")
            writer.add_tensor(out_name, data)
            if progress is not None:
                progress(done, len(names))
        writer.write_header_to_file()
        writer.write_kv_data_to_file()
        writer.write_tensors_to_file()
        writer.close()
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
