"""The numpy lane sampler draws what llama.cpp's sampler chain draws: token for token with the same seed, and in
distribution (chi-square against the chain's own probabilities and against the chain's draws)."""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt
import pytest

from superfluid.engine.decoding.lane_sampler import LaneSampler, _seeded, _top_k, draw_table, top_k_table
from superfluid.engine.decoding.sampling import SamplerChain, model_defaults, resolve
from superfluid.engine.types import SamplingParams

DEFAULTS = model_defaults({})
VOCAB = 49152  # the bundled model's


def _rows(count: int, vocab: int, seed: int) -> list[npt.NDArray[np.float32]]:
    """Logits shaped like a model's: a broad low tail and a handful of likely tokens."""
    gen = np.random.default_rng(seed)
    rows = []
    for _ in range(count):
        row = (gen.standard_normal(vocab) * 2.0).astype(np.float32)
        row[gen.integers(0, vocab, 12)] += gen.uniform(4.0, 9.0, 12).astype(np.float32)
        rows.append(row)
    return rows


CASES = {
    "defaults T=0.7 top_p=0.95": SamplingParams(seed=11, temperature=0.7, top_p=0.95),
    "whole vocabulary, token order": SamplingParams(seed=12, temperature=1.0, top_k=0, top_p=1.0, min_p=0.0),
    "top_p without top_k": SamplingParams(seed=13, temperature=0.9, top_k=0, top_p=0.9, min_p=0.0),
    "min_p alone (llama.cpp's unsorted path)": SamplingParams(seed=14, temperature=0.8, top_k=0, top_p=1.0,
                                                              min_p=0.1),
    "top_k 5, high temperature": SamplingParams(seed=15, temperature=1.7, top_k=5, top_p=1.0, min_p=0.0),
    "penalties and biases": SamplingParams(seed=16, temperature=0.8, repeat_penalty=1.3, frequency_penalty=0.2,
                                           presence_penalty=0.3, repeat_last_n=16,
                                           logit_bias={5: 3.0, 7: -math.inf, 12: 9.0}),
    "greedy with penalties": SamplingParams(seed=1, temperature=0.0, repeat_penalty=1.5, repeat_last_n=8),
}


@pytest.mark.parametrize("params", CASES.values(), ids=CASES.keys())
@pytest.mark.parametrize("vocab", [VOCAB, 32003], ids=["bundled-vocab", "odd-vocab"])
def test_same_seed_same_tokens_as_the_llama_chain(params: SamplingParams, vocab: int) -> None:
    effective = resolve(params, DEFAULTS)
    lane, chain = LaneSampler(effective), SamplerChain(effective, vocab)
    try:
        picks = [(chain.sample_row(row.copy()), lane.sample_row(row.copy())) for row in _rows(60, vocab, 3)]
    finally:
        chain.close()
    same = sum(a == b for a, b in picks)
    # Equal but for the last bit of an exp landing exactly on a draw; in practice every pick agrees.
    assert same >= 0.99 * len(picks), picks
    if effective.temperature > 0:
        assert len({b for _, b in picks}) > 10


def test_masked_rows_draw_only_allowed_tokens_as_the_chain_does() -> None:
    """A grammar leaves a few tokens finite; fewer than top_k of them exist."""
    effective = resolve(SamplingParams(seed=5, temperature=1.0), DEFAULTS)
    lane, chain = LaneSampler(effective), SamplerChain(effective, VOCAB)
    allowed = np.array([3, 900, 40000, 49151], dtype=np.intp)
    try:
        for row in _rows(60, VOCAB, 8):
            masked = np.full(VOCAB, -np.inf, dtype=np.float32)
            masked[allowed] = row[allowed]
            expected, got = chain.sample_row(masked.copy()), lane.sample_row(masked.copy())
            assert got in allowed
            assert got == expected
    finally:
        chain.close()
    only = np.full(VOCAB, -np.inf, dtype=np.float32)
    only[77] = 0.0
    assert LaneSampler(effective).sample_row(only) == 77


def _expected(logits: npt.NDArray[np.float32], top_k: int, top_p: float, min_p: float,
              temperature: float) -> npt.NDArray[np.float64]:
    """The chain's distribution worked out in float64: top-k, top-p, min-p on the raw logits, then temperature."""
    order = np.argsort(-logits.astype(np.float64), kind="stable")[:top_k]
    kept = logits[order].astype(np.float64)
    probs = np.exp(kept - kept[0])
    probs /= probs.sum()
    keep = int(np.searchsorted(np.cumsum(probs), top_p)) + 1
    kept = kept[:keep]
    kept = kept[kept >= kept[0] + math.log(min_p)]
    weights = np.exp((kept - kept[0]) / temperature)
    out = np.zeros(len(logits))
    out[order[:len(kept)]] = weights / weights.sum()
    return out


