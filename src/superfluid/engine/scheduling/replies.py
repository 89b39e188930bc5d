"""Writing replies on the engine thread: the tokens sampled from a decode's rows, the events they become, and the
end of each job (finished, failed or cancelled).

After each decode the scheduler hands the tick's rows to ``ReplyWriter.sample`` once. Each lane's outputs are
sampled in order with the lane's own sampler, drafts standing while they agree with what was sampled; each token
goes through the job's grammar (or waits for a lazy grammar's trigger), its ``TextOutput`` and tool-call reader,
and comes out as a ``TextDelta`` (straight to a sink with ``direct``, else through the outbox). A job's end frees
its lane before the client hears of it.
"""

from __future__ import annotations

import ctypes
import logging
import time

import numpy as np
import numpy.typing as npt

from superfluid.engine.decoding.grammar import GrammarTokenizer
from superfluid.engine.decoding.lane_sampler import LaneSampler, draw_table, top_k_table
from superfluid.engine.decoding.logprobs import token_logprobs
from superfluid.engine.decoding.sampling import LogitRows
from superfluid.engine.decoding.text_output import Piece
from superfluid.engine.decoding.tool_calls import ToolCallDelta
from superfluid.engine.models.llama_model import LlamaModel
from superfluid.engine.models.native import memory_seq_rm
from superfluid.engine.scheduling.batch_rows import Entry
from superfluid.engine.scheduling.job import Job, Lane, Outbox
from superfluid.engine.scheduling.stats import EngineStats
from superfluid.engine.types import Failed, Finished, FinishReason, TextDelta, TokenLogprob, Usage

log = logging.getLogger(__name__)

SPEC_PAUSE_AFTER_MISS = 32
"""Decodes without drafting after a draft whose first token was already wrong."""


class ReplyWriter:
    """Engine-thread only: samples the lanes' decoded rows and writes their jobs' events to ``outbox``."""

    def __init__(self, model: LlamaModel, rows: LogitRows, outbox: Outbox, stats: EngineStats,
                 grammar: GrammarTokenizer | None) -> None:
        self.model = model
        self.stats = stats
        self.grammar_tokenizer = grammar
        self._rows = rows
        self._outbox = outbox
        self._piece_buf = ctypes.create_string_buffer(256)
        self._pieces: dict[int, bytes] = {}
        self._special_pieces: dict[int, bytes] = {}

    def sample(self, entries: list[Entry], by_lane: dict[int, list[int]]) -> None:
        """Sample every lane of a decoded batch (``by_lane``: each lane's row indexes, as ``commit_rows`` gives)."""
        self._stage_rows(entries, by_lane)
        for indexes in by_lane.values():
            lane = entries[indexes[0]][0]
            if lane.job is not None:
                self._after_decode(lane, [(i, entries[i][1], entries[i][3]) for i in indexes if entries[i][2]])

    def _stage_rows(self, entries: list[Entry], by_lane: dict[int, list[int]]) -> None:
        """Lanes with one output and nothing between their row and their sampler (no grammar, no log
        probabilities) are sampled together: their rows get their biases and penalties, then greedy lanes' tokens
        are one argmax over their rows, and top-k lanes' candidates are found and drawn from in a few numpy
        calls over all of them (lane_sampler.top_k_table, draw_table). A numpy call on whole rows lets the GIL go,
        and a busy thread makes each hand-off cost up to the switch interval; per-lane Python costs more than the
        vectorized pass from a few lanes on. Once per tick, not once per lane."""
        groups: dict[int, list[tuple[LaneSampler, int]]] = {}
        for indexes in by_lane.values():
            outputs = [i for i in indexes if entries[i][2]]
            job = entries[indexes[0]][0].job
            if (len(outputs) != 1 or job is None or job.sampler is None or job.grammar is not None
                    or job.logprobs is not None):
                continue
            sampler = job.sampler
            k = -1 if sampler.greedy else sampler.shared_top_k
            if k:
                groups.setdefault(k, []).append((sampler, outputs[0]))
        ctx = entries[0][0].ctx
        for k, group in groups.items():
            for run in _runs(group):
                block = self._rows.block(ctx, [i for _, i in run]) if len(run) > 1 else None
                if block is None:
                    continue
                for (sampler, _), row in zip(run, block, strict=True):
                    sampler.prepare(row)
                if k < 0:
                    for (sampler, index), token in zip(run, block.argmax(axis=1).tolist(), strict=True):
                        sampler.pick(index, token)
                else:
                    self._draw_run(run, block, k)

    @staticmethod
    def _draw_run(run: list[tuple[LaneSampler, int]], block: npt.NDArray[np.float32], k: int) -> None:
        table = top_k_table(block, k)
        if table is None:
            for sampler, index in run:
                sampler.stage(index, None)
            return
        ids, logits, usable = table
        flags = usable.tolist()
        drawn = [i for i, ok in enumerate(flags) if ok]
        if drawn:
            cuts = np.array([run[i][0].cuts for i in drawn])
            uniforms = np.array([run[i][0].uniform() for i in drawn])
            picked = np.take_along_axis(ids[drawn], draw_table(logits[drawn], cuts, uniforms)[:, None], axis=1)
            for i, token in zip(drawn, picked[:, 0].tolist(), strict=True):
                run[i][0].pick(run[i][1], token)
        for (sampler, index), ok in zip(run, flags, strict=True):
            if not ok:
                sampler.stage(index, None)

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
            self.finish(job, "stop")  # the end token is not part of the reply, nor of its log probabilities
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
        if job.output.stopped or grammar_done or job.repeats.repeated:
            self.finish(job, "stop")
        elif job.generated >= job.max_new_tokens or committed + 1 >= self.model.n_ctx:
            self.finish(job, "length")
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
            content, calls = parsed.content, job.repeats.take(parsed.calls)
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

    def finish(self, job: Job, reason: FinishReason) -> None:
        """End a job: the rest of its text, then Finished with its usage (a cancelled job is only counted)."""
        job.finished = True
        self.release(job)  # the lane is free before the client hears it finished
        if reason == "cancelled":
            self._count(job, reason)
            return
        self._emit(job, job.output.flush())
        if job.calls is not None:
            tail = job.calls.finish()
            self._send(job, tail.content, "", job.repeats.take(tail.calls) + job.repeats.finish())
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
        self.fail(job, f"the output grammar gave up at reply token {job.generated}: {error}",
                  constraint=job.grammar_param or "response_format")

    def fail(self, job: Job, message: str, *, constraint: str | None = None) -> None:
        """End one choice with an error its client hears (the lane is freed first, as on a finish)."""
        job.finished = True
        self.release(job)
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
        if job.repeats.repeated:
            stats.repeated_calls += 1

    def release(self, job: Job) -> None:
        """Close the job's sampler and free its lane (the lane keeps its cached tokens)."""
        if job.sampler is not None:
            job.sampler.close()
            job.sampler = None
        if job.lane is not None:
            job.lane.job = None
            job.lane = None


def _runs(group: list[tuple[LaneSampler, int]]) -> list[list[tuple[LaneSampler, int]]]:
    """The group split where its outputs' batch indexes are not consecutive (a block covers consecutive rows)."""
    runs: list[list[tuple[LaneSampler, int]]] = []
    for item in sorted(group, key=lambda pair: pair[1]):
        if runs and runs[-1][-1][1] + 1 == item[1]:
            runs[-1].append(item)
        else:
            runs.append([item])
    return runs
