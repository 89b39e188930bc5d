"""One lane's next token, drawn the way llama.cpp's sampler chain (sampling.SamplerChain) draws it, without it.

The chain the engine used to run per lane is: logit biases, repetition penalties, then either greedy, or top-k,
top-p, min-p, temperature and a seeded draw. llama.cpp runs it by copying the whole vocabulary (49k entries on
the bundled model) into candidate records and sorting them. Here:

- biases, penalties and greedy's argmax are numpy operations on the logits row, in place;
- top-k costs two passes over the row: the maxima of 64-token groups (element-wise over a grid view), whose
  k-th largest is a floor under the k-th largest logit, then one comparison with that floor, which keeps the
  k best and on real logits only a handful more; for a lane alone those few are sorted as Python floats, and
  top-p, min-p, temperature and the draw run on them in plain Python (cheaper than a dozen more numpy calls on
  40 numbers);
- the lanes of one decode that sample alike (top-k, no grammar, no log probabilities) do all of that together:
  one pass per stage over all their rows (``top_k_table``), then the cuts and draws as a few numpy calls on a
  (lanes x k) table (``draw_table``), so the Python cost per token does not grow with a lane's candidates;
- without top-k, the same stages run in numpy over the whole row, in llama.cpp's float32 arithmetic;
- the draw reads the same uniform number llama.cpp does: two 32-bit outputs of a Mersenne Twister seeded with
  the lane's seed (numpy's legacy seeding is std::mt19937's), combined as libstdc++'s
  ``generate_canonical<double, 53>`` combines them.

So a seeded lane draws the same tokens as the chain did, except where a cut or the draw falls within float
rounding of a boundary; the distribution is the chain's (tests/engine/decoding/test_lane_sampler.py checks
token agreement and chi-square). Every lane the engine runs can take this path: grammars mask the row before
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
_BLOCK = 64
"""Top-k reads the row as a grid of this many rows (49152 logits = 768 groups of 64 on the bundled model): fewer,
wider groups make the group maxima cheaper and the floor's partition dearer; 32 to 128 cost about the same."""
_DRAWS = 256
"""32-bit outputs taken from a lane's random stream at a time (two per token)."""


