"""Admission: which waiting job gets a lane next, which lane, and how much of its prompt is already cached.

Order: scheduling class first (interactive and completion, then agent, then background), arrival second.
Background work does not take the last free lane while other lanes are busy, so an urgent request finds
one. A job whose sibling
(same request, ``n`` > 1) is still prefilling waits, then copies the sibling's prompt cache instead of
prefilling it again.

Prefix reuse spans lanes: the longest cached prefix of the prompt is looked for in every lane, busy or idle,
and copied into the job's lane. In a unified KV pool ``llama_memory_seq_cp`` shares the cells, no data copied.
Between the streams of a non-unified pool, ``llama_memory_seq_cp`` would copy the donor's whole stream (15 ms
for the bundled model's 4,096 cells); the donor's own cells are saved and loaded instead
(``llama_state_seq_get_data``/``set_data``: under a millisecond for a short prompt), then the tail beyond the
shared prefix is dropped. With a stream per lane, a new job also sits beside the busy lanes where it can: llama.cpp
decodes consecutive lanes in one pass. Idle lanes keep their tokens until a new job needs the lane; the least
recently used goes first.
A cached prefix counts only for a job under the same LoRA adapters as the lane's cache: keys and values computed
under one adapter set are wrong under another.

A model with recurrent state (``rollback`` off: Mamba, and hybrids such as LFM2) keeps, per lane, only the state
after its last token, plus checkpoints at earlier counts (checkpoints.py). Its prefixes are reused the same way,
but only at those points: the lane's whole cache, or a checkpoint at or before the shared prefix
(``_place_resuming``). Nothing is ever cut between them.
"""

from __future__ import annotations

import llama_cpp

from superfluid.engine.models.native import byte_buffer
from superfluid.engine.scheduling.checkpoints import checkpoint_at, clear, resume_point
from superfluid.engine.scheduling.checkpoints import load as load_checkpoint
from superfluid.engine.scheduling.job import Job, Lane, common_prefix
from superfluid.engine.scheduling.kv_disk import BLOCK, KvDiskTier, restore, spill

STREAM_COPY_RATIO = 32
"""A prefix is copied between streams when it is at least 1/32 of the donor's cells (the copy moves them all).
Prefilling a token costs about as much as copying a few hundred cells."""


class WaitingRoom:
    def __init__(self) -> None:
        self.jobs: list[Job] = []

    def add(self, job: Job) -> None:
        self.jobs.append(job)

    def drop_cancelled(self) -> list[Job]:
        gone = [j for j in self.jobs if j.cancelled]
        self.jobs = [j for j in self.jobs if not j.cancelled]
        return gone

    def pop_admissible(self, free_lanes: int, busy_lanes: int, solo_free: bool) -> Job | None:
        """The most urgent job that may take a lane now, or None."""
        for job in sorted(self.jobs, key=lambda j: (j.rank, j.arrival)):
            if job.cancelled:
                continue  # dropped at the start of the next pass
            if job.batch_invariant:
                if not solo_free:
                    continue
                self.jobs.remove(job)
                return job
            if not free_lanes:
                continue
            if job.after is not None and not job.after.prefilled:
                continue
            if job.qos == "background" and free_lanes <= 1 and busy_lanes > 0:
                continue  # keep the last lane for urgent work while anything else runs
            self.jobs.remove(job)
            return job
        return None


