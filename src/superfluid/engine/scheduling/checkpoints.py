"""Checkpoints of recurrent state: how a lane of a recurrent or hybrid model goes back to an earlier token.

Attention cells are kept per token, so a lane's cache can be cut back to any prefix of its tokens. A recurrent
layer (Mamba's scan, LFM2's short convolution, the linear attention of Qwen3-Next) keeps one state per sequence:
the state after the sequence's last token. llama.cpp refuses to cut such a sequence short
(``llama_memory_seq_rm`` returns false), and a decode that then goes on from an earlier position fails. So a lane
of such a model can resume only where a state was saved:

- its **live state**, when the lane's tokens are all a prefix of the new prompt (a conversation's next turn);
- a **checkpoint**: the recurrent part of the sequence's state at one token count (``llama_state_seq_get_data_ext``
  with ``LLAMA_STATE_SEQ_FLAGS_PARTIAL_ONLY``), saved in memory while the lane prefilled. Loading it back and
  dropping the attention cells after that count (which then succeeds) puts the lane at that token. A hybrid's
  checkpoint holds no attention cells, so it is good only while the lane still has its cells up to that count.

Where checkpoints are taken (``branch_points``): where a later request is likely to leave this one's path. The
start of the template's generation prompt, or the last prompt token where there is none (a prompt sent again,
and ``n`` > 1 siblings, resume there and decode the rest for the logits; templates that render an earlier
assistant turn otherwise than they prompt for it, such as those that drop its reasoning, branch there); the end
of the prompt (a next turn whose re-rendered reply differs from the tokens generated: a stop string, trimmed
whitespace, another tokenization); and, during a long prefill, every ``min_step`` tokens. The lane's rows are cut
at a point that falls inside a chunk, so that a tick ends there: one more decode per prompt (the end of the prompt
needs none: it is where the first reply token is decoded anyway). A lane keeps at most ``max_per_lane``
checkpoints, dropping the earliest; 0 turns them off (a lane then resumes only from its live state, else from
the start).

llama-server does the same with ``--ctx-checkpoints`` and ``--checkpoint-min-step`` (the names are its), placing
them at user-message starts and a few tokens before the end of the prompt.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import llama_cpp

from superfluid.engine.models.native import byte_buffer

PARTIAL_ONLY = 1
"""``LLAMA_STATE_SEQ_FLAGS_PARTIAL_ONLY``: only the state that cannot be rolled back (recurrent layers)."""


@dataclass(frozen=True)
class Checkpoint:
    """The recurrent state of a sequence after its first ``n_tokens`` tokens."""

    n_tokens: int
    payload: Any
    """A ctypes byte buffer (native.byte_buffer) holding llama.cpp's partial sequence state."""
    size: int


@dataclass(frozen=True)
class CheckpointPolicy:
    """``--ctx-checkpoints`` and ``--checkpoint-min-step``."""

    max_per_lane: int = 32
    min_step: int = 2048

    @property
    def on(self) -> bool:
        return self.max_per_lane > 0


def branch_points(prompt_len: int, cached: int, generation_prompt: int, policy: CheckpointPolicy) -> list[int]:
    """Token counts of a prompt at which its lane should save a checkpoint while it prefills (sorted; each
    after ``cached``, where the prefill starts, and at most the whole prompt). ``generation_prompt``: the tokens
    of the template's generation prompt at the prompt's end (0: none or unknown)."""
    if not policy.on:
        return []
    points = {prompt_len - max(generation_prompt, 1), prompt_len}
    return sorted(p for p in points if cached < p <= prompt_len)


def take(lane: Any) -> Checkpoint | None:
    """The recurrent state of ``lane``'s sequence now (after ``len(lane.tokens)`` tokens), or None if llama.cpp
    gave none."""
    size = int(llama_cpp.llama_state_seq_get_size_ext(lane.ctx, lane.seq, PARTIAL_ONLY))
    if size <= 0:
        return None
    buffer = byte_buffer(size)
    written = int(llama_cpp.llama_state_seq_get_data_ext(lane.ctx, buffer, size, lane.seq, PARTIAL_ONLY))
    return Checkpoint(len(lane.tokens), buffer, written) if written > 0 else None


def keep(lane: Any, checkpoint: Checkpoint, policy: CheckpointPolicy) -> None:
    """Add ``checkpoint`` to the lane's, in token order, replacing one at the same count; past
    ``policy.max_per_lane`` the earliest go (a lane's latest turn is where its next request branches)."""
    held: list[Checkpoint] = [cp for cp in lane.checkpoints if cp.n_tokens != checkpoint.n_tokens]
    held.insert(bisect.bisect([cp.n_tokens for cp in held], checkpoint.n_tokens), checkpoint)
    lane.checkpoints = held[max(0, len(held) - policy.max_per_lane):]


def due(lane: Any, points: list[int], policy: CheckpointPolicy) -> bool:
    """Whether the lane should save a checkpoint before its next decode: it stands at one of its job's branch
    ``points`` (those behind it are dropped from the list), or a prefill has gone ``policy.min_step`` tokens
    past the lane's last checkpoint."""
    n = len(lane.tokens)
    while points and points[0] < n:
        points.pop(0)
    if points and points[0] == n:
        points.pop(0)
        return True
    if not points or not policy.on:
        return False
    last = lane.checkpoints[-1].n_tokens if lane.checkpoints else 0
    return n - last >= policy.min_step


def resume_point(tokens: Sequence[int], checkpoints: Sequence[Checkpoint], common: int, limit: int) -> int:
    """The most tokens of a prompt a rollback-free lane can keep: its whole cache when that is a prefix of the
    prompt no longer than ``limit`` (the tokens before the prompt's last), else its latest checkpoint within the
    ``common`` prefix and the limit, else 0. ``common``: the prefix the lane's tokens share with the prompt."""
    bound = min(common, limit)
    if len(tokens) <= bound:
        return len(tokens)
    best = 0
    for checkpoint in checkpoints:
        if best < checkpoint.n_tokens <= bound:
            best = checkpoint.n_tokens
    return best


def checkpoint_at(checkpoints: Sequence[Checkpoint], n_tokens: int) -> Checkpoint | None:
    for checkpoint in checkpoints:
        if checkpoint.n_tokens == n_tokens:
            return checkpoint
    return None


def load(lane: Any, checkpoint: Checkpoint) -> bool:
    """Put ``lane``'s recurrent state back to ``checkpoint`` and drop its attention cells after it (they must
    reach that far); the lane's tokens are cut to match. False if llama.cpp refused (the lane is then emptied)."""
    loaded = int(llama_cpp.llama_state_seq_set_data_ext(lane.ctx, checkpoint.payload, checkpoint.size, lane.seq,
                                                        PARTIAL_ONLY))
    if loaded != checkpoint.size or not llama_cpp.llama_memory_seq_rm(lane.memory, lane.seq,
                                                                       checkpoint.n_tokens, -1):
        clear(lane)
        return False
    del lane.tokens[checkpoint.n_tokens:]
    lane.checkpoints = [cp for cp in lane.checkpoints if cp.n_tokens <= checkpoint.n_tokens]
    return True


def clear(lane: Any) -> None:
    """Empty the lane: every cell and state of its sequence, and its checkpoints."""
    llama_cpp.llama_memory_seq_rm(lane.memory, lane.seq, -1, -1)
    lane.tokens.clear()
    lane.checkpoints = []
