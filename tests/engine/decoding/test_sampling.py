"""Sampling: request parameters plus model defaults become the settings a lane really runs with."""

from __future__ import annotations

import math
from collections.abc import Iterator

import llama_cpp
import pytest

from superfluid.engine.decoding.lane_sampler import LaneSampler
from superfluid.engine.decoding.sampling import LLAMA_DEFAULTS, LogitRows, SamplerChain, model_defaults, resolve
from superfluid.engine.models.llama_model import LlamaModel
from superfluid.engine.models.model_sources import DEFAULT_MODEL
from superfluid.engine.models.model_sources import resolve as resolve_model
from superfluid.engine.types import SamplingParams

DEFAULTS = model_defaults({"temperature": 0.6, "top_p": 0.9})


def test_model_defaults_override_llama_cpp_defaults_key_by_key() -> None:
    assert DEFAULTS == {"temperature": 0.6, "top_k": 40, "top_p": 0.9, "min_p": 0.05}
    assert model_defaults({}) == LLAMA_DEFAULTS
    assert model_defaults({}) is not LLAMA_DEFAULTS


def test_unset_fields_take_the_model_defaults() -> None:
    effective = resolve(SamplingParams(seed=7), DEFAULTS)
    assert effective.temperature == 0.6
    assert effective.top_k == 40
    assert isinstance(effective.top_k, int)
    assert effective.top_p == 0.9
    assert effective.min_p == 0.05


def test_request_values_win_over_defaults_including_zero() -> None:
    effective = resolve(SamplingParams(temperature=0.0, top_k=0, top_p=1.0, min_p=0.0, seed=7), DEFAULTS)
    assert (effective.temperature, effective.top_k, effective.top_p, effective.min_p) == (0.0, 0, 1.0, 0.0)


def test_penalties_are_carried_through() -> None:
    params = SamplingParams(seed=1, presence_penalty=0.5, frequency_penalty=-0.25, repeat_penalty=1.1,
                            repeat_last_n=32)
    effective = resolve(params, DEFAULTS)
    assert effective.presence_penalty == 0.5
    assert effective.frequency_penalty == -0.25
    assert effective.repeat_penalty == 1.1
    assert effective.repeat_last_n == 32


def test_explicit_seed_is_kept() -> None:
    assert resolve(SamplingParams(seed=1234), DEFAULTS).seed == 1234


def test_missing_seed_draws_a_random_one(monkeypatch: pytest.MonkeyPatch) -> None:
    draws = iter([111, 222])
    monkeypatch.setattr("secrets.randbits", lambda bits: next(draws))
    first = resolve(SamplingParams(seed=None), DEFAULTS)
    second = resolve(SamplingParams(seed=None), DEFAULTS)
    assert (first.seed, second.seed) == (111, 222)


def test_seed_zero_is_a_fixed_seed_in_the_engine() -> None:
    # The OpenAI handler maps its "0 = unseeded" to None; Ollama's 0 is a real seed.
    assert resolve(SamplingParams(seed=0), DEFAULTS).seed == 0


