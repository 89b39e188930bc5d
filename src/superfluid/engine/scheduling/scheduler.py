"""The engine thread: lanes on one llama.cpp context, one batched decode per tick.

Every tick builds one ``llama_batch`` with the next token of each generating lane plus chunks of pending
prompts (within ``n_batch``), calls ``llama_decode`` once, then samples each lane with its own LaneSampler.
Jobs join and leave between ticks. A finished lane keeps its tokens in the KV cache, so a later request
that repeats its prefix is assigned that lane and only prefills the rest.
"""

from __future__ import annotations

import concurrent.futures
import ctypes
import logging
import queue
import threading
import time
from collections import deque
from collections.abc import Sequence
from typing import Any

import llama_cpp

from superfluid.engine import request_scope
from superfluid.engine.decoding.grammar import GrammarTokenizer
from superfluid.engine.decoding.lane_sampler import LaneSampler, top_k_rows
from superfluid.engine.decoding.logprobs import token_logprobs
from superfluid.engine.decoding.sampling import LogitRows
from superfluid.engine.decoding.text_output import Piece
from superfluid.engine.decoding.tool_calls import ToolCallDelta
from superfluid.engine.models.llama_model import LlamaModel
from superfluid.engine.models.lora import AdapterFile
from superfluid.engine.models.native import ArrayBatch, memory_seq_rm
from superfluid.engine.scheduling.adapters import AdapterLoad, AdapterSwitch
from superfluid.engine.scheduling.admission import WaitingRoom, place, place_solo
from superfluid.engine.scheduling.job import QOS_CLASSES, Job, Lane, Outbox
from superfluid.engine.scheduling.stats import EngineStats
from superfluid.engine.types import Admitted, Failed, Finished, FinishReason, TextDelta, TokenLogprob, Usage
from superfluid.engine.worker import RETIRED, PassingWorker

log = logging.getLogger(__name__)

RATE_WINDOW_S = 10.0
SPEC_MAX_LANES = 2
SPEC_PAUSE_AFTER_MISS = 32
"""Decodes without drafting after a draft whose first token was already wrong."""
"""Drafting pays while the batch is mostly idle; with more lanes decoding, the batch is already full."""

Entry = tuple[Lane, int, bool, str]
"""One batch row: lane, token, wants logits, and kind: gen (a lane's next token), draft, or prompt."""


_STOP = object()