class LaneSampler:
    """Samples one lane's outputs in order; holds its penalty window and its random stream."""

    def __init__(self, sampling: EffectiveSampling, rows: LogitRows | None = None) -> None:
        self._rows = rows
        self._bias_ids = np.array([t for t, _ in sampling.logit_bias], dtype=np.intp)
        self._bias_values = np.array([b for _, b in sampling.logit_bias], dtype=_F32)
        self._few_biases = [(t, _F32(b)) for t, b in sampling.logit_bias] if len(sampling.logit_bias) <= 16 else None
        """A few biases (ignore_eos bans the end tokens) are added one scalar at a time: numpy's fancy indexing
        lets the GIL go, scalar stores do not (see models/native.py)."""
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
        self._cuts = None if self._greedy else (
            float(self._top_p), -math.inf if self._log_min_p is None else float(self._log_min_p),
            1.0 / float(self._temperature))
        """``cuts``, fixed for the lane's life (read for every sampled token)."""
        self._total: np.float32 | None = None
        """The softmax denominator top-p divides by, when it is not the candidates' own sum in sorted order."""
        self._random = _seeded(sampling.seed) if not self._greedy else None
        self._pool: list[int] = []
        self._next = 0
        self._staged: tuple[int, list[int] | None] | None = None
        self._picked: tuple[int, int] | None = None

    def sample(self, ctx: Any, batch_index: int) -> int:
        """The token for one output of the last decode (biases and penalties are written into its row)."""
        picked, self._picked = self._picked, None
        if picked is not None and picked[0] == batch_index:  # drawn with other lanes' (draw_table)
            return self._took(picked[1])
        assert self._rows is not None
        row = self._rows.row(ctx, batch_index)
        staged, self._staged = self._staged, None
        if staged is not None and staged[0] == batch_index:  # prepared; candidates found with other lanes'
            return self._choose(row, staged[1])
        return self.sample_row(row)

    def sample_row(self, row: Row) -> int:
        """The token for one logits row; the row is changed in place."""
        self.prepare(row)
        return self._choose(row, None)

    @property
    def shared_top_k(self) -> int:
        """The k of a top-k draw whose candidates may be found for several lanes at once (0: not this lane)."""
        return 0 if self._greedy else max(self._top_k, 0)

    @property
    def greedy(self) -> bool:
        return self._greedy

    @property
    def cuts(self) -> tuple[float, float, float]:
        """What ``draw_table`` needs of this lane: top-p, log of min-p (-inf: off) and 1 / temperature."""
        assert self._cuts is not None, "a greedy lane draws nothing"
        return self._cuts

    def pick(self, batch_index: int, token: int) -> None:
        """The token of output ``batch_index`` was chosen with other lanes' (its row prepared first): the next
        ``sample`` of that output returns it."""
        self._picked = (batch_index, token)

    def uniform(self) -> float:
        """The next number of this lane's random stream (one per sampled token)."""
        return self._uniform()

    def prepare(self, row: Row) -> None:
        """Biases and penalties, written into the row: what comes before the candidates are chosen."""
        if self._few_biases is not None:
            for token, bias in self._few_biases:
                row[token] += bias
        elif len(self._bias_ids):
            row[self._bias_ids] += self._bias_values
        if self._counts:
            self._penalise(row)

    def stage(self, batch_index: int, top: list[int] | None) -> None:
        """The row of output ``batch_index`` is prepared, and ``top`` holds its top-k candidates (None: find
        them alone): the next ``sample`` of that output draws from them without preparing it again."""
        self._staged = (batch_index, top)

    def _choose(self, row: Row, top: list[int] | None) -> int:
        # Greedy: the first of equal maxima, as llama.cpp's greedy sampler picks.
        return self._took(int(row.argmax()) if self._greedy else self._draw(row, top))

    def _took(self, token: int) -> int:
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

    def _draw(self, row: Row, top: list[int] | None = None) -> int:
        if 0 < self._top_k < row.shape[0]:
            return self._draw_top_k(row, top)
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

    def _draw_top_k(self, row: Row, top: list[int] | None = None) -> int:
        """Top-k, then top-p, min-p, temperature and the draw on at most k candidates, in plain Python floats.

        A few dozen candidates cost less as Python floats than as a dozen more numpy calls. The arithmetic is
        double where llama.cpp's is partly float: a pick can differ only where a cut or the draw falls within
        float rounding of a boundary.
        """
        ids = top if top is not None else _top_k(row, self._top_k).tolist()
        item = row.item  # scalar reads keep the GIL, where a fancy index of the row lets it go
        ranked = sorted(((item(i), i) for i in ids), reverse=True)[:self._top_k]
        best = ranked[0][0]
        if best == -math.inf:  # everything masked: nothing to weigh
            self._uniform()
            return int(ranked[0][1])
        keep = len(ranked)
        if self._top_p < 1:
            weights = [math.exp(logit - best) for logit, _ in ranked]
            goal, running = sum(weights) * float(self._top_p), 0.0
            for at, weight in enumerate(weights):
                running += weight
                if running >= goal:  # through the first that reaches p
                    keep = at + 1
                    break
        if self._log_min_p is not None:
            floor, kept = best + float(self._log_min_p), 1  # the best always stays
            while kept < keep and ranked[kept][0] >= floor:
                kept += 1
            keep = kept
        rnd = self._uniform()
        if keep == 1:
            return int(ranked[0][1])
        scale = 1.0 / float(self._temperature)
        weights = [math.exp((logit - best) * scale) for logit, _ in ranked[:keep]]
        goal, running = sum(weights) * rnd, 0.0
        for at, weight in enumerate(weights):
            running += weight
            if running >= goal:
                return int(ranked[at][1])
        return int(ranked[keep - 1][1])

    def _candidates(self, row: Row) -> tuple[Ids, Row, bool]:
        """The whole row (no top-k): sorted when top-p follows, else in token order.

        Tokens at -inf (bans, grammar masks) are left out: their weight is 0, so they sit after every other
        candidate once sorted, add nothing to any sum, and no draw can land on them.
        """
        self._total = None
        ids = np.flatnonzero(row > -np.inf)
        if not len(ids):
            ids = np.arange(row.shape[0])
        if self._top_k > 0:  # top-k at least the vocabulary: everything, sorted
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


def _seeded(seed: int) -> np.random.RandomState:
    """numpy's legacy generator seeded as ``RandomState(seed)`` seeds it (std::mt19937's seeding).

    ``RandomState(seed)`` first seeds a fresh MT19937 from operating-system entropy (which lets the GIL go ~200
    times the first time in a process, twice after that); a generator built on a fixed seed and then
    legacy-seeded reaches the same state with one release.
    """
    random = np.random.RandomState(np.random.MT19937(0))
    random.seed(seed)
    return random