def _chi_square_critical(df: int, z: float = 3.09) -> float:
    """The chi-square value exceeded with probability ~0.001 (Wilson-Hilferty; z = 3.09)."""
    return df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3


def _chi_square(counts: npt.NDArray[np.int64], probs: npt.NDArray[np.float64]) -> tuple[float, int]:
    support = probs > 0
    assert counts[~support].sum() == 0, "a token outside the chain's candidates was drawn"
    expected = probs[support] * counts.sum()
    return float(((counts[support] - expected) ** 2 / expected).sum()), int(support.sum()) - 1


def test_distribution_matches_the_chain_chi_square() -> None:
    vocab = 512
    logits = (np.random.default_rng(21).standard_normal(vocab) * 1.5).astype(np.float32)
    logits[:30] += np.linspace(6.0, 2.0, 30, dtype=np.float32)
    top_k, top_p, min_p, temperature = 40, 0.95, 0.02, 0.7
    probs = _expected(logits, top_k, top_p, min_p, temperature)
    assert 5 < np.count_nonzero(probs) <= top_k
    draws = 8000
    mine = np.zeros(vocab, dtype=np.int64)
    theirs = np.zeros(vocab, dtype=np.int64)
    for seed in range(4):  # several seeds: the stream of every lane, not one lucky one
        effective = resolve(SamplingParams(seed=seed, temperature=temperature, top_k=top_k, top_p=top_p,
                                           min_p=min_p), DEFAULTS)
        lane, chain = LaneSampler(effective), SamplerChain(effective, vocab)
        try:
            for _ in range(draws // 4):
                mine[lane.sample_row(logits.copy())] += 1
                theirs[chain.sample_row(logits.copy())] += 1
        finally:
            chain.close()
    for counts in (mine, theirs):
        statistic, df = _chi_square(counts, probs)
        assert statistic < _chi_square_critical(df), (statistic, df)
    # And the two samples against each other (two-sample chi-square over the shared support).
    both = (mine + theirs) > 0
    pooled = (mine[both] + theirs[both]) / 2
    statistic = float((((mine[both] - pooled) ** 2 + (theirs[both] - pooled) ** 2) / pooled).sum())
    assert statistic < _chi_square_critical(int(both.sum()) - 1)


def test_seeded_lanes_repeat_and_seeds_differ() -> None:
    rows = _rows(40, VOCAB, 4)

    def run(seed: int) -> list[int]:
        lane = LaneSampler(resolve(SamplingParams(seed=seed, temperature=1.0), DEFAULTS))
        return [lane.sample_row(row.copy()) for row in rows]

    assert run(7) == run(7)
    assert run(7) != run(8)


def test_greedy_takes_the_first_of_equal_maxima_and_respects_bans() -> None:
    row = np.zeros(300, dtype=np.float32)
    row[[17, 250]] = 5.0
    greedy = resolve(SamplingParams(temperature=0.0), DEFAULTS)
    assert LaneSampler(greedy).sample_row(row.copy()) == 17
    banned = resolve(SamplingParams(temperature=0.0), DEFAULTS, banned=[17])
    assert LaneSampler(banned).sample_row(row.copy()) == 250


def test_penalty_window_forgets_tokens_older_than_repeat_last_n() -> None:
    row = np.zeros(64, dtype=np.float32)
    row[[1, 2]] = [3.0, 2.9]

    def run(last_n: int) -> list[int]:
        lane = LaneSampler(resolve(SamplingParams(temperature=0.0, repeat_penalty=2.0, repeat_last_n=last_n),
                                   DEFAULTS))
        return [lane.sample_row(row.copy()) for _ in range(4)]

    # A window of one: only the last token is penalised, so the two alternate.
    assert run(1) == [1, 2, 1, 2]
    # A window of two: once both are in it, both are penalised alike (1.5 against 1.45) and 1 stays ahead.
    assert run(2) == [1, 2, 1, 1]
    assert run(0) == [1, 1, 1, 1]  # no window, no penalty


@pytest.mark.parametrize("seed", [0, 1, 99, 2**31 + 7, 0xFFFFFFFE])
def test_lane_random_stream_is_random_state_seeded_the_legacy_way(seed: int) -> None:
    """The lane's generator is built without RandomState(seed)'s entropy draw, yet yields the same stream."""
    expected = np.random.RandomState(seed).randint(0, 1 << 32, size=600, dtype=np.uint64)
    assert np.array_equal(_seeded(seed).randint(0, 1 << 32, size=600, dtype=np.uint64), expected)


@pytest.mark.parametrize("vocab", [VOCAB, 32003], ids=["bundled-vocab", "odd-vocab"])
@pytest.mark.parametrize("k", [5, 40])
def test_top_k_table_ranks_what_top_k_finds_row_by_row(vocab: int, k: int) -> None:
    rows = _rows(6, vocab, 21)
    rows[1][:] = -np.inf  # a grammar leaving a few tokens: the floor is -inf, the row is left to _top_k
    rows[1][[3, 500, 4000]] = [1.0, 2.0, 3.0]
    rows[2][:] = 1.5  # all equal: far more than 4k candidates, left to _top_k
    rows[3][::7] = -np.inf
    rows[4][[10, 20, 30]] = rows[4].max()  # a tie at the top: the higher id ranks first, as sorted() puts it
    table = top_k_table(np.stack(rows), k)
    assert table is not None
    ids, logits, usable = table
    assert usable.tolist() == [True, False, False, True, True, True]
    for row, row_ids, row_logits, ok in zip(rows, ids, logits, usable, strict=True):
        if ok:
            ranked = sorted(((float(row[i]), int(i)) for i in _top_k(row, k)), reverse=True)[:k]
            assert row_ids.tolist() == [i for _, i in ranked]
            assert row_logits.tolist() == [x for x, _ in ranked]


@pytest.mark.parametrize("vocab", [VOCAB, 32003], ids=["bundled-vocab", "odd-vocab"])
def test_lanes_drawn_together_draw_what_each_lane_draws_alone(vocab: int) -> None:
    """Lanes of different settings (same k), their rows prepared and drawn from as one table (top_k_table,
    draw_table) for many steps, draw the tokens each draws alone, penalty windows included."""
    names = ["defaults T=0.7 top_p=0.95", "penalties and biases", "top_k 5, high temperature"]
    settings = [resolve(CASES[name], DEFAULTS) for name in names]
    settings += [resolve(SamplingParams(seed=40 + i, temperature=t, top_p=p, min_p=m), DEFAULTS)
                 for i, (t, p, m) in enumerate([(0.3, 0.8, 0.0), (1.2, 1.0, 0.2), (0.7, 0.5, 0.05)])]
    steps = [_rows(len(settings), vocab, 100 + step) for step in range(25)]
    alone = [LaneSampler(s) for s in settings]
    expected = [[lane.sample_row(rows[i].copy()) for i, lane in enumerate(alone)] for rows in steps]
    together = [LaneSampler(s) for s in settings]
    got = []
    for rows in steps:
        picks = []
        for k in sorted({lane.shared_top_k for lane in together}):
            members = [i for i, lane in enumerate(together) if lane.shared_top_k == k]
            block = np.stack([rows[i] for i in members])
            for i, row in zip(members, block, strict=True):
                together[i].prepare(row)
            table = top_k_table(block, k)
            assert table is not None and table[2].all()
            cuts = np.array([together[i].cuts for i in members])
            uniforms = np.array([together[i].uniform() for i in members])
            columns = draw_table(table[1], cuts, uniforms)
            for row_no, (i, column) in enumerate(zip(members, columns.tolist(), strict=True)):
                together[i].pick(i, int(table[0][row_no, column]))
        for i, lane in enumerate(together):
            picks.append(lane.sample(None, i))
        got.append(picks)
    assert got == expected
    assert len({token for picks in got for token in picks}) > 20


class _Rows:
    """LogitRows' part the lane sampler uses: a fixed row per batch index."""

    def __init__(self, rows: list[npt.NDArray[np.float32]]) -> None:
        self.rows = rows

    def row(self, _ctx: object, batch_index: int) -> npt.NDArray[np.float32]:
        return self.rows[batch_index]


@pytest.mark.parametrize("name", ["defaults T=0.7 top_p=0.95", "penalties and biases", "top_k 5, high temperature"])
def test_staged_candidates_draw_what_the_lane_alone_draws(name: str) -> None:
    """Prepared and given its candidates found beforehand, a lane draws the tokens it draws alone,
    biases and penalties applied once."""
    effective = resolve(CASES[name], DEFAULTS)
    rows = _rows(40, VOCAB, 8)
    alone = LaneSampler(effective)
    expected = [alone.sample_row(row.copy()) for row in rows]
    copies = [row.copy() for row in rows]
    staged = LaneSampler(effective, _Rows(copies))  # type: ignore[arg-type]
    got = []
    for index, row in enumerate(copies):
        staged.prepare(row)
        staged.stage(index, _top_k(row, staged.shared_top_k).tolist())
        got.append(staged.sample(None, index))
    assert got == expected
    assert staged.shared_top_k == effective.top_k
    assert LaneSampler(resolve(CASES["greedy with penalties"], DEFAULTS)).shared_top_k == 0
