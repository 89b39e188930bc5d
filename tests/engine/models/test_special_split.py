"""Tokenizing long texts with many special tokens in parts: the same tokens as one call, found quickly."""

from __future__ import annotations

import functools
import random

import llama_cpp
import pytest

from superfluid.engine.models.model_sources import resolve
from superfluid.engine.models.special_split import SpecialSplitter
from tests.engine.models.test_llama_model import _model, _VocabOnly

CHATML = [("<|im_start|>", False), ("<|im_end|>", False), ("<|endoftext|>", False)]


def _turns(n: int, rng: random.Random) -> str:
    words = ["m", "hello", " world", "\n", "  ", "<|im_start|>", "é", "123", "<|im_end|>", "{\"a\": 1}",
             "<|endoftext|>"]
    return "".join(f"<|im_start|>{rng.choice(['user', 'assistant', 'system'])}\n"
                   + "".join(rng.choice(words) for _ in range(rng.randint(0, 12))) + "<|im_end|>\n"
                   for _ in range(n))


def test_parts_join_back_and_start_at_special_tokens() -> None:
    text = _turns(3000, random.Random(1))
    parts = list(SpecialSplitter(CHATML).parts(text, size=1024))
    assert "".join(parts) == text
    assert len(parts) > 10
    assert all(part.startswith(("<|im_start|>", "<|im_end|>", "<|endoftext|>")) for part in parts[1:])
    assert all(len(part) >= 1024 for part in parts[:-1])


def test_short_texts_and_texts_without_special_tokens_are_one_part() -> None:
    splitter = SpecialSplitter(CHATML)
    assert list(splitter.parts("<|im_start|>x" * 10, size=1024)) == ["<|im_start|>x" * 10]
    plain = "no markers here " * 10_000
    assert list(splitter.parts(plain, size=1024)) == [plain]
    assert list(SpecialSplitter([]).parts(plain, size=1024)) == [plain]


@pytest.mark.parametrize("text", ["x" * 3000 + "<a>>>" + "y" * 3000, "x" * 3000 + "<<a>" + "y" * 3000,
                                  "x" * 3000 + " <s>" + "y" * 3000])
def test_no_cut_where_another_special_token_overlaps_or_space_is_stripped(text: str) -> None:
    """'<a>' under 'a>>>' (longer, so llama.cpp matches it first), '<<' and '<a>' overlapping, and the lstrip
    token '<s>' are no clean cuts, so each text stays whole."""
    splitter = SpecialSplitter([("<a>", False), ("a>>>", False), ("<<", False), ("<s>", True)])
    assert list(splitter.parts(text, size=1000)) == [text]


@pytest.mark.parametrize("seed", range(4))
def test_bundled_vocabulary_gives_the_same_tokens_in_parts_as_whole(seed: int) -> None:
    model = _model()
    text = _turns(1200, random.Random(seed))
    whole = model._tokenize(text, False, True)
    assert len(list(model.splitter.parts(text))) > 3
    assert model.tokenize(text, add_special=False, parse_special=True) == whole


def test_counting_can_stop_past_a_bound() -> None:
    model = _model()
    text = _turns(1500, random.Random(7))
    whole = model._tokenize(text, False, True)
    partial = model.tokenize(text, add_special=False, parse_special=True, stop_after=1000)
    assert 1000 < len(partial) < len(whole) and partial == whole[:len(partial)]


def test_a_longer_special_token_starting_at_the_cut_is_clean() -> None:
    text = "x" * 3000 + "<a><b>" + "y" * 3000
    parts = list(SpecialSplitter([("<a>", False), ("<a><b>", False)]).parts(text, size=1000))
    assert parts == ["x" * 3000, "<a><b>" + "y" * 3000]


@functools.cache
def _gemma() -> _VocabOnly:
    """Gemma 3's SentencePiece vocabulary (262,144 tokens, thousands of them special) from a vocab-only load."""
    params = llama_cpp.llama_model_default_params()
    params.vocab_only = True
    model = llama_cpp.llama_model_load_from_file(str(resolve("gemma3-270m").locate()).encode(), params)
    assert model, "the gemma3-270m package is missing"
    return _VocabOnly(llama_cpp.llama_model_get_vocab(model))


def test_gemma_vocabulary_gives_the_same_tokens_in_parts_as_whole() -> None:
    model = _gemma()
    rng = random.Random(3)
    words = ["m", " hello", "\n\n", "   ", "<start_of_turn>", "<end_of_turn>", "<b>", "é", "\t", "<unused7>"]
    text = "".join(f"<start_of_turn>{rng.choice(['user', 'model'])}\n"
                   + "".join(rng.choice(words) for _ in range(rng.randint(0, 12))) + "<end_of_turn>\n"
                   for _ in range(1200))
    assert len(list(model.splitter.parts(text))) > 3
    assert model.tokenize(text, add_special=False, parse_special=True) == model._tokenize(text, False, True)
