"""Log probabilities of sampled tokens: a true log-softmax over the whole vocabulary."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from superfluid.engine.types import TokenLogprob, TopLogprob


def token_logprobs(logits: npt.NDArray[np.float32], chosen: int, top_n: int,
                   token_bytes: Callable[[int], bytes]) -> TokenLogprob:
    """The chosen token's log probability and the ``top_n`` most likely tokens, from raw logits (with any
    logit bias already added). Temperature and truncation samplers do not change these values."""
    finite = logits[np.isfinite(logits)]
    peak = float(finite.max()) if finite.size else 0.0
    log_total = peak + float(np.log(np.exp(finite - peak).sum())) if finite.size else 0.0
    top: tuple[TopLogprob, ...] = ()
    if top_n > 0:
        best = np.argpartition(-logits, top_n)[:top_n] if top_n < logits.size else np.arange(logits.size)
        best = best[np.argsort(-logits[best], kind="stable")]
        top = tuple(_entry(int(t), float(logits[t]) - log_total, token_bytes) for t in best)
    raw = token_bytes(chosen)
    return TokenLogprob(token=raw.decode("utf-8", errors="replace"), bytes=tuple(raw),
                        logprob=float(logits[chosen]) - log_total, top=top)


def _entry(token: int, logprob: float, token_bytes: Callable[[int], bytes]) -> TopLogprob:
    raw = token_bytes(token)
    return TopLogprob(token=raw.decode("utf-8", errors="replace"), bytes=tuple(raw), logprob=logprob)
