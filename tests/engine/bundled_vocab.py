"""The bundled model's vocabulary from a vocab-only load (no weights, well under a second), and grammar probes on it.

Shared by the grammar tests: whether a grammar matches a text, and masked decoding driven by random logits.
"""

from __future__ import annotations

import functools
from typing import Any

import llama_cpp
import numpy as np
import pytest

import superfluid.engine.models.llama_model  # noqa: F401  (quiets llama.cpp's loader log)
from superfluid.engine.decoding.grammar import GrammarState, GrammarTokenizer
from superfluid.engine.models.model_sources import DEFAULT_MODEL, resolve


@functools.cache
def bundled_vocab() -> Any:
    """The llama.cpp vocabulary of the bundled default model."""
    llama_cpp.llama_backend_init()
    params = llama_cpp.llama_model_default_params()
    params.vocab_only = True
    model = llama_cpp.llama_model_load_from_file(str(resolve(DEFAULT_MODEL).locate()).encode(), params)
    assert model, "the bundled model is missing"
    return llama_cpp.llama_model_get_vocab(model)


@functools.cache
def grammar_tokenizer() -> GrammarTokenizer:
    """The bundled model's vocabulary as llguidance sees it."""
    vocab = bundled_vocab()
    return GrammarTokenizer(vocab, int(llama_cpp.llama_vocab_n_tokens(vocab)), (int(llama_cpp.llama_vocab_eos(vocab)),))


def accepts(state: GrammarState, text: str) -> bool:
    """Whether a fresh grammar state matches all of ``text`` and may end there."""
    ok = state.matcher.consume_tokens(grammar_tokenizer().tokenizer.tokenize_str(text))
    return bool(ok) and bool(state.matcher.is_accepting())


def decode_masked(state: GrammarState, seed: int, limit: int) -> str:
    """Greedy decoding over random logits, masked by the grammar before every pick."""
    tokenizer = grammar_tokenizer()
    rng = np.random.default_rng(seed)
    tokens: list[int] = []
    eos = set(tokenizer.tokenizer.eos_tokens)
    for _ in range(limit):
        logits = rng.normal(size=tokenizer.n_vocab).astype(np.float32)
        state.apply(logits)
        token = int(np.argmax(logits))
        assert np.isfinite(logits[token]), "the mask left no token to pick"
        if token in eos:
            break
        assert state.advance(token), state.error
        tokens.append(token)
        if state.done:
            break
    else:
        pytest.fail("the grammar never let the output end")
    return str(tokenizer.tokenizer.decode_str(tokens))
