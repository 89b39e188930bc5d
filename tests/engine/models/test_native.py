"""The GIL-holding llama.cpp calls and the numpy-backed llama_batch, against the binding's own on the real model."""

from __future__ import annotations

import ctypes
from collections.abc import Iterator

import llama_cpp
import numpy as np
import pytest

from superfluid.engine.models.llama_model import LlamaModel
from superfluid.engine.models.model_sources import DEFAULT_MODEL
from superfluid.engine.models.model_sources import resolve as resolve_model
from superfluid.engine.models.native import ArrayBatch, logits_address, memory_seq_rm


@pytest.fixture(scope="module")
def model() -> Iterator[LlamaModel]:
    loaded = LlamaModel(resolve_model(DEFAULT_MODEL).locate(), n_ctx=256, n_seq_max=2, n_batch=64, n_threads=2)
    yield loaded
    loaded.close()


def _rows(model: LlamaModel, batch: llama_cpp.llama_batch, outputs: list[int]) -> list[np.ndarray]:
    llama_cpp.llama_memory_clear(model.memory, True)
    assert llama_cpp.llama_decode(model.ctx, batch) == 0
    return [np.ctypeslib.as_array(llama_cpp.llama_get_logits_ith(model.ctx, i), shape=(model.meta.n_vocab,)).copy()
            for i in outputs]


def _two_prompts(model: LlamaModel) -> list[tuple[int, int, int, bool]]:
    """(token, position, sequence, wants logits) rows: two prompts interleaved, logits at each one's end."""
    first = model.tokenize("The lighthouse keeper", add_special=True, parse_special=False)
    second = model.tokenize("Once upon a time, a fox", add_special=True, parse_special=False)
    rows = [(t, i, 0, i == len(first) - 1) for i, t in enumerate(first)]
    rows += [(t, i, 1, i == len(second) - 1) for i, t in enumerate(second)]
    return rows


def test_array_batch_decodes_to_the_same_logits_as_llama_batch_init(model: LlamaModel) -> None:
    rows = _two_prompts(model)
    outputs = [i for i, row in enumerate(rows) if row[3]]
    reference = llama_cpp.llama_batch_init(64, 0, 1)
    try:
        for i, (token, pos, seq, logits) in enumerate(rows):
            reference.token[i], reference.pos[i], reference.n_seq_id[i] = token, pos, 1
            reference.seq_id[i][0], reference.logits[i] = seq, logits
        reference.n_tokens = len(rows)
        expected = _rows(model, reference, outputs)
    finally:
        llama_cpp.llama_batch_free(reference)
    batch = ArrayBatch(64)
    batch.fill([r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows], [r[3] for r in rows])
    got = _rows(model, batch.struct, outputs)
    for want, have in zip(expected, got, strict=True):
        assert np.array_equal(want, have)  # bit for bit
    assert not np.array_equal(got[0], got[1])


def test_array_batch_refuses_more_tokens_than_it_holds() -> None:
    with pytest.raises(ValueError, match="do not fit"):
        ArrayBatch(2).fill([1, 2, 3], [0, 1, 2], [0, 0, 0], [False, False, True])


def test_held_calls_answer_what_the_binding_answers(model: LlamaModel) -> None:
    rows = _two_prompts(model)
    batch = ArrayBatch(64)
    batch.fill([r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows], [r[3] for r in rows])
    llama_cpp.llama_memory_clear(model.memory, True)
    assert llama_cpp.llama_decode(model.ctx, batch.struct) == 0
    for i in [i for i, row in enumerate(rows) if row[3]] + [-1]:
        expected = ctypes.cast(llama_cpp.llama_get_logits_ith(model.ctx, i), ctypes.c_void_p).value
        assert logits_address(model.ctx, i) == expected
    first_len = sum(1 for r in rows if r[2] == 0)
    assert llama_cpp.llama_memory_seq_pos_max(model.memory, 0) == first_len - 1
    assert memory_seq_rm(model.memory, 0, 2, -1)
    assert llama_cpp.llama_memory_seq_pos_max(model.memory, 0) == 1
    assert llama_cpp.llama_memory_seq_pos_max(model.memory, 1) == len(rows) - first_len - 1  # untouched
