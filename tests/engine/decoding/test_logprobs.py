"""token_logprobs: a true log-softmax over the whole vocabulary, checked against a float64 numpy reference."""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt
import pytest

from superfluid.engine.decoding.logprobs import token_logprobs

VOCAB = 1000


def _bytes(token: int) -> bytes:
    return f"t{token}".encode()


def _reference(logits: npt.NDArray[np.float32]) -> npt.NDArray[np.float64]:
    wide = logits.astype(np.float64)
    finite = wide[np.isfinite(wide)]
    peak = float(finite.max())
    log_total = peak + float(np.log(np.exp(finite - peak).sum()))
    return wide - log_total


def _logits(seed: int, scale: float = 3.0) -> npt.NDArray[np.float32]:
    return (np.random.default_rng(seed).normal(size=VOCAB) * scale).astype(np.float32)


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("top_n", [0, 1, 5, 20])
def test_values_match_a_log_softmax(seed: int, top_n: int) -> None:
    logits = _logits(seed)
    reference = _reference(logits)
    chosen = int(np.random.default_rng(seed + 100).integers(VOCAB))
    result = token_logprobs(logits, chosen, top_n, _bytes)
    assert result.logprob == pytest.approx(reference[chosen], abs=1e-4)
    assert result.token == f"t{chosen}" and result.bytes == tuple(_bytes(chosen))
    expected_top = np.argsort(-reference, kind="stable")[:top_n]
    assert [alt.token for alt in result.top] == [f"t{t}" for t in expected_top]
    for alt, token in zip(result.top, expected_top, strict=True):
        assert alt.logprob == pytest.approx(reference[token], abs=1e-4)
        assert alt.bytes == tuple(_bytes(int(token)))
    values = [alt.logprob for alt in result.top]
    assert values == sorted(values, reverse=True)
    assert sum(math.exp(v) for v in values) <= 1 + 1e-6


def test_probabilities_sum_to_one_over_the_vocabulary() -> None:
    logits = _logits(7)
    result = token_logprobs(logits, 0, VOCAB, _bytes)
    assert len(result.top) == VOCAB
    assert sum(math.exp(alt.logprob) for alt in result.top) == pytest.approx(1.0, abs=1e-4)


def test_the_argmax_leads_and_matches_its_own_entry() -> None:
    logits = _logits(8)
    best = int(np.argmax(logits))
    result = token_logprobs(logits, best, 3, _bytes)
    assert result.top[0].token == result.token
    assert result.top[0].logprob == result.logprob


def test_huge_logits_do_not_overflow() -> None:
    logits = np.array([10_000.0, 9_999.0, -10_000.0], dtype=np.float32)
    result = token_logprobs(logits, 1, 2, _bytes)
    expected = -math.log1p(math.exp(1.0))  # log(e^-1 / (1 + e^-1))
    assert result.logprob == pytest.approx(expected, abs=1e-4)
    assert result.top[0].logprob == pytest.approx(-math.log1p(math.exp(-1.0)), abs=1e-4)


def test_masked_tokens_drop_out_of_the_normalization() -> None:
    """A -inf logit (a banned token, a bias of -inf) has probability zero and takes no share of the rest."""
    logits = np.array([0.0, 0.0, -np.inf, -np.inf], dtype=np.float32)
    result = token_logprobs(logits, 0, 2, _bytes)
    assert result.logprob == pytest.approx(math.log(0.5))
    assert [alt.token for alt in result.top] == ["t0", "t1"]


def test_a_bias_is_part_of_the_distribution() -> None:
    """The scheduler adds logit_bias before calling in; the values must move as a softmax says."""
    logits = _logits(9)
    token, bias = 17, 2.5
    plain = token_logprobs(logits, token, 0, _bytes).logprob
    biased_logits = logits.copy()
    biased_logits[token] += bias
    biased = token_logprobs(biased_logits, token, 0, _bytes).logprob
    p = math.exp(plain)
    assert biased == pytest.approx(plain + bias - math.log(1 - p + p * math.exp(bias)), abs=1e-4)


def test_partial_utf8_tokens_keep_their_bytes() -> None:
    pieces = {0: "é".encode()[:1], 1: "é".encode()[1:], 2: b"ok"}
    logits = np.array([3.0, 2.0, 1.0], dtype=np.float32)
    result = token_logprobs(logits, 0, 3, pieces.__getitem__)
    assert result.bytes == (0xC3,)
    assert result.token == "\ufffd"
    assert [alt.bytes for alt in result.top] == [(0xC3,), (0xA9,), (0x6F, 0x6B)]


def test_the_input_logits_are_not_modified() -> None:
    logits = _logits(10)
    before = logits.copy()
    token_logprobs(logits, 3, 20, _bytes)
    assert np.array_equal(logits, before)
