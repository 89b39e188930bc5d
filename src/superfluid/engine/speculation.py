"""Prompt-lookup drafting: guess the next tokens by finding the latest n-gram earlier in the sequence.

Drafts are verified in the same batched decode as the lane's next token; each position is sampled in order
with the lane's own chain, and the first disagreement ends the run. Every token is still drawn from its own
position's distribution, in the same order; what changes is the number of decodes (and, as with any batching,
last-bit rounding).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

MAX_NGRAM = 3
MIN_NGRAM = 2


def lookup_draft(tokens: Sequence[int], max_draft: int) -> list[int]:
    """Up to ``max_draft`` tokens that followed the most recent earlier occurrence of the last n-gram."""
    if max_draft <= 0:
        return []
    size = len(tokens)
    for n in range(MAX_NGRAM, MIN_NGRAM - 1, -1):
        if size <= n:
            continue
        tail = list(tokens[size - n:])
        first = tail[0]
        # Search backwards, skipping the tail itself.
        for start in range(size - n - 1, -1, -1):
            if tokens[start] == first and list(tokens[start:start + n]) == tail:
                follow = list(tokens[start + n:start + n + max_draft])
                if follow:
                    return follow
    return []


@dataclass
class SpecStats:
    proposed: int = 0
    accepted: int = 0

    def as_dict(self) -> dict[str, float]:
        rate = self.accepted / self.proposed if self.proposed else 0.0
        return {"proposed": self.proposed, "accepted": self.accepted, "acceptance_rate": round(rate, 3)}
