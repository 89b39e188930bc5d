"""Comparing two greedy replies that llama.cpp may round differently.

A cold prefill and a warm one (the prompt's cells from the cache, only its last token decoded), or one lane
decoding beside others, run llama.cpp's kernels on batches of other shapes, which round differently in the last
bits. Where the two likeliest next tokens are almost equally likely, that can pick the other one: such replies
are the same up to that position, not beyond. Both replies must have been asked for with ``logprobs: true`` and
``top_logprobs`` of at least 2.
"""

from __future__ import annotations

from typing import Any

NEAR_TIE = 0.1
"""Log-probability gap between the two likeliest tokens under which rounding in other batch shapes may pick the
other one."""


def _steps(reply: dict[str, Any]) -> list[dict[str, Any]]:
    return list(reply["choices"][0]["logprobs"]["content"])


def _near_tie(step: dict[str, Any]) -> bool:
    top = sorted((t["logprob"] for t in step["top_logprobs"]), reverse=True)
    return len(top) > 1 and top[0] - top[1] < NEAR_TIE


def same_up_to_a_near_tie(a: dict[str, Any], b: dict[str, Any]) -> None:
    """The same tokens, or the same up to a position where the runs had their two likeliest tokens within
    ``NEAR_TIE``. The end token is not in a reply's log probabilities, so where one reply stopped and the other
    went on, the one that went on must have had a near-tie there (the end token beside the one it wrote)."""
    steps_a, steps_b = _steps(a), _steps(b)
    for x, y in zip(steps_a, steps_b, strict=False):
        if x["token"] != y["token"]:
            assert _near_tie(x) and _near_tie(y), (x, y)
            return
    if len(steps_a) == len(steps_b):
        return
    (short, _), (long, longer_steps) = sorted(((a, steps_a), (b, steps_b)), key=lambda pair: len(pair[1]))
    assert short["choices"][0]["finish_reason"] == "stop", (short, long)
    step = longer_steps[len(_steps(short))]
    assert _near_tie(step), (step, short["choices"][0]["message"]["content"], long["choices"][0]["message"]["content"])
