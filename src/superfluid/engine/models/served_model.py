"""A loaded model as the HTTP layer sees it: capabilities, prompt preparation and generation."""

from __future__ import annotations

import asyncio
import ctypes
import logging
import time
from collections.abc import Callable

from superfluid.engine.decoding.grammar import GrammarState, GrammarTokenizer
from superfluid.engine.decoding.output_plan import plan_output
from superfluid.engine.decoding.sampling import resolve
from superfluid.engine.decoding.text_output import TextOutput
from superfluid.engine.decoding.tool_calls import FORMAT_MARKERS, tool_format
from superfluid.engine.models.llama_model import LlamaModel
from superfluid.engine.models.model_sources import ModelSource
from superfluid.engine.models.profile import ModelProfile
from superfluid.engine.scheduling.job import EventSink, Job
from superfluid.engine.scheduling.scheduler import Scheduler
from superfluid.engine.scheduling.stream import GenerationStream
from superfluid.engine.types import (
    ChatPrompt,
    FimPrompt,
    GenerationRequest,
    PreparedPrompt,
    TextDelta,
    TextPrompt,
)
from superfluid.errors import (
    ConstraintUnsatisfiable,
    ContextLengthExceeded,
    FimUnsupported,
    InvalidRequest,
    RateLimited,
)
from superfluid.settings import Settings

log = logging.getLogger(__name__)

