"""The BERT converter on the bundled all-MiniLM-L6-v2: llama.cpp reads the GGUF, tokenizes as the original
tokenizer does, and pools vectors that match reference vectors computed once with the original weights."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path

import numpy as np
import pytest

from superfluid.engine.embedding.model import EmbeddingModel
from superfluid.engine.models import minilm
from superfluid.engine.models.llama_model import probe_metadata
from superfluid.engine.models.model_sources import ModelSource
from superfluid.engine.models.profile import ModelProfile
from superfluid.settings import Settings

REFERENCE = json.loads((Path(__file__).parent / "fixtures" / "minilm_reference.json").read_text())


@pytest.fixture(scope="module")
def converted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return minilm.gguf_path(tmp_path_factory.mktemp("models"))


def test_conversion_is_cached_and_leaves_no_partial_file(converted: Path, caplog: pytest.LogCaptureFixture) -> None:
    assert converted.is_file() and converted.stat().st_size > 40 << 20
    assert [p.name for p in converted.parent.iterdir()] == [converted.name]
    with caplog.at_level(logging.INFO):
        assert minilm.gguf_path(converted.parent) == converted
    assert "converting" not in caplog.text  # the second use reads the cache


def test_progress_is_logged(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="superfluid.engine.models.minilm"):
        minilm.gguf_path(tmp_path)
    assert "100% (101 of 101 tensors)" in caplog.text


def test_metadata(converted: Path) -> None:
    meta = probe_metadata(converted)
    assert (meta.architecture, meta.n_ctx_train, meta.n_vocab, meta.pooling) == ("bert", 512, 30522, "mean")
    assert meta.bos_token == "[CLS]" and meta.eos_token == "[SEP]"


def _load(converted: Path) -> EmbeddingModel:
    settings = Settings(threads=2)
    profile = ModelProfile.build("minilm", "bundled", converted, probe_metadata(converted), settings)
    return EmbeddingModel.load(profile, ModelSource("minilm", "bundled", lambda: converted), settings)


def test_inputs_of_a_request_share_as_few_decodes_as_fit(converted: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model = _load(converted)
    calls: list[int] = []
    decode = model._decode

    def counted(sequences: list[list[int]], batch: object) -> list[np.ndarray]:
        calls.append(sum(len(s) for s in sequences))
        return decode(sequences, batch)

    monkeypatch.setattr(model, "_decode", counted)
    try:
        tokens = model.prepare([f"short text number {i}" for i in range(64)], truncate=False)
        vectors = asyncio.run(model.embed(tokens))
        alone = asyncio.run(model.embed(tokens[5:6]))[0]
    finally:
        model.close()
    total = sum(len(t) for t in tokens)
    assert len(vectors) == 64 and calls[:-1] and sum(calls[:-1]) == total
    assert len(calls) - 1 == -(-total // 512)  # ceil: every decode but the last is full up to the window
    # Packed with 63 others or alone, a text gets the same vector (up to F16 rounding in batched matmuls).
    assert float(vectors[5] @ alone / (np.linalg.norm(vectors[5]) * np.linalg.norm(alone))) > 0.99999


def test_vectors_match_the_original_weights(converted: Path) -> None:
    model = _load(converted)
    try:
        items = REFERENCE["items"]
        tokens = model.prepare([item["text"] for item in items], truncate=False)
        assert tokens == [item["token_ids"] for item in items]
        vectors = asyncio.run(model.embed(tokens))
    finally:
        model.close()
    for item, vector in zip(items, vectors, strict=True):
        reference = np.array(item["vector"], dtype=np.float32)
        cosine = float(vector @ reference / (np.linalg.norm(vector) * np.linalg.norm(reference)))
        assert cosine > 0.9999, item["text"]
        assert float(np.linalg.norm(vector - reference) / np.linalg.norm(reference)) < 5e-3
    unit = [v / np.linalg.norm(v) for v in vectors]
    assert float(unit[0] @ unit[1]) > 0.9 and float(unit[0] @ unit[2]) < 0.1
