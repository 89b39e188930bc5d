"""One tick's batch: the rows lanes put in it, the ``llama_batch`` they fill, and what becomes of them after the
decode, or when it fails for want of KV cells.

A row is one token at one position of one lane's sequence. Generating lanes' rows come first (their next token,
then any drafts), prompt chunks after them in what is left of ``n_batch``. Everything here runs on the engine
thread, a few calls per tick.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from superfluid.engine.models.native import ArrayBatch, memory_seq_pos_max, memory_seq_rm
from superfluid.engine.scheduling.job import Job, Lane

Entry = tuple[Lane, int, bool, str]
"""One batch row: lane, token, wants logits, and kind: gen (a lane's next token), draft, or prompt."""

SPEC_MAX_LANES = 2
"""Drafting pays while the batch is mostly idle; with more lanes decoding, the batch is already full."""


def plan_rows(lanes: list[Lane], *, spec_draft: int, n_batch: int, n_ctx: int,
              unified: bool) -> tuple[list[Entry], int]:
    """The rows ``lanes`` decode this tick, and how many of them are generated rows (next tokens and drafts);
    no rows when there is nothing to decode."""
    entries = generated_rows(lanes, spec_draft=spec_draft, n_ctx=n_ctx)
    n_gen = len(entries)  # generated rows are counted first, prompt rows after
    add_prompt_rows(entries, lanes, n_batch - n_gen)
    if not unified:
        # With a KV stream per lane, llama.cpp decodes lanes together only while their sequence ids come in
        # the batch consecutive and increasing; it splits the batch elsewhere. A stable sort keeps each lane's
        # rows in order.
        entries.sort(key=lambda e: e[0].seq)
    return entries, n_gen


def generated_rows(lanes: list[Lane], *, spec_draft: int, n_ctx: int) -> list[Entry]:
    """Each generating lane's next token, followed by its draft tokens when it drafts this tick."""
    entries: list[Entry] = []
    decoding = [ln for ln in lanes if ln.job is not None and not ln.job.pending and ln.job.next_token is not None]
    for lane in decoding:
        job = lane.job
        assert job is not None and job.next_token is not None
        entries.append((lane, job.next_token, True, "gen"))
        if job.spec_pause > 0:
            job.spec_pause -= 1
        elif (spec_draft and len(decoding) <= SPEC_MAX_LANES and not job.batch_invariant
              and job.sampling.temperature <= 0):  # greedy lanes only: see docs/scheduling.md
            room = min(job.max_new_tokens - job.generated, n_ctx - len(lane.tokens)) - 1
            draft = job.drafts.draft(lane.tokens, job.next_token, min(spec_draft, room))
            entries.extend((lane, tok, True, "draft") for tok in draft)
    return entries


def add_prompt_rows(entries: list[Entry], lanes: list[Lane], budget: int) -> None:
    """Append chunks of pending prompts, up to ``budget`` rows, most urgent class first. A prompt's last token
    wants logits (the first reply token is sampled from them) once no more of the prompt is pending. A chunk
    ends at the job's next branch point, where its lane saves a checkpoint before the next decode
    (checkpoints.py)."""
    prefilling = [ln for ln in lanes if ln.job is not None and ln.job.pending]
    for lane in sorted(prefilling, key=lambda ln: (ln.job.rank, ln.job.arrival) if ln.job else (9, 0)):
        job = lane.job
        if job is None or not job.pending or budget <= 0:
            continue
        size = budget
        for point in job.branch_points:
            if point > len(lane.tokens):
                size = min(size, point - len(lane.tokens))
                break
        chunk = job.pending[:size]
        del job.pending[: len(chunk)]
        budget -= len(chunk)
        last = len(chunk) - 1
        entries.extend((lane, tok, i == last and not job.pending, "prompt") for i, tok in enumerate(chunk))


def fill_batch(batch: ArrayBatch, entries: list[Entry]) -> None:
    """One slice assignment per field (numpy arrays under the llama_batch), not one ctypes store per token. Each
    lane's rows take the positions after its cached tokens, in order."""
    positions = {id(lane): len(lane.tokens) for lane, _, _, _ in entries}
    pos = []
    for lane, _, _, _ in entries:
        at = positions[id(lane)]
        pos.append(at)
        positions[id(lane)] = at + 1
    batch.fill([e[1] for e in entries], pos, [e[0].seq for e in entries], [e[2] for e in entries])


def commit_rows(entries: list[Entry]) -> dict[int, list[int]]:
    """After a decode: every row's token joins its lane's cached tokens. Returns each lane's row indexes, in
    batch order, keyed by ``id(lane)``."""
    now = time.monotonic()
    by_lane: dict[int, list[int]] = {}
    for i, (lane, token, _, _) in enumerate(entries):
        lane.tokens.append(token)
        lane.last_used = now
        by_lane.setdefault(id(lane), []).append(i)
    return by_lane


def make_room(lanes: list[Lane], entries: list[Entry], *, unified: bool,
              save: Callable[[Lane], None] = lambda _: None) -> Job | None:
    """A decode found no room in the KV cache of ``lanes`` (those of its context). In a shared pool the least
    recently used idle lane's cells are saved (``save``: to the RAM and disk tiers) and freed, one lane per
    failed decode (the next tick tries again), so the others stay warm; when no lane is idle, returns the job
    to cut short: the longest busy one (with a stream per lane, of those in this batch, since only one of them
    can have filled its own stream)."""
    idle = [lane for lane in lanes if lane.job is None and lane.tokens] if unified else []
    if idle:
        lane = min(idle, key=lambda ln: ln.last_used)
        save(lane)
        memory_seq_rm(lane.memory, lane.seq, -1, -1)
        lane.tokens.clear()
        lane.checkpoints = []
        return None
    busy = [lane for lane in lanes if lane.job is not None]
    if not unified:
        in_batch = {id(lane) for lane, _, _, _ in entries}
        busy = [lane for lane in busy if id(lane) in in_batch] or busy
    victim = max(busy, key=lambda ln: len(ln.tokens))
    assert victim.job is not None
    return victim.job


def refused_lanes(entries: list[Entry], n_vocab: int) -> list[Lane]:
    """The lanes whose rows llama.cpp's batch check refuses (``llama_decode`` status -1, before anything is
    decoded or changed): a token outside the vocabulary, or rows that do not carry on from the last position the
    lane's memory holds (a recurrent state that was not cut back, for one). Empty when the fault is none of those."""
    lanes = {id(lane): lane for lane, _, _, _ in entries}
    bad = {id(lane) for lane, token, _, _ in entries if not 0 <= token < n_vocab}
    for key, lane in lanes.items():
        last = int(memory_seq_pos_max(lane.memory, lane.seq))
        if last >= 0 and last != len(lane.tokens) - 1:
            bad.add(key)
    return [lanes[key] for key in lanes if key in bad]


def rewind(entries: list[Entry]) -> None:
    """Put a batch that did not decode back: prompt chunks return to their jobs, drafts are dropped."""
    for lane in {id(lane): lane for lane, _, _, _ in entries}.values():
        memory_seq_rm(lane.memory, lane.seq, len(lane.tokens), -1)
        if lane.job is not None:
            lane.job.pending[:0] = [tok for ln, tok, _, kind in entries if ln is lane and kind == "prompt"]
