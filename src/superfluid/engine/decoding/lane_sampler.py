"""One lane's next token, drawn in numpy the way llama.cpp's sampler chain (sampling.SamplerChain) draws it.

The chain the engine builds is: logit biases, repetition penalties, then either greedy, or top-k, top-p, min-p,
temperature and a seeded draw. llama.cpp runs it by copying the whole vocabulary (49k entries on the bundled
model) into candidate records and sorting them; here each stage is a few numpy passes over the logits row:

- top-k looks only at the tokens within ``reach`` of the best logit (one compare and one nonzero over the row),
  widening the reach until at least k tokens are in it, so the k best are always among them; an argpartition of
  that short list then takes exactly the k best, and only those are sorted;
- top-p, min-p, temperature and the draw then work on at most k candidates, in llama.cpp's arithmetic: float32
  softmax with sequential sums, the min-p threshold in logit space, float64 running sums for the draw;
- the draw reads the same uniform number llama.cpp does: two 32-bit outputs of a Mersenne Twister seeded
  with the lane's seed (numpy's legacy seeding is std::mt19937's), combined as libstdc++'s
  ``generate_canonical<double, 53>`` combines them.

So a seeded lane draws the same tokens as the chain did, except where the last bit of an ``exp`` differs between
numpy and the C library and the draw falls exactly there; the distribution is the chain's (tests/engine/decoding/
test_lane_sampler.py checks both). Every lane the engine runs can take this path: grammars mask the row before
it, log probabilities are read before it, and the chain has no stage this file lacks. The chain stays in
sampling.py as the reference the tests and benchmarks/sampling.py hold this one against.
"""

from __future__ import annotations

import math
from collections import deque
from typing import Any

import numpy as np
import numpy.typing as npt

from superfluid.engine.decoding.sampling import EffectiveSampling, LogitRows

Row = npt.NDArray[np.float32]
Ids = npt.NDArray[np.intp]

_F32 = np.float32
_TWO_32 = 4294967296.0
_TWO_64 = 18446744073709551616.0
_BELOW_ONE = math.nextafter(1.0, 0.0)
_BLOCK = 128
"""Top-k reads the row as a grid of this many rows (49152 logits = 384 groups of 128 on the bundled model)."""
_DRAWS = 256
"""32-bit outputs taken from a lane's random stream at a time (two per token)."""