class ServedModel:
    def __init__(self, profile: ModelProfile, llama: LlamaModel, settings: Settings) -> None:
        self.profile = profile
        self.id = profile.id
        self.llama = llama
        self.settings = settings
        self.template = profile.template
        self.sampling_defaults = profile.sampling_defaults
        self.grammar_tokenizer = GrammarTokenizer(llama.vocab, llama.meta.n_vocab, llama.eog_tokens)
        # The call format's markers that this vocabulary holds as control tokens (Mistral's [TOOL_CALLS]).
        fmt = tool_format(self.template.source, self.template.supports_tools)
        markers = ((text, llama.control_token(text)) for text in FORMAT_MARKERS[fmt])
        self.control_markers = {text: token for text, token in markers if token is not None}
        self.scheduler = Scheduler(llama, name=profile.id, grammar=self.grammar_tokenizer,
                                   spec_draft=settings.spec_draft)

    @classmethod
    def load(cls, model_id: str, source: ModelSource, settings: Settings) -> ServedModel:
        path = source.locate()
        log.info("loading %s from %s", model_id, path)
        llama = LlamaModel(path, n_ctx=settings.ctx_size, n_seq_max=settings.parallel, kv_size=settings.kv_size,
                           n_batch=settings.batch_size, n_threads=settings.threads,
                           overrides=settings.override_kv)
        try:
            profile = ModelProfile.build(model_id, source.origin, path, llama.meta, settings, n_ctx=llama.n_ctx)
        except Exception:
            llama.close()
            raise
        return cls(profile, llama, settings)

    def close(self) -> None:
        self.scheduler.close()

    @property
    def n_ctx(self) -> int:
        return int(self.llama.n_ctx)

    # ---- requests ---------------------------------------------------------------------------------
    def tokenize(self, text: str, *, add_special: bool = False) -> list[int]:
        return self.llama.tokenize(text, add_special=add_special, parse_special=True)

    def pieces(self, tokens: list[int]) -> list[str]:
        """Each token's text as the model writes it (special tokens included)."""
        buf = ctypes.create_string_buffer(256)
        return [self.llama.piece(t, buf, special=True).decode("utf-8", errors="replace") for t in tokens]

    def prepare(self, request: GenerationRequest, *, check_window: bool = True) -> PreparedPrompt:
        """Render and tokenize; a prompt that leaves no room in the context window is a 400 unless
        ``check_window`` is off (a request that only counts the prompt's tokens)."""
        prompt = request.prompt
        if isinstance(prompt, ChatPrompt):
            plan = plan_output(prompt.messages, self.template, tools=request.tools, constraint=request.constraint,
                               control=self.control_markers)
            rendered = self.template.render(
                plan.messages,
                tools=plan.template_tools,
                add_generation_prompt=prompt.add_generation_prompt,
                kwargs=prompt.template_kwargs,
            )
            text = rendered.text
            if prompt.prefill:
                self._check_prefill(request, opened=rendered.starts_in_reasoning)
                text += prompt.prefill
            tokens = self.llama.tokenize(text, add_special=False, parse_special=True)
            bos = self._bos()
            if bos is not None and (not tokens or tokens[0] != bos):
                tokens.insert(0, bos)
            prepared = PreparedPrompt(tuple(tokens), starts_in_reasoning=rendered.starts_in_reasoning, plan=plan)
        else:
            plan = plan_output((), self.template, tools=None, constraint=request.constraint)
            if isinstance(prompt, FimPrompt):
                tokens = self._fim_tokens(prompt)
            else:
                assert isinstance(prompt, TextPrompt)
                tokens = self.llama.tokenize(prompt.text, add_special=True, parse_special=False)
            prepared = PreparedPrompt(tuple(tokens), plan=plan)
        if not prepared.tokens:
            raise InvalidRequest("the prompt is empty", param="prompt")
        if check_window and len(prepared.tokens) >= self.n_ctx:
            raise ContextLengthExceeded(
                f"the prompt is {len(prepared.tokens)} tokens; this model's context window is {self.n_ctx} "
                "tokens, and at least one must be left for the reply",
                param="messages" if isinstance(prompt, ChatPrompt) else "prompt",
            )
        return prepared

    def _check_prefill(self, request: GenerationRequest, *, opened: bool) -> None:
        """A prefilled turn continues as text: not inside a reasoning block the template opened, and not under a
        tool-call or output grammar, which would have to match from the turn's first character."""
        if opened:
            raise InvalidRequest("a reply that continues an assistant turn cannot start inside the template's "
                                 "reasoning block; turn thinking off", param="messages")
        if (request.tools is not None and request.tools.active) or request.constraint is not None:
            raise InvalidRequest("a reply that continues an assistant turn cannot be constrained by tools or an "
                                 "output format", param="messages")

    def _bos(self) -> int | None:
        return self.llama.bos_token if self.llama.meta.add_bos else None

    def require_fim(self) -> None:
        if self.llama.meta.fim is None:
            raise FimUnsupported(f"model '{self.id}' has no fill-in-the-middle tokens", param="suffix")

    def _fim_tokens(self, prompt: FimPrompt) -> list[int]:
        self.require_fim()
        fim = self.llama.meta.fim
        assert fim is not None
        prefix = self.llama.tokenize(prompt.prefix, add_special=False, parse_special=False)
        suffix = self.llama.tokenize(prompt.suffix, add_special=False, parse_special=False)
        if prompt.mode == "spm":
            body = [fim.suffix, *suffix, fim.prefix, *prefix, fim.middle]
        else:
            body = [fim.prefix, *prefix, fim.suffix, *suffix, fim.middle]
        bos = self._bos()
        return ([bos] if bos is not None else []) + body

    def _grammar_state(self, grammar: str) -> GrammarState:
        state = self.grammar_tokenizer.state(grammar)
        if state.error:
            raise ConstraintUnsatisfiable(state.error)
        return state

    def max_new_tokens(self, request: GenerationRequest, prompt_len: int) -> int:
        room = self.n_ctx - prompt_len
        wanted = request.max_tokens or self.settings.max_tokens or room
        return max(1, min(wanted, room))

    def generate(self, request: GenerationRequest, prepared: PreparedPrompt | None = None, *,
                 direct: Callable[[TextDelta], None] | None = None) -> GenerationStream:
        """Queue the request's choices on the engine thread; errors in the request raise here.

        ``direct`` takes the TextDeltas on the engine thread instead of the stream (see EventSink).
        """
        prepared = prepared or self.prepare(request)
        max_new = self.max_new_tokens(request, len(prepared.tokens))
        sink = EventSink(asyncio.get_running_loop(), direct)
        thinking = isinstance(request.prompt, ChatPrompt) and self.template.thinks
        banned = self.llama.eog_tokens if request.sampling.ignore_eos else ()
        plan = prepared.plan
        deadline = None
        if request.qos == "completion" and self.settings.completion_deadline_ms:
            deadline = time.monotonic() + self.settings.completion_deadline_ms / 1000
        jobs = [
            Job(
                index=i,
                prompt=prepared.tokens,
                max_new_tokens=max_new,
                sampling=resolve(request.sampling, self.sampling_defaults, seed_offset=i, banned=banned),
                output=TextOutput(request.stop, thinking=thinking, in_reasoning=prepared.starts_in_reasoning),
                sink=sink,
                ignore_eos=request.sampling.ignore_eos,
                grammar=self._grammar_state(plan.grammar) if plan and plan.grammar else None,
                lazy_grammar=plan.lazy if plan else None,
                calls=plan.call_reader() if plan else None,
                preserve=plan.preserve if plan else frozenset(),
                logprobs=request.logprobs,
                qos=request.qos,
                deadline=deadline,
                batch_invariant=request.batch_invariant,
            )
            for i in range(request.n)
        ]
        for sibling in jobs[1:]:
            sibling.after = jobs[0]  # n > 1: one prefill, copied into the other lanes
        if not self.scheduler.submit(jobs, queue_limit=self.settings.queue_size):
            raise RateLimited(
                f"model '{self.id}' has {self.scheduler.queued} requests waiting (limit {self.settings.queue_size})",
                retry_after_s=1.0, code="concurrency_limit_exceeded")
        return GenerationStream(jobs, sink, self.scheduler.cancel, len(prepared.tokens))
