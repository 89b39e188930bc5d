"""The engine thread: lanes on one llama.cpp context, one batched decode per tick.

Every tick builds one ``llama_batch`` with the next token of each generating lane plus chunks of pending
prompts (within ``n_batch``), calls ``llama_decode`` once, then samples each lane with its own chain.
Jobs join and leave between ticks. A finished lane keeps its tokens in the KV cache, so a later request
that repeats its prefix is assigned that lane and only prefills the rest.
"""

from __future__ import annotations

import asyncio
import ctypes
import logging
import queue
import threading
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field

import llama_cpp
import numpy as np
import numpy.typing as npt

from superfluid.engine.grammar import GrammarState, GrammarTokenizer
from superfluid.engine.llama_model import LlamaModel
from superfluid.engine.logprobs import token_logprobs
from superfluid.engine.sampling import EffectiveSampling, SamplerChain
from superfluid.engine.text_output import Piece, TextOutput
from superfluid.engine.tool_calls import CallReader, ToolCallDelta
from superfluid.engine.types import (
    Admitted,
    EngineEvent,
    Failed,
    Finished,
    FinishReason,
    TextDelta,
    TokenLogprob,
    Usage,
)

log = logging.getLogger(__name__)


class EventSink:
    """Hands events from the engine thread to one request's asyncio queue."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.queue: asyncio.Queue[EngineEvent] = asyncio.Queue()

    def put(self, event: EngineEvent) -> bool:
        try:
            self.loop.call_soon_threadsafe(self.queue.put_nowait, event)
        except RuntimeError:  # the loop is gone: nobody is listening
            return False
        return True


@dataclass(eq=False)
class Job:
    """One choice of one request, from admission to its Finished event."""

    index: int
    prompt: tuple[int, ...]
    max_new_tokens: int
    sampling: EffectiveSampling
    output: TextOutput
    sink: EventSink
    ignore_eos: bool = False
    cancelled: bool = False
    grammar: GrammarState | None = None
    lazy_grammar: tuple[str, str] | None = None
    """(trigger text, grammar): the grammar engages once the reply contains the trigger."""
    calls: CallReader | None = None
    logprobs: int | None = None
    # engine-thread state
    raw_text: str = ""
    calls_made: int = 0
    pending_logprobs: list[TokenLogprob] = field(default_factory=list)
    pending: list[int] = field(default_factory=list)
    cached: int = 0
    generated: int = 0
    next_token: int | None = None
    sampler: SamplerChain | None = None
    lane: Lane | None = None


@dataclass(eq=False)
class Lane:
    seq: int
    tokens: list[int] = field(default_factory=list)
    """Tokens whose keys and values are in the KV cache for this sequence, in order."""
    job: Job | None = None
    last_used: float = 0.0


def common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


_STOP = object()


class Scheduler:
    """Owns the engine thread for one model. ``submit`` and ``cancel`` are safe from any thread."""

    def __init__(self, model: LlamaModel, *, name: str, grammar: GrammarTokenizer | None = None) -> None:
        self.model = model
        self.grammar_tokenizer = grammar
        self.lanes = [Lane(seq=i) for i in range(model.n_seq_max)]
        self._inbox: queue.SimpleQueue[object] = queue.SimpleQueue()
        self._waiting: deque[Job] = deque()
        self._batch = llama_cpp.llama_batch_init(model.n_batch, 0, 1)
        self._piece_buf = ctypes.create_string_buffer(256)
        self.decoded_tokens = 0
        self.prefilled_tokens = 0
        self._thread = threading.Thread(target=self._run, name=f"engine:{name}", daemon=True)
        self._thread.start()

    # ---- any thread -------------------------------------------------------------------------------
    def submit(self, jobs: Sequence[Job]) -> None:
        for job in jobs:
            self._inbox.put(job)

    def cancel(self, job: Job) -> None:
        job.cancelled = True
        self._inbox.put(None)  # wake the thread if it is idle

    def close(self) -> None:
        self._inbox.put(_STOP)
        self._thread.join(timeout=30)
        llama_cpp.llama_batch_free(self._batch)
        self.model.close()

    def snapshot(self) -> dict[str, int]:
        busy = sum(1 for lane in self.lanes if lane.job is not None)
        return {
            "lanes": len(self.lanes),
            "busy": busy,
            "waiting": len(self._waiting),
            "cached_tokens": sum(len(lane.tokens) for lane in self.lanes),
        }

    # ---- engine thread ----------------------------------------------------------------------------
    def _run(self) -> None:
        while True:
            idle = not self._waiting and all(lane.job is None for lane in self.lanes)
            try:
                item = self._inbox.get(block=idle)
            except queue.Empty:
                item = None
            while True:
                if item is _STOP:
                    self._fail_all("the server is shutting down")
                    return
                if isinstance(item, Job):
                    self._waiting.append(item)
                try:
                    item = self._inbox.get_nowait()
                except queue.Empty:
                    break
            try:
                self._drop_cancelled()
                self._admit()
                if any(lane.job is not None for lane in self.lanes):
                    self._tick()
            except Exception:
                log.exception("engine tick failed")
                self._fail_all("the engine failed; see the server log")
                self._reset_cache()

    def _drop_cancelled(self) -> None:
        for job in [j for j in self._waiting if j.cancelled]:
            self._waiting.remove(job)
        for lane in self.lanes:
            if lane.job is not None and lane.job.cancelled:
                self._finish(lane.job, "cancelled")

    def _admit(self) -> None:
        while self._waiting:
            free = [lane for lane in self.lanes if lane.job is None]
            if not free:
                return
            job = self._waiting.popleft()
            lane = max(free, key=lambda ln: (common_prefix(ln.tokens, job.prompt), -ln.last_used))
            keep = min(common_prefix(lane.tokens, job.prompt), len(job.prompt) - 1)
            if keep < len(lane.tokens):
                llama_cpp.llama_memory_seq_rm(self.model.memory, lane.seq, keep, -1)
                del lane.tokens[keep:]
            job.cached = keep
            job.pending = list(job.prompt[keep:])
            job.sampler = SamplerChain(job.sampling, self.model.meta.n_vocab)
            job.lane = lane
            lane.job = job
            job.sink.put(Admitted(index=job.index, prompt_tokens=len(job.prompt), cached_tokens=keep))

    def _tick(self) -> None:
        batch = self._batch
        entries: list[tuple[Lane, int, bool]] = []  # lane, token, wants logits
        for lane in self.lanes:
            job = lane.job
            if job is not None and not job.pending and job.next_token is not None:
                entries.append((lane, job.next_token, True))
        budget = self.model.n_batch - len(entries)
        for lane in self.lanes:
            job = lane.job
            if job is None or not job.pending or budget <= 0:
                continue
            chunk = job.pending[:budget]
            del job.pending[: len(chunk)]
            budget -= len(chunk)
            last = len(chunk) - 1
            entries.extend((lane, tok, i == last and not job.pending) for i, tok in enumerate(chunk))
        positions = {id(lane): len(lane.tokens) for lane, _, _ in entries}
        for i, (lane, token, logits) in enumerate(entries):
            batch.token[i] = token
            batch.pos[i] = positions[id(lane)]
            positions[id(lane)] += 1
            batch.n_seq_id[i] = 1
            batch.seq_id[i][0] = lane.seq
            batch.logits[i] = logits
        batch.n_tokens = len(entries)
        if not self._decode(entries):
            return
        now = time.monotonic()
        for lane, token, _ in entries:
            lane.tokens.append(token)
            lane.last_used = now
        for i, (lane, _, logits) in enumerate(entries):
            if logits and lane.job is not None:
                self._sampled(lane.job, i)

    def _decode(self, entries: list[tuple[Lane, int, bool]]) -> bool:
        status = llama_cpp.llama_decode(self.model.ctx, self._batch)
        if status == 0:
            n_gen = sum(1 for _, _, logits in entries if logits)
            self.decoded_tokens += n_gen
            self.prefilled_tokens += len(entries) - n_gen
            return True
        if status == 1:  # no room in the KV cache: free idle caches first, then cut the longest job
            idle = [lane for lane in self.lanes if lane.job is None and lane.tokens]
            if idle:
                for lane in idle:
                    llama_cpp.llama_memory_seq_rm(self.model.memory, lane.seq, -1, -1)
                    lane.tokens.clear()
            else:
                busy = [lane for lane in self.lanes if lane.job is not None]
                victim = max(busy, key=lambda ln: len(ln.tokens))
                assert victim.job is not None
                self._finish(victim.job, "length")
            self._rewind(entries)
            return False
        raise RuntimeError(f"llama_decode failed with status {status}")

    def _rewind(self, entries: list[tuple[Lane, int, bool]]) -> None:
        """Put a batch that did not decode back into its jobs, to be retried next tick."""
        for lane in {id(lane): lane for lane, _, _ in entries}.values():
            llama_cpp.llama_memory_seq_rm(self.model.memory, lane.seq, len(lane.tokens), -1)
            job = lane.job
            if job is None:
                continue
            fed = [tok for ln, tok, _ in entries if ln is lane]
            if job.next_token is not None and not job.pending and fed == [job.next_token]:
                continue
            job.pending[:0] = fed

    def _logits(self, batch_index: int) -> npt.NDArray[np.float32]:
        ptr = llama_cpp.llama_get_logits_ith(self.model.ctx, batch_index)
        return np.ctypeslib.as_array(ptr, shape=(self.model.meta.n_vocab,))

    def _sampled(self, job: Job, batch_index: int) -> None:
        assert job.sampler is not None and job.lane is not None
        if job.grammar is not None or job.logprobs is not None:
            logits = self._logits(batch_index)
            distribution = None
            if job.logprobs is not None:
                distribution = logits.copy()
                for token_id, bias in job.sampling.logit_bias:
                    distribution[token_id] += bias
            if job.grammar is not None:
                job.grammar.apply(logits)
        token = job.sampler.sample(self.model.ctx, batch_index)
        if job.logprobs is not None and distribution is not None:
            job.pending_logprobs.append(token_logprobs(distribution, token, job.logprobs, self._token_bytes))
        if self.model.is_eog(token) and not job.ignore_eos:
            self._finish(job, "stop")
            return
        job.generated += 1
        data = self.model.piece(token, self._piece_buf)
        grammar_done = False
        if job.grammar is not None:
            if not job.grammar.advance(token):
                log.warning("grammar refused token %d: %s", token, job.grammar.error)
            grammar_done = job.grammar.done
        elif job.lazy_grammar is not None:
            self._maybe_engage(job, data)
        self._emit(job, job.output.feed(data))
        if job.output.stopped or grammar_done:
            self._finish(job, "stop")
        elif job.generated >= job.max_new_tokens or len(job.lane.tokens) + 1 >= self.model.n_ctx:
            self._finish(job, "length")
        else:
            job.next_token = token

    def _token_bytes(self, token: int) -> bytes:
        return self.model.piece(token, self._piece_buf, special=True)

    def _maybe_engage(self, job: Job, data: bytes) -> None:
        """Lazy grammars: once the trigger appears, constrain the rest of the reply."""
        assert job.lazy_grammar is not None and self.grammar_tokenizer is not None
        trigger, grammar = job.lazy_grammar
        job.raw_text += data.decode("utf-8", errors="ignore")
        at = job.raw_text.find(trigger)
        if at < 0:
            job.raw_text = job.raw_text[-len(trigger):]
            return
        job.lazy_grammar = None
        state = self.grammar_tokenizer.state(grammar)
        rest = job.raw_text[at + len(trigger):]
        if rest and not state.matcher.consume_tokens(self.grammar_tokenizer.tokenizer.tokenize_str(rest)):
            log.info("lazy grammar could not take %r after its trigger; leaving the reply unconstrained", rest)
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
        job.calls_made += sum(1 for c in calls if c.name is not None)
        logprobs = tuple(job.pending_logprobs)
        job.pending_logprobs.clear()
        job.sink.put(TextDelta(index=job.index, content=content, reasoning=reasoning,
                               completion_tokens=job.generated, tool_calls=calls, logprobs=logprobs))

    def _finish(self, job: Job, reason: FinishReason) -> None:
        self._release(job)  # the lane is free before the client hears it finished
        if reason == "cancelled":
            return
        self._emit(job, job.output.flush())
        if job.calls is not None:
            tail = job.calls.finish()
            self._send(job, tail.content, "", tuple(tail.calls))
        self._send(job, "", "", force=True)
        if reason == "stop" and job.calls_made:
            reason = "tool_calls"
        usage = Usage(prompt_tokens=len(job.prompt), completion_tokens=job.generated, cached_tokens=job.cached)
        job.sink.put(Finished(index=job.index, finish_reason=reason, usage=usage))

    def _release(self, job: Job) -> None:
        if job.sampler is not None:
            job.sampler.close()
            job.sampler = None
        if job.lane is not None:
            job.lane.job = None
            job.lane = None

    def _fail_all(self, message: str) -> None:
        for job in list(self._waiting):
            job.sink.put(Failed(index=job.index, message=message))
        self._waiting.clear()
        for lane in self.lanes:
            if lane.job is not None:
                lane.job.sink.put(Failed(index=lane.job.index, message=message))
                self._release(lane.job)

    def _reset_cache(self) -> None:
        llama_cpp.llama_memory_clear(self.model.memory, True)
        for lane in self.lanes:
            lane.tokens.clear()
