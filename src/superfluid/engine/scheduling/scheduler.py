"""The engine thread: lanes on one llama.cpp context, one batched decode per tick.

Every tick builds one ``llama_batch`` with the next token of each generating lane plus chunks of pending
prompts (within ``n_batch``), calls ``llama_decode`` once, then samples each lane with its own LaneSampler.
Jobs join and leave between ticks. A finished lane keeps its tokens in the KV cache, so a later request
that repeats its prefix is assigned that lane and only prefills the rest.

This module owns the thread, its inbox and the order of a tick's phases. The phases' work lives beside it:
queue_count.py (the queue limit's count), admission.py (which job takes which lane), batch_rows.py (the batch's
rows, before and after the decode), replies.py (sampling the rows and writing each job's events), slot_view.py
(what /slots shows).
"""

from __future__ import annotations

import concurrent.futures
import logging
import queue
import time
from collections.abc import Sequence
from typing import Any

import llama_cpp

from superfluid.engine import request_scope
from superfluid.engine.decoding.grammar import GrammarTokenizer
from superfluid.engine.decoding.lane_sampler import LaneSampler
from superfluid.engine.decoding.sampling import LogitRows
from superfluid.engine.models.adapter_types import AdapterFile
from superfluid.engine.models.llama_model import LlamaModel
from superfluid.engine.models.native import ArrayBatch
from superfluid.engine.scheduling.adapters import AdapterLoad, AdapterSwitch
from superfluid.engine.scheduling.admission import WaitingRoom, place, place_solo
from superfluid.engine.scheduling.batch_rows import (
    Entry,
    commit_rows,
    fill_batch,
    make_room,
    plan_rows,
    refused_lanes,
    rewind,
)
from superfluid.engine.scheduling.checkpoints import CheckpointPolicy, branch_points, due
from superfluid.engine.scheduling.checkpoints import clear as clear_lane
from superfluid.engine.scheduling.checkpoints import keep as keep_checkpoint
from superfluid.engine.scheduling.checkpoints import take as take_checkpoint
from superfluid.engine.scheduling.cpu_share import CpuShare
from superfluid.engine.scheduling.job import Job, Lane, Outbox, common_prefix
from superfluid.engine.scheduling.kv_disk import KvDiskTier, spill
from superfluid.engine.scheduling.queue_count import QueueCount
from superfluid.engine.scheduling.replies import ReplyWriter
from superfluid.engine.scheduling.slot_view import DecodeHistory, lane_views
from superfluid.engine.scheduling.stats import EngineStats
from superfluid.engine.types import Admitted, Failed
from superfluid.engine.worker import RETIRED, PassingWorker

log = logging.getLogger(__name__)

_STOP = object()


