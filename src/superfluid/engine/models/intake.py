"""A served model's admission of requests: a prepared request becomes one job per choice, with its sampler
settings, output reader, grammar matchers and deadline, queued on the engine thread's scheduler; and the disk
tier is asked, off the loop, for a prefix longer than the lanes hold. What the jobs then do is scheduling/."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from superfluid.engine.decoding.sampling import resolve
from superfluid.engine.decoding.text_output import TextOutput
from superfluid.engine.models.lora import ModelAdapters
from superfluid.engine.models.prompts import PromptBuilder, grammar_param
from superfluid.engine.scheduling.job import EventSink, Job
from superfluid.engine.scheduling.kv_disk import BLOCK, Found, KvDiskTier
from superfluid.engine.scheduling.scheduler import Scheduler
from superfluid.engine.scheduling.stream import Gathered, GenerationStream
from superfluid.engine.types import ChatPrompt, GenerationRequest, PreparedPrompt, TextDelta
from superfluid.errors import ConcurrencyLimited
from superfluid.settings import Settings


class Intake:
    """Admits one model's requests to its scheduler."""

    def __init__(self, prompts: PromptBuilder, scheduler: Scheduler, kv_disk: KvDiskTier | None,
                 lora: ModelAdapters, settings: Settings, *, sampling_defaults: dict[str, float],
                 model_sampling_defaults: dict[str, float], eog_tokens: tuple[int, ...]) -> None:
        self._prompts = prompts
        self._scheduler = scheduler
        self._kv_disk = kv_disk
        self._lora = lora
        self._settings = settings
        self._sampling_defaults = sampling_defaults
        self._model_sampling_defaults = model_sampling_defaults
        self._eog_tokens = eog_tokens

    def max_new_tokens(self, request: GenerationRequest, prompt_len: int) -> int:
        room = self._prompts.n_ctx - prompt_len
        wanted = request.max_tokens or self._settings.max_tokens or room
        return max(1, min(wanted, room))

    async def from_disk(self, request: GenerationRequest, prepared: PreparedPrompt) -> Found | None:
        """The longest prefix of the prompt the disk tier holds, read off the loop, when it is at least a block
        longer than what the lanes hold now; None otherwise (and always for batch-invariant requests)."""
        tier = self._kv_disk
        if tier is None or request.batch_invariant:
            return None
        adapters = self._lora.active
        found = tier.find(prepared.tokens, repr(adapters))
        if found is None or found.common < self._scheduler.cached_hint(prepared.tokens, adapters) + BLOCK:
            return None
        return await asyncio.to_thread(tier.read, found)

    def generate(self, request: GenerationRequest, prepared: PreparedPrompt | None = None, *,
                 direct: Callable[[TextDelta], None] | None = None, disk: Found | None = None,
                 whole: bool = False) -> GenerationStream:
        """Queue the request's choices on the engine thread; errors in the request raise here.

        ``direct`` takes the TextDeltas on the engine thread instead of the stream (see EventSink); ``whole``
        (without ``direct``): the reply is read whole with ``collect``, so the engine gathers its deltas instead
        of waking the loop for each (stream.Gathered). ``disk``: a prefix of the prompt read from the disk tier
        (``from_disk``), for the first choice.
        """
        prepared = prepared or self._prompts.prepare(request)
        if prepared.plan is not None and prepared.plan.grammar and len(prepared.grammars) != request.n:
            raise ValueError("a prepared prompt's grammar matchers serve one generation only")
        max_new = self.max_new_tokens(request, len(prepared.tokens))
        gathered = Gathered() if whole and direct is None else None
        sink = EventSink(asyncio.get_running_loop(), gathered.append if gathered is not None else direct)
        chat = isinstance(request.prompt, ChatPrompt)
        thinking = chat and self._prompts.template.thinks
        answer_tags = self._prompts.template.answer_tags if chat else None
        banned = self._eog_tokens if request.sampling.ignore_eos else ()
        defaults = self._model_sampling_defaults if request.batch_line else self._sampling_defaults
        plan = prepared.plan
        deadline = None
        if request.qos == "completion" and self._settings.completion_deadline_ms:
            deadline = time.monotonic() + self._settings.completion_deadline_ms / 1000
        jobs = [
            Job(
                index=i,
                prompt=prepared.tokens,
                max_new_tokens=max_new,
                sampling=resolve(request.sampling, defaults, seed_offset=i, banned=banned),
                output=TextOutput(request.stop, thinking=thinking, in_reasoning=prepared.starts_in_reasoning,
                                  markers=self._prompts.template.reasoning, answer_tags=answer_tags),
                sink=sink,
                ignore_eos=request.sampling.ignore_eos,
                grammar=prepared.grammars[i] if prepared.grammars else None,
                lazy_grammar=plan.lazy if plan else None,
                lazy_state=prepared.lazy_grammars[i] if prepared.lazy_grammars else None,
                grammar_param=grammar_param(request),
                calls=plan.call_reader() if plan else None,
                preserve=(plan.preserve if plan else frozenset())
                | (self._prompts.reasoning_tokens if thinking else frozenset()),
                logprobs=request.logprobs,
                qos=request.qos,
                deadline=deadline,
                batch_invariant=request.batch_invariant,
                adapters=self._lora.active,
                generation_prompt=prepared.generation_prompt,
            )
            for i in range(request.n)
        ]
        jobs[0].disk = disk
        for sibling in jobs[1:]:
            sibling.after = jobs[0]  # n > 1: one prefill, copied into the other lanes
        if not self._scheduler.submit(jobs, queue_limit=self._settings.queue_size):
            raise ConcurrencyLimited(
                f"model '{self._prompts.id}' has {self._scheduler.queued} requests waiting "
                f"(limit {self._settings.queue_size})",
                retry_after_s=1.0)
        stream = GenerationStream(jobs, sink, self._scheduler.cancel, len(prepared.tokens))
        stream.gathered = gathered
        return stream
