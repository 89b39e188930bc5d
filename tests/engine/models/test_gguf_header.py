"""The GGUF header reader: metadata and tensor shapes of files written by llama.cpp's own gguf package."""

from __future__ import annotations

from pathlib import Path

import gguf
import numpy as np
import pytest

from superfluid.engine.models.gguf_header import GgufError, read_header
from superfluid.engine.models.model_sources import DEFAULT_MODEL, resolve


def _write(path: Path) -> Path:
    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_type("adapter")
    writer.add_string("adapter.type", "lora")
    writer.add_float32("adapter.lora.alpha", 8.0)
    writer.add_uint32("some.count", 7)
    writer.add_array("some.names", ["a", "bb", "ccc"])
    writer.add_array("some.numbers", [1, 2, 3])
    writer.add_tensor("blk.0.attn_q.weight.lora_a", np.zeros((4, 16), dtype=np.float32))
    writer.add_tensor("blk.0.attn_q.weight.lora_b", np.zeros((32, 4), dtype=np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


def test_metadata_scalars_and_tensor_shapes_in_ne_order(tmp_path: Path) -> None:
    header = read_header(_write(tmp_path / "a.gguf"))
    assert header.text("general.architecture") == "llama"
    assert header.text("general.type") == "adapter"
    assert header.text("adapter.type") == "lora"
    assert header.metadata["adapter.lora.alpha"] == pytest.approx(8.0)
    assert header.metadata["some.count"] == 7
    assert "some.names" not in header.metadata and "some.numbers" not in header.metadata  # arrays are skipped
    assert header.tensors == {"blk.0.attn_q.weight.lora_a": (16, 4), "blk.0.attn_q.weight.lora_b": (4, 32)}
    assert header.text("missing.key") == ""


def test_the_bundled_model_header_reads_past_its_vocabulary() -> None:
    header = read_header(resolve(DEFAULT_MODEL).locate())
    assert header.text("general.architecture") == "llama"
    assert header.tensors["blk.0.attn_k.weight"] == (576, 192)
    assert len(header.tensors) == 272


def test_a_file_that_is_not_gguf_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "notes.gguf"
    path.write_text("hello, not a model")
    with pytest.raises(GgufError, match="magic"):
        read_header(path)


def test_a_truncated_header_is_refused(tmp_path: Path) -> None:
    full = _write(tmp_path / "a.gguf").read_bytes()
    cut = tmp_path / "cut.gguf"
    cut.write_bytes(full[:60])
    with pytest.raises(GgufError, match="ends inside"):
        read_header(cut)