def _top_k(row: Row, k: int) -> Ids:
    """The ids of the k largest logits and perhaps a few more, in token order (only usable ones, above -inf).

    The row is read as a grid of ``_BLOCK`` rows, so that each column is a group of tokens and the groups'
    maxima are one element-wise pass (fast in numpy, unlike a maximum along short rows). The k-th largest of
    those maxima is a floor no greater than the k-th largest logit, so one comparison with it keeps the k
    largest and, on real logits, only a handful more.
    """
    size = row.shape[0]
    full = size - size % _BLOCK
    tops = row[:full].reshape(_BLOCK, -1).max(axis=0)
    if len(tops) <= k:
        return (row > -np.inf).nonzero()[0]
    floor = np.partition(tops, len(tops) - k)[len(tops) - k]
    ids: Ids = (row > floor if floor == -np.inf else row >= floor).nonzero()[0]
    if len(ids) > 4 * k:  # many equal or masked logits: cut to k before anything sorts them
        ids = ids[row[ids].argpartition(len(ids) - k)[len(ids) - k:]]
    return ids


def top_k_table(block: npt.NDArray[np.float32], k: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64],
                                                                  npt.NDArray[np.bool_]] | None:
    """Each row's k best candidates at once, as tables: (ids, logits, usable), each row's candidates in the order
    ``_draw_top_k`` ranks them (logit, then id, both descending), -inf past a row's last. It finds them as
    ``_top_k`` does, one numpy call over every row for each step (a call on whole rows lets the GIL go: once for all
    rows instead of once per row, see models/native.py). A row is not usable (its lane draws alone with ``_top_k``)
    where its floor is -inf (mostly masked) or it keeps more than 4k candidates. None when the vocabulary has no
    more groups than k."""
    rows, size = block.shape
    full = size - size % _BLOCK
    groups = full // _BLOCK
    if groups <= k:
        return None
    tops = block[:, :full].reshape(rows, _BLOCK, groups).max(axis=1)
    tops.partition(groups - k, axis=1)
    floors = tops[:, groups - k]
    found = np.flatnonzero(block >= floors[:, None])  # flat: several times faster than a 2-D nonzero
    owners, tokens = np.divmod(found, size)
    logits = block.reshape(-1)[found]
    counts = np.bincount(owners, minlength=rows)
    usable = (counts <= 4 * k) & (floors > -np.inf)
    order = np.lexsort((-tokens, -logits, owners))
    owners, tokens, logits = owners[order], tokens[order], logits[order]
    at = np.arange(len(owners)) - (np.cumsum(counts) - counts)[owners]
    kept = at < k
    ids = np.zeros((rows, k), dtype=np.int64)
    table = np.full((rows, k), -np.inf)
    ids[owners[kept], at[kept]] = tokens[kept]
    table[owners[kept], at[kept]] = logits[kept]
    return ids, table, usable


def draw_table(logits: npt.NDArray[np.float64], cuts: npt.NDArray[np.float64],
               uniforms: npt.NDArray[np.float64]) -> npt.NDArray[np.intp]:
    """``_draw_top_k`` for many lanes at once: each row of ``logits`` holds a lane's ranked top-k candidates (-inf
    past its last; its best finite), ``cuts`` each lane's (top-p, log min-p, 1 / temperature) and ``uniforms`` each
    lane's draw. Returns the column each lane picks. The same cuts in the same order and arithmetic (doubles)."""
    best = logits[:, :1]
    running = np.cumsum(np.exp(logits - best), axis=1)
    top_p, log_min_p, scale = cuts[:, 0], cuts[:, 1], cuts[:, 2]
    keep = np.count_nonzero(logits > -np.inf, axis=1)
    nucleus = np.count_nonzero(running < (running[:, -1] * top_p)[:, None], axis=1) + 1  # through the first >= p
    keep = np.where(top_p < 1, np.minimum(keep, nucleus), keep)
    keep = np.minimum(keep, np.count_nonzero(logits >= best + log_min_p[:, None], axis=1))
    keep = np.maximum(keep, 1)  # the best always stays
    weights = np.exp((logits - best) * scale[:, None])
    weights[np.arange(logits.shape[1])[None, :] >= keep[:, None]] = 0.0
    running = np.cumsum(weights, axis=1)
    goal = running[np.arange(len(keep)), keep - 1] * uniforms
    return np.asarray(np.count_nonzero(running < goal[:, None], axis=1), dtype=np.intp)


def _ranked(row: Row, k: int) -> tuple[Ids, Row]:
    ids = _top_k(row, k)
    return ids, row[ids]