class Scheduler:
    """Owns the engine thread for one model. ``submit`` and ``cancel`` are safe from any thread."""

    def __init__(self, model: LlamaModel, *, name: str, grammar: GrammarTokenizer | None = None,
                 spec_draft: int = 0, stats: EngineStats | None = None, gather_s: float = 0.0,
                 kv_disk: KvDiskTier | None = None, adapt_threads: bool = False,
                 checkpoints: CheckpointPolicy | None = None) -> None:
        self.model = model
        self.kv_disk = kv_disk
        self.checkpoints = checkpoints or CheckpointPolicy()
        """Where lanes of a recurrent or hybrid model save their state (checkpoints.py); unused by others."""
        """The prefix cache's disk tier (kv_disk.py), or None."""
        self.gather_s = gather_s
        """The longest the first decode after idle waits for requests on their way (``_gather``, --gather-ms);
        0: never."""
        self.stats = stats if stats is not None else EngineStats()
        """Figures for /metrics, written by the engine thread only (see stats.py)."""
        self.spec_draft = spec_draft if model.rollback else 0
        """Draft tokens per decode (0: off; always off for recurrent state, which cannot drop rejected drafts)."""
        self.grammar_tokenizer = grammar
        self.lanes = [Lane(seq=i, ctx=model.ctx, memory=model.memory) for i in range(model.n_seq_max)]
        self._solo: Lane | None = None
        """The batch-invariant lane: its own context, opened on first use."""
        self._adapters = AdapterSwitch(model.model)
        self._inbox: queue.SimpleQueue[object] = queue.SimpleQueue()
        self._outbox = Outbox()
        self._waiting = WaitingRoom()
        self._queue = QueueCount()
        self._solo_turn = False
        self._stopped = False
        """Told to stop (the thread ends once every job has failed)."""
        self._threads = CpuShare(model.n_threads, adapt=adapt_threads)
        """The decode thread count: fewer while other processes keep cores busy (cpu_share.py, --threads 0)."""
        self._history = DecodeHistory()
        """The recent decodes (for /slots)."""
        self._synchronize = model.placement.layers > 0
        """Wait for the device inside the timed decode: a GPU backend returns from llama_decode before its work is
        done, and the first read of the logits would otherwise wait for it in what the engine account counts as
        host time. On the CPU the decode is done when it returns (and the call would cost a GIL hand-off)."""
        self._batch = ArrayBatch(model.n_batch)
        self._rows = LogitRows(model.meta.n_vocab)
        self._replies = ReplyWriter(model, self._rows, self._outbox, self.stats, grammar)
        self._worker = PassingWorker(f"engine:{name}", self._run)
        """The engine thread, running only while there is work (see worker.py: an idle one holds an OpenMP pool
        that slows every other model's decoding)."""

    # ---- any thread -------------------------------------------------------------------------------
    def submit(self, jobs: Sequence[Job], *, queue_limit: int | None = None) -> bool:
        """Queue jobs; False (and nothing queued) when ``queue_limit`` jobs are already waiting."""
        if not self._queue.join(jobs, queue_limit):
            return False

        def queue() -> None:
            for job in jobs:
                self._inbox.put(job)

        scope = request_scope.current()
        if scope is None:
            queue()
        else:  # no longer on its way, and queued, in one step (see _gather)
            scope.landed(queue)
        self._worker.wake()
        return True

    @property
    def queued(self) -> int:
        return self._queue.total

    @property
    def queued_by_qos(self) -> dict[str, int]:
        """Choices waiting for a lane, by scheduling class."""
        return self._queue.by_qos()

    @property
    def idle(self) -> bool:
        """Nothing waiting and no lane busy (read from any thread: a snapshot)."""
        return self._queue.total == 0 and not self._busy()

    def load_adapter(self, file: AdapterFile) -> concurrent.futures.Future[None]:
        """Load a LoRA adapter's weights on the engine thread, between two ticks."""
        request = AdapterLoad(file)
        self._inbox.put(request)
        self._worker.wake()
        return request.done

    def cancel(self, job: Job) -> None:
        """Any thread: stop the job. A job still waiting leaves the queue's count at once, so that a client that
        gave up never holds a place another client could have."""
        job.cancelled = True
        self._queue.leave(job)
        self._inbox.put(None)  # wake the thread if it is idle
        self._worker.wake()

    def cached_hint(self, prompt: Sequence[int], adapters: object) -> int:
        """Any thread: the longest prefix of ``prompt`` some lane holds now (under ``adapters``); a hint, read
        while the engine thread may change the lanes."""
        best = 0
        for lane in list(self.lanes):
            if lane.adapters == adapters:
                best = max(best, common_prefix(list(lane.tokens), prompt))
        return best

    def close(self) -> None:
        self._inbox.put(_STOP)
        self._worker.wake()
        self._worker.close(timeout=30)
        if self.kv_disk is not None:  # the engine thread has ended: the lanes' cells go to disk from here
            for lane in self.lanes:
                try:
                    spill(self.kv_disk, lane)
                except Exception:  # a save that fails must not stop the shutdown
                    log.exception("could not save lane %d's KV cells", lane.seq)
            self.kv_disk.close()
        self.model.close()

    def snapshot(self) -> dict[str, int]:
        busy = sum(1 for lane in self.lanes if lane.job is not None)
        return {
            "lanes": len(self.lanes),
            "busy": busy,
            "waiting": self._queue.total,
            "cached_tokens": sum(len(lane.tokens) for lane in self.lanes),
        }

    def slot_view(self) -> dict[str, Any]:
        """Lanes, KV pool, the last tick's plan and recent rates (read from another thread: a snapshot)."""
        lanes = lane_views(self._all_lanes(), self._solo)
        history = self._history
        return {
            "lanes": lanes,
            "kv_pool": {"size_tokens": int(self.model.kv_size), "unified": self.model.kv_unified,
                        "lane_tokens": sum(entry["cached_tokens"] for entry in lanes)},
            "waiting": self._queue.total,
            "tick_plan": history.tick_plan(self.model.n_batch),
            "rates": history.rates(),
            "totals": {"decoded_tokens": history.decoded_tokens, "prefilled_tokens": history.prefilled_tokens,
                       "adapter_switches": self._adapters.switches,
                       "checkpoints_saved": self.stats.checkpoints_saved,
                       "checkpoint_restores": self.stats.checkpoint_restores},
            "kv_disk": self.disk_view(),
        }

    def disk_view(self) -> dict[str, Any] | None:
        return None if self.kv_disk is None else self.kv_disk.view()

    # ---- engine thread ----------------------------------------------------------------------------
    def _run(self) -> None:
        while True:
            idle = not self._waiting.jobs and not self._busy()
            item = None
            if idle:
                self._outbox.flush()
                item = self._worker.take(self._inbox)
                if item is RETIRED:
                    return  # nothing to do: the thread ends, and its OpenMP pool with it
            if not self._take_inbox(item):
                return
            try:
                self._drop_cancelled()
                if self._waiting.jobs:
                    self._admit()
                    if idle and not self._gather():
                        return
                decoded = False
                if self._busy():
                    started = time.monotonic()
                    try:
                        decoded = self._tick()
                    finally:  # a step that failed or decoded nothing (a full KV cache) took its time too
                        self.stats.step_seconds += time.monotonic() - started
                if not decoded:  # otherwise the events went out just before the decode
                    self._outbox.flush()
            except Exception:
                log.exception("engine tick failed")
                self._fail_all("the engine failed; see the server log")
                self._reset_cache()
                self._outbox.flush()
                if self._stopped:  # failing the jobs at shutdown raised: the thread still ends
                    return

    def _take_inbox(self, item: object) -> bool:
        """Move ``item`` and everything queued into the engine; False when told to stop (all failed, the thread
        must end)."""
        while item is not None or not self._inbox.empty():
            if item is None:
                item = self._inbox.get_nowait()
            if item is _STOP:
                self._stopped = True
                self._fail_all("the server is shutting down")
                self._outbox.flush()
                return False
            if isinstance(item, Job):
                self._waiting.add(item)
            elif isinstance(item, AdapterLoad):
                self._adapters.load(item)
            item = None
        return True

    def _gather(self) -> bool:
        """The first decode after the engine was idle: requests the HTTP layer has started on but not yet queued
        (a burst's later requests, still being validated and tokenized) are waited for, up to ``gather_s``, and
        queued ones admitted, so that their prompts are prefilled in this decode instead of each behind the
        others'. False when told to stop meanwhile."""
        if self.gather_s <= 0 or not any(lane.job is not None and lane.job.deadline is None for lane in self.lanes):
            return True  # the batch-invariant lane decodes alone, and a reply with a deadline should not wait
        arrivals = request_scope.ARRIVALS
        if arrivals.count > 0:
            started = time.monotonic()
            arrivals.wait_quiet(self.gather_s)
            self.stats.gather_seconds += time.monotonic() - started
            self.stats.gathers += 1
        if self._inbox.empty():
            return True
        if not self._take_inbox(None):
            return False
        self._drop_cancelled()
        self._admit()
        return True

    def _drop_cancelled(self) -> None:
        if self._waiting.jobs:
            for gone in self._waiting.drop_cancelled():
                gone.finished = True
                self._queue.leave(gone)
                self.stats.count_finish("cancelled")
        now = None
        for lane in self._all_lanes():
            running = lane.job
            if running is None:
                continue
            if running.cancelled:
                self._replies.finish(running, "cancelled")
            elif running.deadline is not None:
                now = now or time.monotonic()
                if now > running.deadline:
                    running.expired = True
                    self._replies.finish(running, "length")

    def _busy(self) -> bool:
        """Some lane has a job (a plain loop: this runs between every two decodes, with cold caches)."""
        for lane in self.lanes:
            if lane.job is not None:
                return True
        return self._solo is not None and self._solo.job is not None

    def _all_lanes(self) -> list[Lane]:
        return self.lanes if self._solo is None else [*self.lanes, self._solo]

    def _solo_lane(self) -> Lane:
        if self._solo is None:
            ctx, memory = self.model.open_context(1)
            self._solo = Lane(seq=0, ctx=ctx, memory=memory)
        return self._solo

    def _admit(self) -> None:
        while True:
            free = sum(1 for lane in self.lanes if lane.job is None)
            solo_free = self._solo is None or self._solo.job is None
            job = self._waiting.pop_admissible(free, len(self.lanes) - free, solo_free)
            if job is None:
                return
            self._queue.leave(job)
            self.stats.queue_wait.observe(time.monotonic() - job.created)
            if job.batch_invariant:
                place_solo(job, self._solo_lane())
            else:
                place(job, self.lanes, unified=self.model.kv_unified, sliding_window=self.model.n_swa,
                      tier=self.kv_disk, rollback=self.model.rollback, pool_cells=self.model.kv_size)
            if not self.model.rollback and not job.batch_invariant:  # the invariant lane is cleared for each job
                job.branch_points = branch_points(len(job.prompt), job.cached, job.generation_prompt,
                                                  self.checkpoints)
            if job.from_checkpoint:
                self.stats.checkpoint_restores += 1
            job.sampler = LaneSampler(job.sampling, self._rows)
            admitted = Admitted(index=job.index, prompt_tokens=len(job.prompt), cached_tokens=job.cached,
                                restored_tokens=job.restored, restored_from=job.restored_from)
            self._outbox.post(job.sink, admitted)

    def _ticking(self) -> list[Lane]:
        """The lanes of this tick: the batch-invariant lane ticks alone, taking turns with the others, and lanes
        under different LoRA adapters take turns too."""
        others = [lane for lane in self.lanes if lane.job is not None]
        if self._solo is None or self._solo.job is None:
            return self._adapters.pick(others)
        self._solo_turn = not self._solo_turn or not others
        return [self._solo] if self._solo_turn else self._adapters.pick(others)

    def _tick(self) -> bool:
        """One batched decode and what follows from it; False when nothing was decoded."""
        lanes = self._ticking()
        model = self.model
        if not model.rollback:
            self._save_checkpoints(lanes)
        entries, n_gen = plan_rows(lanes, spec_draft=self.spec_draft, n_batch=model.n_batch, n_ctx=model.n_ctx,
                                   unified=model.kv_unified)
        if not entries:
            return False
        first = entries[0][0]
        assert first.job is not None
        self._adapters.apply(first.ctx, first.job.adapters)
        fill_batch(self._batch, entries)
        if not self._decode(entries, n_gen):
            return False
        self._replies.sample(entries, commit_rows(entries))
        return True

    def _save_checkpoints(self, lanes: list[Lane]) -> None:
        """Lanes of a rollback-free model that stand at one of their job's branch points save their state."""
        for lane in lanes:
            job = lane.job
            if job is None or not job.branch_points or not due(lane, job.branch_points, self.checkpoints):
                continue
            checkpoint = take_checkpoint(lane)
            if checkpoint is not None:
                keep_checkpoint(lane, checkpoint, self.checkpoints)
                self.stats.checkpoints_saved += 1

    def _decode(self, entries: list[Entry], n_gen: int) -> bool:
        ctx = entries[0][0].ctx
        self._outbox.flush()  # the loop wakes to these while llama_decode runs without the GIL
        self._threads.before_decode(ctx)
        started = time.monotonic()
        status = llama_cpp.llama_decode(ctx, self._batch.struct)  # the one call that lets the GIL go
        if status == 0 and self._synchronize:
            llama_cpp.llama_synchronize(ctx)
        if status == 0:
            elapsed = time.monotonic() - started
            n_prompt = len(entries) - n_gen
            self.stats.decodes["prefill" if n_prompt else "generation"].add(len(entries), elapsed)
            self._history.record(started, elapsed, n_gen, entries)
            return True
        if status == 1:  # no room in the KV cache: free idle caches first, then cut the longest job
            group = [lane for lane in self._all_lanes() if lane.ctx is ctx]
            victim = make_room(group, entries, unified=self.model.kv_unified,
                               save=lambda lane: spill(self.kv_disk, lane))
            if victim is not None:
                self._replies.finish(victim, "length")
            rewind(entries)
            return False
        if status == -1 and self._drop_refused(entries):
            return False
        raise RuntimeError(f"llama_decode failed with status {status}")

    def _drop_refused(self, entries: list[Entry]) -> bool:
        """llama.cpp refused the batch before decoding any of it: fail the requests whose rows it refuses (their
        lanes emptied) and put the others' rows back for the next tick; False when no lane's rows explain it
        (then the whole engine is at fault)."""
        refused = refused_lanes(entries, self.model.meta.n_vocab)
        for lane in refused:
            log.error("llama.cpp refused lane %d's rows (%d cached tokens); failing its request alone", lane.seq,
                      len(lane.tokens))
            if lane.job is not None:
                self._replies.fail(lane.job, "the engine could not decode this request; see the server log")
            clear_lane(lane)
        if refused:
            rewind(entries)
        return bool(refused)

    def _fail_all(self, message: str) -> None:
        for job in self._waiting.jobs:
            job.finished = True
            self._outbox.post(job.sink, Failed(index=job.index, message=message))
            self._queue.leave(job)
            self.stats.count_finish("error")
        self._waiting.jobs.clear()
        for lane in self._all_lanes():
            if lane.job is not None:
                self._outbox.post(lane.job.sink, Failed(index=lane.job.index, message=message))
                self.stats.count_finish("error")
                self._replies.release(lane.job)

    def _reset_cache(self) -> None:
        for lane in self._all_lanes():
            llama_cpp.llama_memory_clear(lane.memory, True)
            lane.tokens.clear()
            lane.checkpoints = []