class Scheduler:
    """Owns the engine thread for one model. ``submit`` and ``cancel`` are safe from any thread."""

    def __init__(self, model: LlamaModel, *, name: str, grammar: GrammarTokenizer | None = None,
                 spec_draft: int = 0, stats: EngineStats | None = None, gather_s: float = 0.0) -> None:
        self.model = model
        self.gather_s = gather_s
        """The longest the first decode after idle waits for requests on their way (``_gather``, --gather-ms);
        0: never."""
        self.stats = stats if stats is not None else EngineStats()
        """Figures for /metrics, written by the engine thread only (see stats.py)."""
        self.spec_draft = spec_draft
        self.grammar_tokenizer = grammar
        self.lanes = [Lane(seq=i, ctx=model.ctx, memory=model.memory) for i in range(model.n_seq_max)]
        self._solo: Lane | None = None
        self._adapters = AdapterSwitch(model.model)
        """The batch-invariant lane: its own context, opened on first use."""
        self._inbox: queue.SimpleQueue[object] = queue.SimpleQueue()
        self._outbox = Outbox()
        self._waiting = WaitingRoom()
        self._queued = 0
        self._queued_by_qos = dict.fromkeys(QOS_CLASSES, 0)
        self._queued_lock = threading.Lock()
        self._solo_turn = False
        self._stopped = False
        """Told to stop (the thread ends once every job has failed)."""
        self._ticks: deque[tuple[float, int, int, float]] = deque(maxlen=4096)
        self._last_tick: tuple[int, int, list[Entry], float] | None = None
        """The last decode: generated rows, prompt rows, the rows themselves, seconds (for /slots)."""
        self._batch = ArrayBatch(model.n_batch)
        self._piece_buf = ctypes.create_string_buffer(256)
        self._rows = LogitRows(model.meta.n_vocab)
        self._pieces: dict[int, bytes] = {}
        self._special_pieces: dict[int, bytes] = {}
        self.decoded_tokens = 0
        self.prefilled_tokens = 0
        self._worker = PassingWorker(f"engine:{name}", self._run)
        """The engine thread, running only while there is work (see worker.py: an idle one holds an OpenMP pool
        that slows every other model's decoding)."""

    # ---- any thread -------------------------------------------------------------------------------
    def submit(self, jobs: Sequence[Job], *, queue_limit: int | None = None) -> bool:
        """Queue jobs; False (and nothing queued) when ``queue_limit`` jobs are already waiting."""
        with self._queued_lock:
            if queue_limit is not None and self._queued + len(jobs) > queue_limit:
                return False
            self._queued += len(jobs)
            for job in jobs:
                job.queued = True
                self._queued_by_qos[job.qos] = self._queued_by_qos.get(job.qos, 0) + 1

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
        return self._queued

    @property
    def queued_by_qos(self) -> dict[str, int]:
        """Choices waiting for a lane, by scheduling class."""
        return dict(self._queued_by_qos)

    @property
    def idle(self) -> bool:
        """Nothing waiting and no lane busy (read from any thread: a snapshot)."""
        return self._queued == 0 and not self._busy()

    def _leave_queue(self, job: Job) -> None:
        """The job no longer counts against the queue limit (once, whoever gets here first)."""
        with self._queued_lock:
            if job.queued:
                job.queued = False
                self._queued -= 1
                self._queued_by_qos[job.qos] -= 1

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
        self._leave_queue(job)
        self._inbox.put(None)  # wake the thread if it is idle
        self._worker.wake()

    def close(self) -> None:
        self._inbox.put(_STOP)
        self._worker.wake()
        self._worker.close(timeout=30)
        self.model.close()

    def snapshot(self) -> dict[str, int]:
        busy = sum(1 for lane in self.lanes if lane.job is not None)
        return {
            "lanes": len(self.lanes),
            "busy": busy,
            "waiting": self._queued,
            "cached_tokens": sum(len(lane.tokens) for lane in self.lanes),
        }

    def slot_view(self) -> dict[str, Any]:
        """Lanes, KV pool, the last tick's plan and recent rates (read from another thread: a snapshot)."""
        lanes = []
        for lane in list(self._all_lanes()):
            job = lane.job
            lanes.append({
                "seq": lane.seq,
                "context": "invariant" if lane is self._solo else "shared",
                "state": "idle" if job is None else ("prefill" if job.pending else "decode"),
                "cached_tokens": len(lane.tokens),
                "qos": job.qos if job else None,
                "generated": job.generated if job else 0,
                "batch_invariant": bool(job and job.batch_invariant),
            })
        window = [t for t in list(self._ticks) if t[0] >= time.monotonic() - RATE_WINDOW_S]
        busy_s = sum(t[3] for t in window)
        return {
            "lanes": lanes,
            "kv_pool": {"size_tokens": int(self.model.kv_size), "unified": self.model.kv_unified,
                        "lane_tokens": sum(entry["cached_tokens"] for entry in lanes)},
            "waiting": self._queued,
            "tick_plan": self._tick_plan(),
            "rates": {
                "window_s": RATE_WINDOW_S,
                "decode_tokens_per_s": round(sum(t[1] for t in window) / busy_s, 1) if busy_s else 0.0,
                "prefill_tokens_per_s": round(sum(t[2] for t in window) / busy_s, 1) if busy_s else 0.0,
                "busy_fraction": round(busy_s / RATE_WINDOW_S, 3),
            },
            "totals": {"decoded_tokens": self.decoded_tokens, "prefilled_tokens": self.prefilled_tokens,
                       "adapter_switches": self._adapters.switches},
        }

    def _tick_plan(self) -> dict[str, Any]:
        if self._last_tick is None:
            return {}
        n_gen, n_prefill, entries, elapsed = self._last_tick
        return {"decode_tokens": n_gen, "prefill_tokens": n_prefill, "lanes": len({id(e[0]) for e in entries}),
                "batch_size": self.model.n_batch, "ms": round(elapsed * 1000, 2)}

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
                self._leave_queue(gone)
                self.stats.count_finish("cancelled")
        now = None
        for lane in self._all_lanes():
            running = lane.job
            if running is None:
                continue
            if running.cancelled:
                self._finish(running, "cancelled")
            elif running.deadline is not None:
                now = now or time.monotonic()
                if now > running.deadline:
                    running.expired = True
                    self._finish(running, "length")

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
            self._leave_queue(job)
            self.stats.queue_wait.observe(time.monotonic() - job.created)
            if job.batch_invariant:
                place_solo(job, self._solo_lane())
            else:
                place(job, self.lanes, unified=self.model.kv_unified, sliding_window=self.model.n_swa)
            job.sampler = LaneSampler(job.sampling, self._rows)
            admitted = Admitted(index=job.index, prompt_tokens=len(job.prompt), cached_tokens=job.cached)
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
        entries: list[Entry] = []
        decoding = [ln for ln in lanes if ln.job is not None and not ln.job.pending and ln.job.next_token is not None]
        for lane in decoding:
            job = lane.job
            assert job is not None and job.next_token is not None
            entries.append((lane, job.next_token, True, "gen"))
            if job.spec_pause > 0:
                job.spec_pause -= 1
            elif (self.spec_draft and len(decoding) <= SPEC_MAX_LANES and not job.batch_invariant
                  and job.sampling.temperature <= 0):  # greedy lanes only: see docs/scheduling.md
                room = min(job.max_new_tokens - job.generated, self.model.n_ctx - len(lane.tokens)) - 1
                draft = job.drafts.draft(lane.tokens, job.next_token, min(self.spec_draft, room))
                entries.extend((lane, tok, True, "draft") for tok in draft)
        n_gen = len(entries)  # generated rows (next tokens and drafts) are counted first, prompt rows after
        budget = self.model.n_batch - n_gen
        prefilling = [ln for ln in lanes if ln.job is not None and ln.job.pending]
        # Prompt chunks share what is left of the batch, most urgent class first.
        for lane in sorted(prefilling, key=lambda ln: (ln.job.rank, ln.job.arrival) if ln.job else (9, 0)):
            job = lane.job
            if job is None or not job.pending or budget <= 0:
                continue
            chunk = job.pending[:budget]
            del job.pending[: len(chunk)]
            budget -= len(chunk)
            last = len(chunk) - 1
            entries.extend((lane, tok, i == last and not job.pending, "prompt") for i, tok in enumerate(chunk))
        if not entries:
            return False
        if not self.model.kv_unified:
            # With a KV stream per lane, llama.cpp decodes lanes together only while their sequence ids come in
            # the batch consecutive and increasing; it splits the batch elsewhere. A stable sort keeps each lane's
            # rows in order.
            entries.sort(key=lambda e: e[0].seq)
        first = entries[0][0]
        assert first.job is not None
        self._adapters.apply(first.ctx, first.job.adapters)
        self._fill_batch(entries)
        if not self._decode(entries, n_gen):
            return False
        now = time.monotonic()
        by_lane: dict[int, list[int]] = {}
        for i, (lane, token, _, _) in enumerate(entries):
            lane.tokens.append(token)
            lane.last_used = now
            by_lane.setdefault(id(lane), []).append(i)
        self._stage_top_k(entries, by_lane)
        for indexes in by_lane.values():
            lane = entries[indexes[0]][0]
            if lane.job is not None:
                self._after_decode(lane, [(i, entries[i][1], entries[i][3]) for i in indexes if entries[i][2]])
        return True

    def _fill_batch(self, entries: list[Entry]) -> None:
        """One slice assignment per field (numpy arrays under the llama_batch), not one ctypes store per token."""
        positions = {id(lane): len(lane.tokens) for lane, _, _, _ in entries}
        pos = []
        for lane, _, _, _ in entries:
            at = positions[id(lane)]
            pos.append(at)
            positions[id(lane)] = at + 1
        self._batch.fill([e[1] for e in entries], pos, [e[0].seq for e in entries], [e[2] for e in entries])

    def _stage_top_k(self, entries: list[Entry], by_lane: dict[int, list[int]]) -> None:
        """Sampled lanes' rows (one each: they never draft) get their biases and penalties, then their top-k
        candidates are found in one pass over all of them: numpy calls on whole rows let the GIL go, and a
        busy thread makes each hand-off cost up to the switch interval; once per tick, not once per lane."""
        groups: dict[int, list[tuple[LaneSampler, int]]] = {}
        for indexes in by_lane.values():
            outputs = [i for i in indexes if entries[i][2]]
            job = entries[indexes[0]][0].job
            if (len(outputs) != 1 or job is None or job.sampler is None or job.grammar is not None
                    or job.logprobs is not None or not job.sampler.shared_top_k):
                continue
            groups.setdefault(job.sampler.shared_top_k, []).append((job.sampler, outputs[0]))
        ctx = entries[0][0].ctx
        for k, group in groups.items():
            block = self._rows.block(ctx, [i for _, i in group]) if len(group) > 1 else None
            if block is None:
                continue
            for (sampler, _), row in zip(group, block, strict=True):
                sampler.prepare(row)
            for (sampler, index), top in zip(group, top_k_rows(block, k), strict=True):
                sampler.stage(index, top)

    def _after_decode(self, lane: Lane, outputs: list[tuple[int, int, str]]) -> None:
        """Sample a lane's outputs in order; drafts stand while the sampled token agrees with them."""
        job = lane.job
        assert job is not None
        drafts = [token for _, token, kind in outputs if kind == "draft"]
        accepted = 0
        for position, (index, _, _) in enumerate(outputs):
            # Tokens in the cache that this output follows: the drafts after it are not committed yet.
            committed = len(lane.tokens) - (len(drafts) - position)
            token = self._sampled(job, index, committed)
            if token is None or position >= len(drafts) or token != drafts[position]:
                break
            accepted += 1
        if drafts:
            job.spec.proposed += len(drafts)
            job.spec.accepted += accepted
            if not accepted:  # a miss: the text is not repeating here; stop paying for drafts for a while
                job.spec_pause = SPEC_PAUSE_AFTER_MISS
            keep = len(lane.tokens) - (len(drafts) - accepted)
            if keep < len(lane.tokens):  # rejected drafts leave the cache
                memory_seq_rm(lane.memory, lane.seq, keep, -1)
                del lane.tokens[keep:]

    def _decode(self, entries: list[Entry], n_gen: int) -> bool:
        ctx = entries[0][0].ctx
        self._outbox.flush()  # the loop wakes to these while llama_decode runs without the GIL
        started = time.monotonic()
        status = llama_cpp.llama_decode(ctx, self._batch.struct)  # the one call that lets the GIL go
        if status == 0:
            n_prompt = len(entries) - n_gen
            self.decoded_tokens += n_gen
            self.prefilled_tokens += n_prompt
            elapsed = time.monotonic() - started
            self.stats.decodes["prefill" if n_prompt else "generation"].add(len(entries), elapsed)
            self._ticks.append((started, n_gen, n_prompt, elapsed))
            self._last_tick = (n_gen, n_prompt, entries, elapsed)
            return True
        if status == 1:  # no room in the KV cache: free idle caches first, then cut the longest job
            group = [lane for lane in self._all_lanes() if lane.ctx is ctx]
            # Idle lanes' cells are room for others only in a shared pool.
            idle = [lane for lane in group if lane.job is None and lane.tokens] if self.model.kv_unified else []
            if idle:
                for lane in idle:
                    memory_seq_rm(lane.memory, lane.seq, -1, -1)
                    lane.tokens.clear()
            else:
                busy = [lane for lane in group if lane.job is not None]
                if not self.model.kv_unified:  # only a lane of this batch can have filled its own stream
                    in_batch = {id(lane) for lane, _, _, _ in entries}
                    busy = [lane for lane in busy if id(lane) in in_batch] or busy
                victim = max(busy, key=lambda ln: len(ln.tokens))
                assert victim.job is not None
                self._finish(victim.job, "length")
            self._rewind(entries)
            return False
        raise RuntimeError(f"llama_decode failed with status {status}")

    def _rewind(self, entries: list[Entry]) -> None:
        """Put a batch that did not decode back: prompt chunks return to their jobs, drafts are dropped."""
        for lane in {id(lane): lane for lane, _, _, _ in entries}.values():
            memory_seq_rm(lane.memory, lane.seq, len(lane.tokens), -1)
            if lane.job is not None:
                lane.job.pending[:0] = [tok for ln, tok, _, kind in entries if ln is lane and kind == "prompt"]

    def _sampled(self, job: Job, batch_index: int, committed: int) -> int | None:
        """Sample one output; returns the token, or None when the job ended with it."""
        assert job.sampler is not None and job.lane is not None
        if job.grammar is not None or job.logprobs is not None:
            logits = self._rows.row(job.lane.ctx, batch_index)
            distribution = None
            if job.logprobs is not None:
                distribution = logits.copy()
                for token_id, bias in job.sampling.logit_bias:
                    distribution[token_id] += bias
            if job.grammar is not None:
                job.grammar.apply(logits)
                if job.grammar.error is not None:  # gave up working out the next tokens: only the end is left
                    self._grammar_gave_up(job)
                    return None
        token = job.sampler.sample(job.lane.ctx, batch_index)
        if self.model.is_eog(token) and not job.ignore_eos:
            self._finish(job, "stop")  # the end token is not part of the reply, nor of its log probabilities
            return None
        if job.logprobs is not None and distribution is not None:
            job.pending_logprobs.append(token_logprobs(distribution, token, job.logprobs, self._token_bytes))
        job.generated += 1
        self._stamp(job)
        data = self._piece(token, special=token in job.preserve)
        grammar_done = False
        if job.grammar is not None:
            if not job.grammar.advance(token):
                # A parser limit reached on taking the token (the mask let it through, so nothing else refuses it).
                self._grammar_gave_up(job)
                return None
            grammar_done = job.grammar.done
        elif job.lazy_grammar is not None:
            self._maybe_engage(job, data)
        was_reasoning = job.output.in_reasoning
        self._emit(job, job.output.feed(data))
        if was_reasoning or job.output.in_reasoning:
            job.reasoning_generated += 1
        if job.output.stopped or grammar_done:
            self._finish(job, "stop")
        elif job.generated >= job.max_new_tokens or committed + 1 >= self.model.n_ctx:
            self._finish(job, "length")
        else:
            job.next_token = token
            return token
        return None

    def _stamp(self, job: Job) -> None:
        """Time to first token, then the gap before each later one (tokens of one tick arrive together)."""
        now = time.monotonic()
        if job.ttft_s is None:
            job.ttft_s = now - job.created
            self.stats.ttft.observe(job.ttft_s)
        else:
            self.stats.itl.observe(now - job.last_token_at)
        job.last_token_at = now

    def _piece(self, token: int, *, special: bool) -> bytes:
        """The bytes a token adds to the reply (looked up once per token id, then remembered)."""
        cache = self._special_pieces if special else self._pieces
        data = cache.get(token)
        if data is None:
            data = cache[token] = self.model.piece(token, self._piece_buf, special=special)
        return data

    def _token_bytes(self, token: int) -> bytes:
        return self._piece(token, special=True)

    def _maybe_engage(self, job: Job, data: bytes) -> None:
        """Lazy grammars: once the trigger appears, the grammar takes the reply from the trigger on."""
        lazy = job.lazy_grammar
        assert lazy is not None and self.grammar_tokenizer is not None
        job.raw_text += data.decode("utf-8", errors="ignore")
        at = lazy.trigger_at(job.raw_text)
        if at is None:
            if lazy.may_trigger_later(job.raw_text):
                job.raw_text = lazy.keep(job.raw_text)
            else:
                job.lazy_grammar = job.lazy_state = None  # the reply began otherwise: it stays free
            return
        job.lazy_grammar = None
        state = job.lazy_state if job.lazy_state is not None else self.grammar_tokenizer.state(lazy.grammar)
        job.lazy_state = None
        written = job.raw_text[at:]
        if not state.matcher.consume_tokens(self.grammar_tokenizer.tokenizer.tokenize_str(written)):
            log.info("lazy grammar could not take %r; leaving the reply unconstrained", written)
            return
        job.grammar = state

    def _emit(self, job: Job, piece: Piece) -> None:
        calls: tuple[ToolCallDelta, ...] = ()
        content = piece.content
        if job.calls is not None and content:
            parsed = job.calls.feed(content)
            content, calls = parsed.content, tuple(parsed.calls)
        self._send(job, content, piece.reasoning, calls)

    def _send(self, job: Job, content: str, reasoning: str, calls: tuple[ToolCallDelta, ...] = (),
              *, force: bool = False) -> None:
        """One TextDelta with the log probabilities of every token since the last one."""
        if not (content or reasoning or calls or (force and job.pending_logprobs)):
            return
        logprobs: tuple[TokenLogprob, ...] = ()
        if calls:
            job.calls_made += sum(1 for c in calls if c.name is not None)
        if job.pending_logprobs:
            logprobs = tuple(job.pending_logprobs)
            job.pending_logprobs.clear()
        delta = TextDelta(index=job.index, content=content, reasoning=reasoning, completion_tokens=job.generated,
                          tool_calls=calls, logprobs=logprobs)
        if job.sink.direct is not None:
            job.sink.hand_over(delta)
        else:
            self._outbox.post(job.sink, delta)

    def _finish(self, job: Job, reason: FinishReason) -> None:
        job.finished = True
        self._release(job)  # the lane is free before the client hears it finished
        if reason == "cancelled":
            self._count(job, reason)
            return
        self._emit(job, job.output.flush())
        if job.calls is not None:
            tail = job.calls.finish()
            self._send(job, tail.content, "", tuple(tail.calls))
        self._send(job, "", "", force=True)
        if reason == "stop" and job.calls_made:
            reason = "tool_calls"
        self._count(job, reason)
        usage = Usage(prompt_tokens=len(job.prompt), completion_tokens=job.generated, cached_tokens=job.cached,
                      reasoning_tokens=job.reasoning_generated)
        spec = job.spec.as_dict() if job.spec.proposed else None
        finished = Finished(index=job.index, finish_reason=reason, usage=usage, expired=job.expired, spec=spec,
                            stop_sequence=job.output.stop_sequence if reason == "stop" else None,
                            ttft_s=job.ttft_s)
        self._outbox.post(job.sink, finished)

    def _grammar_gave_up(self, job: Job) -> None:
        """A parser limit reached mid-reply, working out the next tokens or taking one: the reply is not what the
        grammar promised, so it is a failure naming the request's parameter, not a "stop" after half a value."""
        assert job.grammar is not None
        error = job.grammar.reason or "no reason given"
        log.warning("output grammar gave up at reply token %d: %s", job.generated, error)
        self._fail(job, f"the output grammar gave up at reply token {job.generated}: {error}",
                   constraint=job.grammar_param or "response_format")

    def _fail(self, job: Job, message: str, *, constraint: str | None = None) -> None:
        """End one choice with an error its client hears (the lane is freed first, as on a finish)."""
        job.finished = True
        self._release(job)
        self._count(job, "error")
        self._outbox.post(job.sink, Failed(index=job.index, message=message, constraint=constraint))

    def _count(self, job: Job, reason: str) -> None:
        stats = self.stats
        stats.prompt_tokens += len(job.prompt)
        stats.cached_tokens += job.cached
        stats.completion_tokens += job.generated
        stats.draft_proposed += job.spec.proposed
        stats.draft_accepted += job.spec.accepted
        stats.count_finish(reason)

    def _release(self, job: Job) -> None:
        if job.sampler is not None:
            job.sampler.close()
            job.sampler = None
        if job.lane is not None:
            job.lane.job = None
            job.lane = None

    def _fail_all(self, message: str) -> None:
        for job in self._waiting.jobs:
            job.finished = True
            self._outbox.post(job.sink, Failed(index=job.index, message=message))
            self._leave_queue(job)
            self.stats.count_finish("error")
        self._waiting.jobs.clear()
        for lane in self._all_lanes():
            if lane.job is not None:
                self._outbox.post(lane.job.sink, Failed(index=lane.job.index, message=message))
                self.stats.count_finish("error")
                self._release(lane.job)

    def _reset_cache(self) -> None:
        for lane in self._all_lanes():
            llama_cpp.llama_memory_clear(lane.memory, True)
            lane.tokens.clear()
