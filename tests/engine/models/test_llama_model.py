"""LlamaModel helpers that need only a vocabulary (a vocab-only load of the bundled model, no weights)."""

from __future__ import annotations

import functools
from typing import Any

import llama_cpp
import pytest

from superfluid.engine.models.llama_model import LlamaModel, flash_attn_type, shared_kv_pool
from superfluid.engine.models.model_sources import DEFAULT_MODEL, resolve
from tests.engine.bundled_vocab import bundled_vocab


class _VocabOnly:
    """The vocabulary half of a LlamaModel, enough for its tokenizing methods."""

    tokenize = LlamaModel.tokenize
    _tokenize = LlamaModel._tokenize
    splitter = LlamaModel.splitter
    piece = LlamaModel.piece
    control_token = LlamaModel.control_token

    def __init__(self, vocab: Any) -> None:
        self.vocab = vocab


@functools.cache
def _model() -> _VocabOnly:
    return _VocabOnly(bundled_vocab())


@pytest.mark.parametrize("text, control", [
    ("<|im_start|>", True), ("<|im_end|>", True),
    ("[TOOL_CALLS]", False), ("<tool_call>", False), ("hello", False), ("a", False),
])
def test_control_token_finds_only_single_tokens_that_decoding_drops(text: str, control: bool) -> None:
    token = _model().control_token(text)
    assert (token is not None) is control
    if token is not None:
        assert _model().tokenize(text, add_special=False, parse_special=True) == [token]


@pytest.mark.parametrize(("forced", "lanes", "kv_size", "window", "shared"), [
    (False, 8, 32768, 4096, False),  # a full window per lane: a stream each, as llama-server's slots
    (False, 8, 40000, 4096, False),
    (False, 8, 0, 4096, True),  # the default pool (one window) has to be shared
    (False, 8, 16384, 4096, True),  # half a window per lane: only sharing lets one lane use a whole window
    (False, 1, 4096, 4096, True),  # one lane: one pool either way
    (True, 8, 32768, 4096, True),  # --kv-unified
])
def test_lanes_share_one_kv_pool_only_when_it_is_smaller_than_a_window_each(
        forced: bool, lanes: int, kv_size: int, window: int, shared: bool) -> None:
    assert shared_kv_pool(forced, lanes, kv_size, window) is shared


@pytest.mark.parametrize(("choice", "generation", "own_cells", "expected"), [
    # a chat model whose lanes see only their own cells (a KV stream each, or one lane): off
    ("auto", True, True, llama_cpp.LLAMA_FLASH_ATTN_TYPE_DISABLED),
    # lanes in one shared pool: without the kernel each attends densely over the others' cells; llama.cpp's choice
    ("auto", True, False, llama_cpp.LLAMA_FLASH_ATTN_TYPE_AUTO),
    ("auto", False, True, llama_cpp.LLAMA_FLASH_ATTN_TYPE_AUTO),  # an embedding model only prefills
    ("on", True, True, llama_cpp.LLAMA_FLASH_ATTN_TYPE_ENABLED),
    ("on", False, False, llama_cpp.LLAMA_FLASH_ATTN_TYPE_ENABLED),
    ("off", True, False, llama_cpp.LLAMA_FLASH_ATTN_TYPE_DISABLED),
    ("off", False, True, llama_cpp.LLAMA_FLASH_ATTN_TYPE_DISABLED),
])
def test_flash_attention_follows_the_flag_and_auto_leaves_it_off_where_lanes_have_their_own_cells(
        choice: str, generation: bool, own_cells: bool, expected: int) -> None:
    assert flash_attn_type(choice, generation=generation, own_cells=own_cells) == expected


def test_a_flash_attention_value_outside_the_choices_is_refused() -> None:
    with pytest.raises(ValueError, match="auto, on, off"):
        flash_attn_type("yes", generation=True, own_cells=True)


@pytest.mark.parametrize(("choice", "kv_size", "pooling", "expected"), [
    ("auto", 512, None, llama_cpp.LLAMA_FLASH_ATTN_TYPE_DISABLED),  # two lanes, a 256-cell stream each
    ("auto", 0, None, llama_cpp.LLAMA_FLASH_ATTN_TYPE_AUTO),  # two lanes sharing one 256-cell pool
    ("on", 512, None, llama_cpp.LLAMA_FLASH_ATTN_TYPE_ENABLED),
    ("auto", 512, llama_cpp.LLAMA_POOLING_TYPE_MEAN, llama_cpp.LLAMA_FLASH_ATTN_TYPE_AUTO),
])
def test_every_context_of_a_real_model_is_created_with_the_flash_attention_asked_for(
        monkeypatch: pytest.MonkeyPatch, choice: str, kv_size: int, pooling: int | None, expected: int) -> None:
    asked: list[int] = []
    create = llama_cpp.llama_init_from_model

    def recording(model: Any, params: Any) -> Any:
        asked.append(int(params.flash_attn_type))
        return create(model, params)

    monkeypatch.setattr(llama_cpp, "llama_init_from_model", recording)
    model = LlamaModel(resolve(DEFAULT_MODEL).locate(), n_ctx=256, n_seq_max=2, n_batch=64, n_threads=2,
                       kv_size=kv_size, pooling=pooling, flash_attn=choice)
    try:
        model.open_context(1)  # a second context, as the batch-invariant lane opens
        assert asked == [expected, expected]
    finally:
        model.close()