def place(job: Job, lanes: list[Lane], *, unified: bool = True, sliding_window: int = 0,
          tier: KvDiskTier | None = None, rollback: bool = True, pool_cells: int = 0) -> None:
    """Give ``job`` a free lane holding as much of its prompt as any lane has cached; sets job.cached/pending.
    ``unified``: the lanes share one KV pool (else each has a stream of its own). ``sliding_window``: the model's
    attention window on its sliding-window layers (0: none). ``tier``: the disk tier, which gets a lane's cells
    before they are dropped, and gives back a longer prefix than the lanes hold (``job.disk``). ``rollback``
    off: the model keeps recurrent state, which resumes only where it was saved (``_place_resuming``).
    ``pool_cells``: the cells of a pool the lanes share, which a prefix loaded from a tier must find room in."""
    room = _Room(lanes, pool_cells if unified else 0, tier)
    if not rollback:
        _place_resuming(job, lanes, unified=unified, tier=tier, room=room)
        return
    free = [lane for lane in lanes if lane.job is None]
    limit = len(job.prompt) - 1  # the last prompt token is always decoded, for its logits

    # Each lane's match, walked once: the ranking below asks for it several times per lane.
    matches = {id(ln): common_prefix(ln.tokens, job.prompt) if ln.adapters == job.adapters else 0 for ln in lanes}

    def cached(ln: Lane) -> int:
        return matches[id(ln)]

    spare = any(not ln.tokens for ln in free)
    # The longest match; between streams the cheapest of those to copy (a copy moves all the donor's cells).
    donor = max(lanes, key=cached) if unified else max(lanes, key=lambda ln: (cached(ln), -len(ln.tokens)))
    shared = min(cached(donor), limit)
    # Lanes under other adapters never decode in one pass with this one: being beside them is worth nothing.
    busy = {ln.seq for ln in lanes if ln.job is not None and ln.adapters == job.adapters}
    copyable = shared if unified or shared * STREAM_COPY_RATIO >= len(donor.tokens) else 0

    def rank(ln: Lane) -> tuple[int, int, int, int, float]:
        worth = _worth(ln, cached(ln), limit, spare)
        if unified:
            return worth, 0, 0, worth, -ln.last_used
        # With a stream per lane: a lane that is this conversation's own (it holds the whole prompt, or more of
        # it than of anything else) is taken, no copy needed. Otherwise a lane that loses nothing (empty, or
        # holding only part of the prompt) comes first, so a free lane never evicts another conversation's cache
        # while an empty one is free; then a lane beside the busy ones, since llama.cpp decodes lanes together
        # only when they are consecutive (docs/scheduling.md, "KV layout"); a copy gives any lane the prefix.
        kept = min(cached(ln), limit)
        lost = len(ln.tokens) - kept
        home = worth if kept and kept >= copyable and (kept >= limit or kept >= lost) else 0
        beside = (ln.seq - 1 in busy) + (ln.seq + 1 in busy)
        return home, int(lost == 0), beside, worth, -ln.last_used

    lane = max(free, key=rank)
    own = min(cached(lane), limit)
    if tier is not None and _from_disk(job, lane, tier, limit, max(own, copyable), sliding_window, room=room):
        return
    if donor is not lane and copyable > own:
        if lane.tokens:
            spill(tier, lane)
        _truncate(lane, 0)
        if unified:
            llama_cpp.llama_memory_seq_cp(lane.memory, donor.seq, lane.seq, 0, shared)
            keep = shared
        elif sliding_window and len(donor.tokens) > shared:
            # A saved state leaves out the cells the donor's own newest token no longer attends to on the
            # sliding-window layers, which the shorter prefix still needs: copy the whole stream instead.
            llama_cpp.llama_memory_seq_cp(lane.memory, donor.seq, lane.seq, -1, -1)
            keep = shared
        else:
            keep = shared if _load_copy(donor, lane) else 0
        if not unified:
            llama_cpp.llama_memory_seq_rm(lane.memory, lane.seq, keep, -1)
        lane.tokens = list(donor.tokens[:keep])
    else:
        if len(lane.tokens) - own >= BLOCK:
            spill(tier, lane)
        _truncate(lane, own)
        keep = own
    _seat(job, lane, keep)


def _place_resuming(job: Job, lanes: list[Lane], *, unified: bool, tier: KvDiskTier | None,
                    room: _Room | None = None) -> None:
    """``place`` for a model whose lanes resume only at saved points: the lane's whole cache when it is a prefix
    of the prompt, or a checkpoint within the shared prefix (checkpoints.resume_point); from the job's own lane,
    another lane's (copied), or the disk tier, whichever keeps most."""
    free = [lane for lane in lanes if lane.job is None]
    limit = len(job.prompt) - 1
    points = {id(ln): resume_point(ln.tokens, ln.checkpoints, common_prefix(ln.tokens, job.prompt), limit)
              if ln.adapters == job.adapters else 0 for ln in lanes}
    spare = any(not ln.tokens for ln in free)
    donor = max(lanes, key=lambda ln: points[id(ln)])
    lane = max(free, key=lambda ln: (_worth(ln, points[id(ln)], limit, spare), not ln.tokens, -ln.last_used))
    own, shared = points[id(lane)], points[id(donor)]
    if tier is not None and _from_disk(job, lane, tier, limit, max(own, shared), 0, rollback=False, room=room):
        return
    if donor is not lane and shared > own:
        end = len(donor.tokens)
        spill(tier, lane)
        clear(lane)
        keep = _copy_resumed(donor, lane, shared, unified)
    else:
        end = len(lane.tokens)
        keep = _cut_back(lane, own, tier)
    job.from_checkpoint = 0 < keep < end
    _seat(job, lane, keep)


def _cut_back(lane: Lane, point: int, tier: KvDiskTier | None) -> int:
    """Take a rollback-free lane back to ``point`` (its end, or one of its checkpoints) and return how many tokens
    it keeps (0 when the checkpoint could not be loaded)."""
    if point == len(lane.tokens):
        return point
    if len(lane.tokens) - point >= BLOCK:
        spill(tier, lane)
    checkpoint = checkpoint_at(lane.checkpoints, point)
    if checkpoint is None or not load_checkpoint(lane, checkpoint):
        clear(lane)
        return 0
    return point


