"""LlamaModel helpers that need only a vocabulary (a vocab-only load of the bundled model, no weights)."""

from __future__ import annotations

import functools
from typing import Any

import pytest

from superfluid.engine.models.llama_model import LlamaModel
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
