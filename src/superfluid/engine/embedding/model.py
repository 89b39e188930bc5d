"""A llama.cpp model served in embedding mode: inputs -> pooled vectors.

One engine thread per model owns the llama.cpp context (``embeddings = true``, the profile's pooling type,
one micro-batch as large as the batch, so a pooled sequence is never split). It takes every input waiting --
the inputs of one request and of requests that arrived meanwhile -- and packs them into as few ``llama_decode``
calls as fit ``--batch-size`` tokens and the context's sequence slots, each input its own sequence. Vectors
are returned as llama.cpp pools them (not normalized).
"""

from __future__ import annotations

import asyncio
import ctypes
import logging
import queue
from collections.abc import Sequence
from dataclasses import dataclass, field

import llama_cpp
import numpy as np
import numpy.typing as npt

from superfluid.engine.models.llama_model import LlamaModel
from superfluid.engine.models.model_metadata import POOLING_TYPES
from superfluid.engine.models.model_sources import ModelSource
from superfluid.engine.models.profile import POOLED, ModelProfile
from superfluid.engine.worker import RETIRED, PassingWorker
from superfluid.errors import (
    ConcurrencyLimited,
    ContextLengthExceeded,
    EngineFailure,
    InvalidRequest,
    UnsupportedModel,
)
from superfluid.settings import Settings

log = logging.getLogger(__name__)

MAX_SEQUENCES = 64
"""Inputs decoded together in one llama_decode (llama.cpp sequence slots of the embedding context)."""

Vector = npt.NDArray[np.float32]


@dataclass
class _Job:
    inputs: list[list[int]]
    loop: asyncio.AbstractEventLoop
    future: asyncio.Future[list[Vector]]
    vectors: dict[int, Vector] = field(default_factory=dict)