def test_random_seed_is_a_31_bit_draw(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[int] = []

    def fake_randbits(bits: int) -> int:
        asked.append(bits)
        return 5

    monkeypatch.setattr("secrets.randbits", fake_randbits)
    assert resolve(SamplingParams(), DEFAULTS).seed == 5
    assert asked == [31]


def test_seed_offset_separates_the_choices_of_one_request() -> None:
    seeds = [resolve(SamplingParams(seed=42), DEFAULTS, seed_offset=i).seed for i in range(4)]
    assert seeds == [42, 43, 44, 45]


def test_seed_offset_applies_to_a_drawn_seed_too(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("secrets.randbits", lambda bits: 1000)
    assert resolve(SamplingParams(), DEFAULTS, seed_offset=3).seed == 1003


def test_seed_wraps_below_llamas_random_marker() -> None:
    # llama.cpp reads 0xFFFFFFFF as "draw a random seed", so explicit seeds never land on it.
    assert resolve(SamplingParams(seed=0xFFFFFFFE), DEFAULTS, seed_offset=1).seed == 0
    assert resolve(SamplingParams(seed=0xFFFFFFFF), DEFAULTS, seed_offset=2).seed == 2
    for seed in (1, 0xFFFFFFFE, 0xFFFFFFFF, 2**40 + 5):
        assert resolve(SamplingParams(seed=seed), DEFAULTS).seed != 0xFFFFFFFF


def test_banned_tokens_become_minus_infinity_and_win_over_request_bias() -> None:
    params = SamplingParams(seed=1, logit_bias={9: 2.0, 3: -1.5})
    effective = resolve(params, DEFAULTS, banned=[9, 17])
    assert effective.logit_bias == ((3, -1.5), (9, -math.inf), (17, -math.inf))


def test_no_bias_and_no_bans_is_an_empty_tuple() -> None:
    assert resolve(SamplingParams(seed=1), DEFAULTS).logit_bias == ()


def test_resolve_does_not_touch_the_request_bias() -> None:
    bias = {1: 1.0}
    resolve(SamplingParams(seed=1, logit_bias=bias), DEFAULTS, banned=[2])
    assert bias == {1: 1.0}


@pytest.mark.parametrize(
    "params",
    [
        SamplingParams(seed=3),
        SamplingParams(seed=3, temperature=0.0),
        SamplingParams(seed=3, repeat_penalty=1.2, presence_penalty=0.3, frequency_penalty=0.1,
                       logit_bias={1: 5.0}),
    ],
    ids=["sampled", "greedy", "penalised-and-biased"],
)
def test_sampler_chain_builds_and_closes(params: SamplingParams) -> None:
    chain = SamplerChain(resolve(params, DEFAULTS, banned=[2]), n_vocab=100)
    chain.close()
    chain.close()  # closing twice is harmless


@pytest.fixture(scope="module")
def model() -> Iterator[LlamaModel]:
    loaded = LlamaModel(resolve_model(DEFAULT_MODEL).locate(), n_ctx=256, n_seq_max=1, n_batch=64, n_threads=2)
    yield loaded
    loaded.close()


def _decode(model: LlamaModel) -> None:
    """Fresh logits for the last position of a short prompt."""
    tokens = model.tokenize("The lighthouse keeper looked at the", add_special=True, parse_special=False)
    llama_cpp.llama_memory_clear(model.memory, True)
    array = (llama_cpp.llama_token * len(tokens))(*tokens)  # the batch points into it: keep it alive
    assert llama_cpp.llama_decode(model.ctx, llama_cpp.llama_batch_get_one(array, len(tokens))) == 0


def _greedy(model: LlamaModel, bias: dict[int, float]) -> tuple[int, int]:
    """(the llama.cpp chain's pick, the numpy lane sampler's pick) on the same fresh logits."""
    _decode(model)
    effective = resolve(SamplingParams(temperature=0.0, logit_bias=bias), DEFAULTS)
    chain = SamplerChain(effective, n_vocab=model.meta.n_vocab)
    try:
        expected = chain.sample(model.ctx, -1)  # leaves the logits as they are
    finally:
        chain.close()
    return expected, LaneSampler(effective, LogitRows(model.meta.n_vocab)).sample(model.ctx, -1)


def test_greedy_argmax_picks_what_the_llama_chain_picks(model: LlamaModel) -> None:
    natural, fast = _greedy(model, {})
    assert fast == natural
    for bias in ({natural: float("-inf")}, {natural: -3.0, 11: 0.5}, {11: 100.0}, {200: float("-inf"), 300: 2.5},
                 {natural: float("-inf"), 11: 0.5, 12: float("-inf")}):
        expected, fast = _greedy(model, bias)
        assert fast == expected, bias
    assert _greedy(model, {natural: float("-inf")})[1] != natural
    assert _greedy(model, {11: 100.0})[1] == 11


def test_sampled_draws_on_real_logits_match_the_llama_chain(model: LlamaModel) -> None:
    effective = resolve(SamplingParams(temperature=0.9, top_p=0.95, seed=99), DEFAULTS)
    chain = SamplerChain(effective, n_vocab=model.meta.n_vocab)
    lane = LaneSampler(effective, LogitRows(model.meta.n_vocab))
    _decode(model)
    saved = LogitRows(model.meta.n_vocab).row(model.ctx, -1).copy()
    try:
        picks = []
        for _ in range(50):
            expected = chain.sample(model.ctx, -1)
            picks.append((expected, lane.sample(model.ctx, -1)))
            LogitRows(model.meta.n_vocab).row(model.ctx, -1)[:] = saved
    finally:
        chain.close()
    assert [a for a, _ in picks] == [b for _, b in picks]
    assert len({a for a, _ in picks}) > 1  # really sampled, not one token every time
