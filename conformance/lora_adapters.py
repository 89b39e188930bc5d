"""Small GGUF LoRA adapters for the bundled model, written with llama.cpp's own `gguf` package.

An adapter adds ``scale * B @ A`` to the attention query/value and feed-forward down projections of every layer.
With B all zeros it changes nothing; with B filled it changes the greedy reply.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from pathlib import Path

import gguf
import numpy as np

from conformance.server import bundled_model_file

TARGETS = ("attn_q.weight", "attn_v.weight", "ffn_down.weight")


@functools.cache
def bundled_shapes() -> dict[str, tuple[int, int]]:
    """The bundled model's matrices: name -> (ne0, ne1), GGUF order (input size first)."""
    reader = gguf.GGUFReader(bundled_model_file())
    return {t.name: (int(t.shape[0]), int(t.shape[1])) for t in reader.tensors if len(t.shape) == 2}


def write_adapter(path: Path, *, b: float = 0.0, arch: str = "llama", general_type: str = "adapter",
                  rank: int = 4, shapes: dict[str, tuple[int, int]] | None = None,
                  targets: Sequence[str] = TARGETS) -> Path:
    """Write a LoRA adapter for ``shapes`` (the bundled model's by default); every B entry is ``b``."""
    shapes = shapes or bundled_shapes()
    path.parent.mkdir(parents=True, exist_ok=True)
    writer = gguf.GGUFWriter(str(path), arch)
    writer.add_type(general_type)
    writer.add_string("adapter.type", "lora")
    rng = np.random.default_rng(7)
    for name, (n_in, n_out) in shapes.items():
        if not name.endswith(tuple(targets)):
            continue
        writer.add_tensor(f"{name}.lora_a", (rng.standard_normal((rank, n_in)) * 0.1).astype(np.float32))
        writer.add_tensor(f"{name}.lora_b", np.full((n_out, rank), b, dtype=np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path