def _copy_resumed(donor: Lane, lane: Lane, point: int, unified: bool) -> int:
    """Give the empty ``lane`` the donor's state after ``point`` tokens (the donor's end, or one of its
    checkpoints): its attention cells up to there and its recurrent state, copied whole, then the checkpoint's
    state loaded over it. Returns the tokens the lane keeps (0 if a copy failed)."""
    if unified:
        llama_cpp.llama_memory_seq_cp(lane.memory, donor.seq, lane.seq, 0, point)
    elif not _load_copy(donor, lane):
        clear(lane)
        return 0
    lane.tokens = list(donor.tokens)
    lane.checkpoints = [cp for cp in donor.checkpoints if cp.n_tokens <= point]
    if point == len(donor.tokens):
        return point
    checkpoint = checkpoint_at(donor.checkpoints, point)
    if checkpoint is None or not load_checkpoint(lane, checkpoint):
        clear(lane)
        return 0
    return point


def _from_disk(job: Job, lane: Lane, tier: KvDiskTier, limit: int, in_ram: int, sliding_window: int, *,
               rollback: bool = True, room: _Room | None = None) -> bool:
    """Seat ``job`` on ``lane`` with the prefix the disk tier read for it, when that holds at least a block more
    than the lanes could give; False to place it from the lanes. A model with sliding-window layers takes a file
    only whole (its saved cells hold the window before the file's last token, not before an earlier one); one
    with recurrent state (no ``rollback``) takes it whole or at one of its checkpoints."""
    found = job.disk
    job.disk = None  # the payload is used once, or dropped with the job
    if found is None:
        return False
    keep = min(found.common, limit) if rollback else found.resume_point(limit)
    if keep < in_ram + BLOCK or (sliding_window and keep < len(found.saved.tokens)):
        return False
    spill(tier, lane)
    _truncate(lane, 0)
    lane.checkpoints = []
    if room is not None:
        room.make(len(found.saved.tokens), taking=lane)
    if not restore(tier, found, lane, keep, rollback=rollback):
        _seat(job, lane, 0)  # the lane was emptied for the file llama.cpp refused: a cold prefill
        return True
    _seat(job, lane, keep)
    job.restored = keep
    job.restored_from = "ram" if found.from_ram else "disk"
    return True


class _Room:
    """Cells of a pool the lanes share, made free for a prefix loaded from a tier: llama.cpp refuses to load a
    sequence's cells where they do not fit, and a pool that busy and idle lanes fill has none to spare."""

    def __init__(self, lanes: list[Lane], cells: int, tier: KvDiskTier | None) -> None:
        self.lanes, self.cells, self.tier = lanes, cells, tier

    def make(self, needed: int, *, taking: Lane) -> None:
        """Save and free the least recently used idle lanes (not ``taking``) until ``needed`` cells are free, as
        far as the lanes' token counts tell (cells two lanes share count twice: the estimate errs on room)."""
        if not self.cells:
            return
        used = sum(len(ln.tokens) for ln in self.lanes)
        idle = sorted((ln for ln in self.lanes if ln.job is None and ln is not taking and ln.tokens),
                      key=lambda ln: ln.last_used)
        for other in idle:
            if self.cells - used >= needed:
                return
            spill(self.tier, other)
            used -= len(other.tokens)
            _truncate(other, 0)
            other.checkpoints = []


def _worth(lane: Lane, kept: int, limit: int, spare: bool) -> int:
    """What taking ``lane`` is worth to a prompt of which it holds ``kept`` tokens (``limit``: all it can keep).
    While an empty lane is free (``spare``), a lane that holds only a short start of the prompt (the chat-template
    preamble every prompt shares) and would throw away more of another conversation than it keeps is worth 0:
    the new job takes the empty lane and copies that start, and the other conversation stays warm. A lane holding
    the whole prompt (sent again, or a conversation's next turn) is always worth what it keeps. With no empty lane
    free, the longest match wins, as it always did (so placement on a busy server, and the greedy replies recorded
    on it, do not change)."""
    if not spare or kept >= limit or kept >= len(lane.tokens) - kept:
        return kept
    return 0


def place_solo(job: Job, lane: Lane) -> None:
    """Batch-invariant jobs: the lane of their own context, cleared, so nothing about other traffic (cache
    built by other batches, where its cells lie, how long the KV rows are) can change a single bit."""
    llama_cpp.llama_memory_clear(lane.memory, True)
    lane.tokens.clear()
    lane.checkpoints = []
    _seat(job, lane, 0)


def _seat(job: Job, lane: Lane, keep: int) -> None:
    job.cached = keep
    job.pending = list(job.prompt[keep:])
    job.lane = lane
    lane.job = job
    lane.adapters = job.adapters


def _load_copy(donor: Lane, lane: Lane) -> bool:
    """Copy the donor lane's cells into ``lane``'s stream through llama.cpp's sequence state; False if it failed."""
    size = int(llama_cpp.llama_state_seq_get_size(lane.ctx, donor.seq))
    state = byte_buffer(size)
    saved = int(llama_cpp.llama_state_seq_get_data(lane.ctx, state, size, donor.seq))
    return saved > 0 and int(llama_cpp.llama_state_seq_set_data(lane.ctx, state, saved, lane.seq)) == saved


def _truncate(lane: Lane, keep: int) -> None:
    if keep < len(lane.tokens):
        llama_cpp.llama_memory_seq_rm(lane.memory, lane.seq, keep, -1)
        del lane.tokens[keep:]