class LaneSampler:
    """Samples one lane's outputs in order; holds its penalty window and its random stream."""

    def __init__(self, sampling: EffectiveSampling, rows: LogitRows | None = None) -> None:
        self._rows = rows
        self._bias_ids = np.array([t for t, _ in sampling.logit_bias], dtype=np.intp)
        self._bias_values = np.array([b for _, b in sampling.logit_bias], dtype=_F32)
        self._greedy = sampling.temperature <= 0
        penalties = (sampling.repeat_penalty != 1.0 or sampling.frequency_penalty != 0.0
                     or sampling.presence_penalty != 0.0)
        self._last_n = max(sampling.repeat_last_n, 0) if penalties else 0
        self._window: deque[int] = deque()
        self._counts: dict[int, int] = {}
        self._repeat = _F32(sampling.repeat_penalty)
        self._frequency = _F32(sampling.frequency_penalty)
        self._presence = _F32(sampling.presence_penalty)
        self._top_k = sampling.top_k
        self._top_p = _F32(sampling.top_p)
        self._log_min_p = _F32(np.log(_F32(sampling.min_p))) if _F32(sampling.min_p) > 0 else None
        self._temperature = _F32(sampling.temperature)
        self._total: np.float32 | None = None
        """The softmax denominator top-p divides by, when it is not the candidates' own sum in sorted order."""
        self._random = np.random.RandomState(sampling.seed) if not self._greedy else None
        self._pool: list[int] = []
        self._next = 0

    def sample(self, ctx: Any, batch_index: int) -> int:
        """The token for one output of the last decode (biases and penalties are written into its row)."""
        assert self._rows is not None
        return self.sample_row(self._rows.row(ctx, batch_index))

    def sample_row(self, row: Row) -> int:
        """The token for one logits row; the row is changed in place."""
        if len(self._bias_ids):
            row[self._bias_ids] += self._bias_values
        if self._counts:
            self._penalise(row)
        # Greedy: the first of equal maxima, as llama.cpp's greedy sampler picks.
        token = int(row.argmax()) if self._greedy else self._draw(row)
        if self._last_n:
            self._accept(token)
        return token

    def close(self) -> None:
        """Nothing to free (the llama.cpp chain needed this; kept so lanes end the same way)."""

    # ---- stages ---------------------------------------------------------------------------------
    def _penalise(self, row: Row) -> None:
        ids = np.fromiter(self._counts, dtype=np.intp, count=len(self._counts))
        counts = np.fromiter(self._counts.values(), dtype=_F32, count=len(self._counts))
        logits = row[ids]
        logits = np.where(logits <= 0, logits * self._repeat, logits / self._repeat)
        row[ids] = logits - (counts * self._frequency + self._presence)

    def _accept(self, token: int) -> None:
        counts = self._counts
        counts[token] = counts.get(token, 0) + 1
        if len(self._window) >= self._last_n:
            old = self._window.popleft()
            counts[old] -= 1
            if not counts[old]:
                del counts[old]
        self._window.append(token)

    def _draw(self, row: Row) -> int:
        ids, logits, ordered = self._candidates(row)
        if (logits[0] if ordered else logits.max()) == -np.inf:  # everything masked: nothing to weigh
            self._uniform()
            return int(ids[0])
        if self._top_p < 1:
            ids, logits = self._nucleus(ids, logits)
        if self._log_min_p is not None:
            ids, logits, ordered = self._min_p(ids, logits, ordered)
        logits = logits / self._temperature
        rnd = self._uniform()
        if len(ids) == 1:
            return int(ids[0])
        weights = np.exp(logits - (logits[0] if ordered else logits.max()))
        running = weights.cumsum(dtype=np.float64)  # llama.cpp adds float weights into a double, in order
        at = int(running.searchsorted(running[-1] * rnd))  # the first whose running sum reaches the target
        return int(ids[min(at, len(ids) - 1)])

    def _candidates(self, row: Row) -> tuple[Ids, Row, bool]:
        """Top-k (sorted, best first), or the whole row: sorted when top-p follows, else in token order.

        Tokens at -inf (bans, grammar masks) may be left out: their weight is 0, so they sit after every other
        candidate once sorted, add nothing to any sum, and no draw can land on them.
        """
        k, size = self._top_k, row.shape[0]
        self._total = None
        if 0 < k < size:
            return self._sorted(*_ranked(row, k))
        ids = np.flatnonzero(row > -np.inf)
        if not len(ids):
            ids = np.arange(size)
        if k > 0:
            return self._sorted(ids, row[ids])
        if self._top_p < 1:
            return self._nucleus_head(row, ids)
        return ids, row[ids], False

    def _nucleus_head(self, row: Row, ids: Ids) -> tuple[Ids, Row, bool]:
        """Top-p without top-k: only the sorted head that top-p keeps is needed, not the whole sorted row."""
        logits = row[ids]
        best = logits.max()
        # llama.cpp's top-p sums the softmax in token order, before it sorts.
        total = self._total = np.exp(logits - best).cumsum()[-1]
        size = 64
        while size < len(ids):
            head, head_logits, _ = self._sorted(*_ranked(row, size))
            if (np.exp(head_logits - best) / total).cumsum()[-1] >= self._top_p:
                return head, head_logits, True
            size *= 4
        return self._sorted(ids, logits)

    @staticmethod
    def _sorted(ids: Ids, logits: Row) -> tuple[Ids, Row, bool]:
        order = (-logits).argsort(kind="stable")
        return ids[order], logits[order], True

    def _nucleus(self, ids: Ids, logits: Row) -> tuple[Ids, Row]:
        """Top-p on sorted candidates: the shortest head whose float32 softmax mass reaches p."""
        weights = np.exp(logits - logits[0])
        weights /= weights.cumsum()[-1] if self._total is None else self._total  # in order, in float32
        keep = int(weights.cumsum().searchsorted(self._top_p)) + 1  # through the first that reaches p
        return ids[:keep], logits[:keep]

    def _min_p(self, ids: Ids, logits: Row, ordered: bool) -> tuple[Ids, Row, bool]:
        """Min-p: keep the tokens whose logit is within log(p) of the best (the best always stays)."""
        assert self._log_min_p is not None
        if ordered:
            floor = logits[0] + self._log_min_p
            keep = max(1, int(np.count_nonzero(logits >= floor)))
            return ids[:keep], logits[:keep], True
        kept = logits >= logits.max() + self._log_min_p
        if kept.any():
            return ids[kept], logits[kept], False
        ids, logits, _ = self._sorted(ids, logits)
        return ids[:1], logits[:1], True

    def _uniform(self) -> float:
        """A uniform double in [0, 1) from two 32-bit draws, as libstdc++ builds it for llama.cpp."""
        if self._next + 2 > len(self._pool):
            assert self._random is not None
            self._pool = self._random.randint(0, 1 << 32, size=_DRAWS, dtype=np.uint64).tolist()
            self._next = 0
        low, high = self._pool[self._next], self._pool[self._next + 1]
        self._next += 2
        value = (low + high * _TWO_32) / _TWO_64
        return value if value < 1.0 else _BELOW_ONE


def _top_k(row: Row, k: int) -> Ids:
    """The ids of the k largest logits, in no order (fewer when fewer than k are above -inf; any ties cut as
    llama.cpp's partial sort may cut them).

    The row is read as ``_BLOCK`` rows of a grid, so that each column is a group of tokens and the groups'
    maxima are one element-wise pass (fast in numpy, unlike a maximum along short rows). The k-th largest of
    those maxima is a floor no greater than the k-th largest logit, so the k largest all lie in groups whose
    maximum reaches it: only those few columns are searched.
    """
    size = row.shape[0]
    full = size - size % _BLOCK
    grid = row[:full].reshape(_BLOCK, -1)
    tops = grid.max(axis=0)
    if len(tops) <= k:
        ids = (row > -np.inf).nonzero()[0]
    else:
        floor = np.partition(tops, len(tops) - k)[len(tops) - k]
        if floor == -np.inf:  # fewer than k groups hold a usable logit: take every usable one
            floor = np.nextafter(np.float32(-np.inf), np.float32(0))
        groups = (tops >= floor).nonzero()[0]
        within, group = (grid[:, groups] >= floor).nonzero()
        ids = within * grid.shape[1] + groups[group]
        if full < size:  # the few tokens past the grid are always searched
            ids = np.concatenate((ids, full + (row[full:] >= floor).nonzero()[0]))
    if not len(ids):
        return np.arange(min(k, size))
    if len(ids) > k:
        ids = ids[row[ids].argpartition(len(ids) - k)[len(ids) - k:]]
    return ids


def _ranked(row: Row, k: int) -> tuple[Ids, Row]:
    ids = _top_k(row, k)
    return ids, row[ids]