class EmbeddingModel:
    def __init__(self, profile: ModelProfile, llama: LlamaModel, settings: Settings) -> None:
        self.profile = profile
        self.id = profile.id
        self.llama = llama
        self.n_ctx = profile.n_ctx
        self.n_embd = int(llama_cpp.llama_model_n_embd(llama.model))
        self._queue_limit = settings.queue_size
        self._inbox: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._waiting = 0
        self._decoding = False
        """The engine thread is working through jobs (it may still be after their requests went away)."""
        self._worker = PassingWorker(f"embed-{profile.id}", self._serve)
        """The engine thread, running only while there is work (see worker.py)."""

    @classmethod
    def load(cls, profile: ModelProfile, source: ModelSource, settings: Settings) -> EmbeddingModel:
        if profile.pooling not in POOLED:
            raise UnsupportedModel(f"model '{profile.id}' has pooling type '{profile.pooling}'; serve it with "
                                   "--embedding --pooling mean|cls|last to compute embeddings", param="model")
        path = source.locate()
        log.info("loading %s from %s for embeddings (%s pooling)", profile.id, path, profile.pooling)
        llama = LlamaModel(path, n_ctx=profile.n_ctx, n_seq_max=MAX_SEQUENCES, n_batch=profile.n_ctx,
                           n_threads=settings.threads, overrides=settings.override_kv,
                           pooling=POOLING_TYPES[profile.pooling], flash_attn=settings.flash_attn)
        return cls(profile, llama, settings)

    @property
    def idle(self) -> bool:
        """No request waiting for its vectors, and the engine thread not decoding."""
        return self._waiting == 0 and not self._decoding and self._inbox.empty()

    def close(self) -> None:
        self._inbox.put(None)
        self._worker.wake()
        self._worker.close()
        self.llama.close()

    # ---- requests (event loop) -------------------------------------------------------------------
    def prepare(self, inputs: Sequence[str | Sequence[int]], *, truncate: bool, param: str = "input",
                indexed: bool = True) -> list[list[int]]:
        """Token ids per input (with the model's [CLS]/[SEP] or BOS/EOS); an empty or oversized input is a 400
        naming it (``param[i]``, or ``param`` alone when not ``indexed``), unless ``truncate`` cuts an oversized
        one to the window."""
        out = []
        n_vocab = self.llama.meta.n_vocab
        for i, item in enumerate(inputs):
            where = f"{param}[{i}]" if indexed else param
            if isinstance(item, str):
                if not item:
                    raise InvalidRequest(f"{where} is an empty string; every input needs text", param=where)
                tokens = self.llama.tokenize(item, add_special=True, parse_special=False)
            else:
                tokens = [int(t) for t in item]
                if not tokens:
                    raise InvalidRequest(f"{where} is an empty token array", param=where)
                if any(t < 0 or t >= n_vocab for t in tokens):
                    raise InvalidRequest(f"{where} holds a token id outside 0..{n_vocab - 1}", param=where)
            if len(tokens) > self.n_ctx:
                if not truncate:
                    raise ContextLengthExceeded(
                        f"{where} is {len(tokens)} tokens; model '{self.id}' embeds at most {self.n_ctx}",
                        param=where)
                tokens = tokens[: self.n_ctx - 1] + tokens[-1:]  # keep the closing [SEP]/EOS
            out.append(tokens)
        return out

    async def embed(self, inputs: list[list[int]]) -> list[Vector]:
        """Pooled vectors for prepared inputs, in order."""
        if not inputs:
            return []
        if self._waiting >= self._queue_limit:
            raise ConcurrencyLimited(f"model '{self.id}' has {self._waiting} embedding requests waiting",
                              retry_after_s=1.0)
        loop = asyncio.get_running_loop()
        job = _Job(inputs, loop, loop.create_future())
        self._waiting += 1
        try:
            self._inbox.put(job)
            self._worker.wake()
            return await job.future
        finally:
            self._waiting -= 1

    # ---- engine thread ---------------------------------------------------------------------------
    def _serve(self) -> None:
        batch = llama_cpp.llama_batch_init(self.n_ctx, 0, 1)
        try:
            # RETIRED: nothing to do, the thread ends and its OpenMP pool with it; None: the model is closing.
            while (first := self._worker.take(self._inbox)) is not RETIRED and first is not None:
                jobs = [first]
                while True:
                    try:
                        more = self._inbox.get_nowait()
                    except queue.Empty:
                        break
                    if more is None:
                        self._inbox.put(None)
                        break
                    jobs.append(more)
                self._decoding = True
                try:
                    self._run(jobs, batch)
                finally:
                    self._decoding = False
        finally:
            llama_cpp.llama_batch_free(batch)

    def _run(self, jobs: list[_Job], batch: llama_cpp.llama_batch) -> None:
        items = [(job, i) for job in jobs if not job.future.cancelled() for i in range(len(job.inputs))]
        start = 0
        while start < len(items):
            chunk: list[tuple[_Job, int]] = []
            used = 0
            for job, i in items[start:]:
                n = len(job.inputs[i])
                if chunk and (used + n > self.n_ctx or len(chunk) == MAX_SEQUENCES):
                    break
                chunk.append((job, i))
                used += n
            start += len(chunk)
            try:
                for (job, i), vector in zip(chunk, self._decode([job.inputs[i] for job, i in chunk], batch),
                                            strict=True):
                    job.vectors[i] = vector
            except EngineFailure as exc:
                for job, _ in chunk:
                    job.loop.call_soon_threadsafe(_fail, job.future, exc)
        for job in jobs:
            if len(job.vectors) == len(job.inputs):
                job.loop.call_soon_threadsafe(_resolve, job.future, [job.vectors[i] for i in range(len(job.inputs))])

    def _decode(self, sequences: list[list[int]], batch: llama_cpp.llama_batch) -> list[Vector]:
        """One llama_decode over several sequences; their pooled vectors."""
        n = 0
        for seq, tokens in enumerate(sequences):
            for pos, token in enumerate(tokens):
                batch.token[n] = token
                batch.pos[n] = pos  # type: ignore[call-overload]  # llama_cpp types pos as an array of arrays
                batch.n_seq_id[n] = 1
                batch.seq_id[n][0] = seq
                batch.logits[n] = True
                n += 1
        batch.n_tokens = n
        ctx = self.llama.ctx
        if self.llama.memory:
            llama_cpp.llama_memory_clear(self.llama.memory, True)
        if llama_cpp.llama_decode(ctx, batch) != 0:
            raise EngineFailure(f"llama_decode failed on model '{self.id}'")
        out = []
        for seq in range(len(sequences)):
            pointer = llama_cpp.llama_get_embeddings_seq(ctx, seq)
            if not pointer:
                raise EngineFailure(f"model '{self.id}' returned no pooled embedding")
            out.append(np.ctypeslib.as_array(ctypes.cast(pointer, ctypes.POINTER(ctypes.c_float)),
                                             shape=(self.n_embd,)).copy())
        return out


def _resolve(future: asyncio.Future[list[Vector]], vectors: list[Vector]) -> None:
    if not future.done():
        future.set_result(vectors)


def _fail(future: asyncio.Future[list[Vector]], exc: BaseException) -> None:
    if not future.done():
        future.set_exception(exc)
