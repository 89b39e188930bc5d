"""A loaded model as the HTTP layer sees it: capabilities, prompt preparation and generation."""

from __future__ import annotations

import asyncio
import ctypes
import dataclasses
import logging
import time
from collections.abc import Callable, Sequence
from typing import Any

import llama_cpp

from superfluid.engine.decoding.grammar import GrammarState, GrammarTokenizer
from superfluid.engine.decoding.output_plan import OutputPlan, plan_output
from superfluid.engine.decoding.sampling import resolve
from superfluid.engine.decoding.text_output import TextOutput
from superfluid.engine.decoding.tool_calls import format_markers
from superfluid.engine.models.adapter_types import AdapterSet
from superfluid.engine.models.chat_template import close_reasoning
from superfluid.engine.models.llama_model import LlamaModel
from superfluid.engine.models.lora import AdapterCatalog, ModelAdapters
from superfluid.engine.models.model_sources import ModelSource
from superfluid.engine.models.offload import DeviceBook, Placement
from superfluid.engine.models.profile import ModelProfile
from superfluid.engine.scheduling.checkpoints import CheckpointPolicy
from superfluid.engine.scheduling.job import EventSink, Job
from superfluid.engine.scheduling.kv_disk import BLOCK, Found
from superfluid.engine.scheduling.kv_disk import open_tier as open_disk_tier
from superfluid.engine.scheduling.scheduler import Scheduler
from superfluid.engine.scheduling.stats import EngineStats
from superfluid.engine.scheduling.stream import Gathered, GenerationStream
from superfluid.engine.types import (
    ChatMessage,
    ChatPrompt,
    FimPrompt,
    GenerationRequest,
    PreparedPrompt,
    TextDelta,
    TextPrompt,
)
from superfluid.errors import (
    ConcurrencyLimited,
    ConstraintUnsatisfiable,
    ContextLengthExceeded,
    FimUnsupported,
    InvalidRequest,
)
from superfluid.settings import Settings

log = logging.getLogger(__name__)

LIGHT_PROMPT_CHARS = 4096
"""Prompts up to this many characters (and without a grammar) are prepared on the event loop: tokenizing costs
about 0.4 ms per KB, and the hop to a worker thread and back about 0.1 ms (docs/limits.md)."""
LIGHT_MESSAGES = 64
LENGTH_PRESERVING_VOCABS = (llama_cpp.LLAMA_VOCAB_TYPE_SPM, llama_cpp.LLAMA_VOCAB_TYPE_BPE)
"""Tokenizers whose tokens spell the input back exactly, so that a prompt of C characters needs at least
C / (longest token) tokens; others (WordPiece drops whitespace, Unigram normalizes) get no early bound."""
EARLY_BOUND_MARGIN = 2
"""The early refusal waits until a prompt is twice as long as the bound says it can be (a margin for the
leading space some tokenizers add, and for whatever the reasoning above misses)."""
RENDERED_AS_IS = ("user", "tool")
"""Roles whose content every chat template writes into the prompt, at most trimmed of whitespace at its ends
(templates may drop or rewrite earlier assistant turns, and fold or drop system messages)."""
UNICODE_SPACE = ("\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
                 "\u2009\u200a\u2028\u2029\u202f\u205f\u3000")
"""Every character ``str.isspace`` (and so Jinja's ``trim``) takes for whitespace."""
_ASCII_SPACE = tuple(c for c in UNICODE_SPACE if c.isascii())


COUNT_SLICE = 1 << 18
"""Characters per ``str.count`` call in ``least_rendered_chars``. One call holds the GIL to its end: over a 10 MB
message each of the six whitespace counts took 10-14 ms, and the engine thread waited that long for its next
step (docs/performance.md, "Hostile traffic beside normal traffic"); a slice takes well under a millisecond."""


def least_rendered_chars(text: str, enough: int | None = None) -> int:
    """Characters of ``text`` that survive any trimming of whitespace: its length less every whitespace
    character in it, counted without copying the text and a slice at a time, so a huge message holds the GIL
    only in short steps. With ``enough``, counting stops once that many are found (the result is then at least
    ``enough``, not the whole count)."""
    spaces = _ASCII_SPACE if text.isascii() else UNICODE_SPACE
    total = 0
    for start in range(0, len(text), COUNT_SLICE):
        end = min(len(text), start + COUNT_SLICE)
        total += end - start - sum(text.count(c, start, end) for c in spaces)
        if enough is not None and total >= enough:
            break
    return total


def grammar_param(request: GenerationRequest) -> str:
    """The request parameter an output grammar comes from: its constraint's, else the tools' (the only other
    source of a grammar); named when the grammar cannot be built or gives up mid-reply."""
    return request.constraint.param if request.constraint is not None else "tools"


def is_light(request: GenerationRequest) -> bool:
    """Whether preparing ``request`` is cheap enough to do on the event loop: a short prompt, few messages, no
    grammar to compile or matcher to build, no earlier tool calls to render."""
    if request.constraint is not None or (request.tools is not None and request.tools.active):
        return False
    prompt = request.prompt
    if isinstance(prompt, ChatPrompt):
        if len(prompt.messages) > LIGHT_MESSAGES:
            return False
        total = 0
        for message in prompt.messages:
            if message.tool_calls:
                return False
            total += len(message.content)
            if total > LIGHT_PROMPT_CHARS:
                return False
        return True
    if isinstance(prompt, FimPrompt):
        return len(prompt.prefix) + len(prompt.suffix) <= LIGHT_PROMPT_CHARS
    return len(prompt.text) <= LIGHT_PROMPT_CHARS


class ServedModel:
    def __init__(self, profile: ModelProfile, llama: LlamaModel, settings: Settings,
                 stats: EngineStats | None = None) -> None:
        self.profile = profile
        self.id = profile.id
        self._llama = llama
        self.settings = settings
        self.template = profile.template
        self.sampling_defaults = profile.sampling_defaults
        self.model_sampling_defaults = profile.model_sampling_defaults
        self.grammar_tokenizer = GrammarTokenizer(llama.vocab, llama.meta.n_vocab, llama.eog_tokens)
        # The call format's markers that this vocabulary holds as control tokens (Mistral's [TOOL_CALLS]).
        fmt = self.template.call_format
        markers = ((text, llama.control_token(text)) for text in format_markers(fmt))
        self.control_markers = {text: token for text, token in markers if token is not None}
        # The reasoning block's markers where the vocabulary holds them as control tokens (Command R7B's
        # <|START_THINKING|>): written out, so the reasoning split sees them.
        reasoning = ((text, llama.control_token(text)) for text in self.template.reasoning)
        self.reasoning_tokens = frozenset(token for _, token in reasoning if token is not None)
        self._kv_disk = open_disk_tier(llama, settings, profile.id)
        self._scheduler = Scheduler(llama, name=profile.id, grammar=self.grammar_tokenizer,
                                   spec_draft=settings.spec_draft, stats=stats,
                                   gather_s=settings.gather_ms / 1000, kv_disk=self._kv_disk,
                                   adapt_threads=settings.threads == 0,
                                   checkpoints=CheckpointPolicy(settings.ctx_checkpoints, settings.checkpoint_min_step))
        self._generation_prompts: dict[str, int] = {}
        """Tokens of the template's generation prompt, by template arguments (recurrent models only)."""
        if not llama.rollback:
            log.info("%s: %s memory (recurrent state): a lane resumes at its end or at a checkpoint (at most %d per "
                     "lane); prompt-lookup drafting is off%s", profile.id, llama.memory_kind,
                     settings.ctx_checkpoints, " (--spec-draft is ignored)" if settings.spec_draft else "")
        self.longest_token = self._longest_token()
        """Bytes in the longest token's text (special tokens included): the early bound's divisor."""
        self._lora = ModelAdapters(profile.id, llama.path, AdapterCatalog(settings), self._scheduler)

    @classmethod
    def load(cls, model_id: str, source: ModelSource, settings: Settings,
             stats: EngineStats | None = None, book: DeviceBook | None = None) -> ServedModel:
        """Load the model, its layers placed by ``settings.offload`` (``book``: what other models hold on the
        devices)."""
        path = source.locate()
        log.info("loading %s from %s", model_id, path)
        llama = LlamaModel(path, n_ctx=settings.ctx_size, n_seq_max=settings.parallel, kv_size=settings.kv_size,
                           kv_unified=settings.kv_unified, n_batch=settings.batch_size, n_threads=settings.threads,
                           overrides=settings.override_kv, flash_attn=settings.flash_attn,
                           offload=settings.offload, book=book)
        try:
            profile = ModelProfile.build(model_id, source.origin, path, llama.meta, settings, n_ctx=llama.n_ctx)
        except Exception:
            llama.close()
            raise
        return cls(profile, llama, settings, stats)

    def close(self) -> None:
        self._scheduler.close()

    # ---- LoRA adapters (docs/lora.md) -------------------------------------------------------------------------
    @property
    def adapters(self) -> AdapterSet:
        """The adapters new requests take."""
        return self._lora.active

    async def load_adapter(self, name: str, scale: float, *, apply: bool = True) -> AdapterSet:
        """Check an adapter file, load it on the engine thread and (with ``apply``) make it active."""
        return await self._lora.load(name, scale, apply=apply)

    def unload_adapter(self, name: str | None) -> AdapterSet:
        """Take one adapter off (``name``), or all of them (None)."""
        return self._lora.unload(name)

    @property
    def idle(self) -> bool:
        """No request waiting for a lane and none decoding."""
        return self._scheduler.idle

    @property
    def drafting(self) -> bool:
        """Prompt-lookup drafting is on (--spec-draft, and a memory that can drop rejected drafts)."""
        return self._scheduler.spec_draft > 0

    @property
    def placement(self) -> Placement:
        """Where llama.cpp put the model's layers and buffers."""
        return self._llama.placement

    def memory_view(self) -> dict[str, Any]:
        """What /props and /slots say of the model's sequence memory: its kind, whether a lane can be cut back to
        any token, and (for recurrent state) the checkpoint settings."""
        view: dict[str, Any] = {"kind": self._llama.memory_kind, "rollback": self._llama.rollback}
        if not self._llama.rollback:
            policy = self._scheduler.checkpoints
            view["checkpoints"] = {"max_per_lane": policy.max_per_lane, "min_step": policy.min_step}
        return view

    @property
    def n_ctx(self) -> int:
        return int(self._llama.n_ctx)

    @property
    def n_vocab(self) -> int:
        """Tokens in the vocabulary: the range a logit bias may name."""
        return int(self._llama.meta.n_vocab)

    def kv_snapshot(self) -> dict[str, int]:
        """The KV pool as /props reports it (cells in use, cached prefixes)."""
        return self._scheduler.snapshot()

    def slot_view(self) -> dict[str, Any]:
        """The lanes, the pool, the queue and the tick plan as /slots reports them."""
        return self._scheduler.slot_view()

    @property
    def kv_pool_cells(self) -> int:
        """Cells in the KV pool, all lanes together."""
        return int(self._llama.kv_size)

    def queued_by_qos(self) -> dict[str, int]:
        """Choices waiting for a lane, by QoS class (/metrics)."""
        return dict(self._scheduler.queued_by_qos)

    # ---- requests ---------------------------------------------------------------------------------
    def tokenize(self, text: str, *, add_special: bool = False) -> list[int]:
        return self._llama.tokenize(text, add_special=add_special, parse_special=True)

    def pieces(self, tokens: list[int]) -> list[str]:
        """Each token's text as the model writes it (special tokens included)."""
        buf = ctypes.create_string_buffer(256)
        return [self._llama.piece(t, buf, special=True).decode("utf-8", errors="replace") for t in tokens]

    def _longest_token(self) -> int:
        buf = ctypes.create_string_buffer(256)
        return max((len(self._llama.piece(t, buf, special=True)) for t in range(self._llama.meta.n_vocab)), default=1)

    def _overlong_chars(self, check_window: bool) -> int | None:
        """How many characters prove a prompt too long for the window before tokenizing, whatever its tokens
        turn out to be; None when no length proves it (a count of tokens, or a vocabulary that drops text)."""
        if not check_window or llama_cpp.llama_vocab_type(self._llama.vocab) not in LENGTH_PRESERVING_VOCABS:
            return None
        return self.n_ctx * self.longest_token * EARLY_BOUND_MARGIN

    def _refuse_overlong(self, chars: int, param: str, check_window: bool) -> None:
        """Refuse, before tokenizing, a prompt of ``chars`` characters too long for the window whatever its
        tokens turn out to be."""
        limit = self._overlong_chars(check_window)
        if limit is None:
            return
        least = chars // (self.longest_token * EARLY_BOUND_MARGIN)
        if chars >= limit:
            raise ContextLengthExceeded(
                f"the prompt is at least {chars:,} characters: {least:,} tokens or more for this model's vocabulary "
                f"(its longest token is {self.longest_token} bytes), and its context window is {self.n_ctx} tokens",
                param=param)

    def prepare(self, request: GenerationRequest, *, check_window: bool = True) -> PreparedPrompt:
        """Template, tokenize and compile what the request needs (call off the loop unless it ``is_light``). A
        prompt that leaves no room in the context window is a 400 unless ``check_window`` is off (a request
        that only counts the prompt's tokens)."""
        prepared = self._prompt(request, check_window)
        plan = prepared.plan
        if plan is None or not check_window:  # a count of tokens decodes nothing
            return prepared
        if plan.pending is not None:  # the prompt fits: now the grammar is worth writing out
            plan = plan.compiled()
            prepared = dataclasses.replace(prepared, plan=plan)
        param = grammar_param(request)
        if plan.grammar:
            return dataclasses.replace(prepared, grammars=self._grammar_states(plan.grammar, request.n, param))
        if plan.lazy is not None:
            return dataclasses.replace(prepared,
                                       lazy_grammars=self._grammar_states(plan.lazy.grammar, request.n, param))
        return prepared

    def _grammar_states(self, grammar: str, n: int, param: str) -> tuple[GrammarState, ...]:
        first = self._grammar_state(grammar, param)
        return (first, *(first.copy() for _ in range(n - 1)))

    def _least_message_chars(self, messages: Sequence[ChatMessage], check_window: bool) -> int:
        """Characters of the messages every template writes whole (``RENDERED_AS_IS``), less whitespace; counting
        stops once they prove the prompt too long (``_overlong_chars``)."""
        limit = self._overlong_chars(check_window)
        if limit is None:
            return 0
        chars = 0
        for message in messages:
            if message.role in RENDERED_AS_IS and len(message.content) > LIGHT_PROMPT_CHARS:
                chars += least_rendered_chars(message.content, enough=limit - chars)
                if chars >= limit:
                    break
        return chars

    def chat_text(self, request: GenerationRequest) -> tuple[str, bool, OutputPlan]:
        """A chat request's prompt as text (before any prefill), whether the reply starts inside the reasoning
        block, and the plan of its output (its grammar still ``pending``: ``prepare`` compiles it once the prompt
        fits the window)."""
        prompt = request.prompt
        assert isinstance(prompt, ChatPrompt)
        plan = plan_output(prompt.messages, self.template, tools=request.tools, constraint=request.constraint,
                           control=self.control_markers, thinking=self.template.thinking_on(prompt.template_kwargs),
                           defer=True)
        rendered = self.template.render(plan.messages, tools=plan.template_tools,
                                        add_generation_prompt=prompt.add_generation_prompt,
                                        kwargs=prompt.template_kwargs)
        text, opened = rendered.text, rendered.starts_in_reasoning
        if opened and plan.whole_reply_grammar:
            # The whole reply is constrained (a forced call, an output format) and must be the answer, not
            # reasoning: close the block the template opened, as its thinking-off form does.
            text += close_reasoning(text, self.template.reasoning[1])
            opened = False
        return text, opened, plan

    def _prompt(self, request: GenerationRequest, check_window: bool) -> PreparedPrompt:
        prompt = request.prompt
        if isinstance(prompt, ChatPrompt):
            # Refuse before templating what no template can shorten enough (rendering copies the text several
            # times, each copy holding the GIL); the rendered text is bounded again below.
            self._refuse_overlong(self._least_message_chars(prompt.messages, check_window), "messages",
                                  check_window)
            text, opened, plan = self.chat_text(request)
            if prompt.prefill:
                self._check_prefill(request, opened=opened)
                text += prompt.prefill
            self._refuse_overlong(len(text), "messages", check_window)
            tokens = self._llama.tokenize(text, add_special=False, parse_special=True,
                                         stop_after=self.n_ctx if check_window else None)
            bos = self._bos()
            if bos is not None and (not tokens or tokens[0] != bos):
                tokens.insert(0, bos)
            prepared = PreparedPrompt(tuple(tokens), starts_in_reasoning=opened, plan=plan,
                                      generation_prompt=self._generation_prompt(prompt))
        else:
            plan = plan_output((), self.template, tools=None, constraint=request.constraint)
            if isinstance(prompt, FimPrompt):
                self._refuse_overlong(len(prompt.prefix) + len(prompt.suffix), "prompt", check_window)
                tokens = self._fim_tokens(prompt)
            else:
                assert isinstance(prompt, TextPrompt)
                self._refuse_overlong(len(prompt.text), "prompt", check_window)
                tokens = self._llama.tokenize(prompt.text, add_special=True, parse_special=False)
            prepared = PreparedPrompt(tuple(tokens), plan=plan)
        if not prepared.tokens:
            raise InvalidRequest("the prompt is empty", param="prompt")
        if check_window and len(prepared.tokens) >= self.n_ctx:
            counted = len(prepared.tokens)  # past the window, counting may have stopped early
            raise ContextLengthExceeded(
                f"the prompt is {counted}{' or more' if counted > self.n_ctx else ''} tokens; this model's "
                f"context window is {self.n_ctx} "
                "tokens, and at least one must be left for the reply",
                param="messages" if isinstance(prompt, ChatPrompt) else "prompt",
            )
        return prepared

    def _generation_prompt(self, prompt: ChatPrompt) -> int:
        """Tokens the template's generation prompt adds at the end of a chat prompt, for a model with recurrent
        state (its lanes save a checkpoint before them); 0 for other models, or when the template shows none.
        Worked out once per set of template arguments, on a one-message conversation."""
        if self._llama.rollback or not prompt.add_generation_prompt or prompt.prefill:
            return 0
        key = repr(sorted(prompt.template_kwargs.items()))
        count = self._generation_prompts.get(key)
        if count is None:
            probe = [{"role": "user", "content": "Hello."}]
            try:
                opened = self.template.render(probe, add_generation_prompt=True, kwargs=prompt.template_kwargs).text
                closed = self.template.render(probe, add_generation_prompt=False, kwargs=prompt.template_kwargs).text
            except InvalidRequest:
                opened = closed = ""
            with_prompt, without = self.tokenize(opened), self.tokenize(closed)
            shared = 0
            while shared < min(len(with_prompt), len(without)) and with_prompt[shared] == without[shared]:
                shared += 1
            count = len(with_prompt) - shared  # the tokens after where the two renders part, as in context
            self._generation_prompts[key] = count
        return count

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
        return self._llama.bos_token if self._llama.meta.add_bos else None

    def require_fim(self, *, asked: str | None = None) -> None:
        """FimUnsupported unless this model has FIM tokens; ``asked``: the model the request named, which sent it
        here as its --fim-model."""
        if self._llama.meta.fim is not None:
            return
        if asked is None:
            raise FimUnsupported(f"model '{self.id}' has no fill-in-the-middle tokens", param="suffix")
        raise FimUnsupported(f"model '{asked}' has no fill-in-the-middle tokens, and neither has its --fim-model "
                             f"'{self.id}'", param="suffix")

    def _fim_tokens(self, prompt: FimPrompt) -> list[int]:
        self.require_fim()
        fim = self._llama.meta.fim
        assert fim is not None
        prefix = self._llama.tokenize(prompt.prefix, add_special=False, parse_special=False)
        suffix = self._llama.tokenize(prompt.suffix, add_special=False, parse_special=False)
        if prompt.mode == "spm":
            body = [fim.suffix, *suffix, fim.prefix, *prefix, fim.middle]
        else:
            body = [fim.prefix, *prefix, fim.suffix, *suffix, fim.middle]
        bos = self._bos()
        return ([bos] if bos is not None else []) + body

    def _grammar_state(self, grammar: str, param: str) -> GrammarState:
        state = self.grammar_tokenizer.state(grammar, yield_cpu=True)  # on a preparation thread: it may wait
        if state.reason is not None:
            raise ConstraintUnsatisfiable(state.reason, param=param)
        return state

    def max_new_tokens(self, request: GenerationRequest, prompt_len: int) -> int:
        room = self.n_ctx - prompt_len
        wanted = request.max_tokens or self.settings.max_tokens or room
        return max(1, min(wanted, room))

    def disk_view(self) -> dict[str, Any] | None:
        """The disk tier's figures (as /slots shows them), or None without one."""
        return self._scheduler.disk_view()

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
        prepared = prepared or self.prepare(request)
        if prepared.plan is not None and prepared.plan.grammar and len(prepared.grammars) != request.n:
            raise ValueError("a prepared prompt's grammar matchers serve one generation only")
        max_new = self.max_new_tokens(request, len(prepared.tokens))
        gathered = Gathered() if whole and direct is None else None
        sink = EventSink(asyncio.get_running_loop(), gathered.append if gathered is not None else direct)
        chat = isinstance(request.prompt, ChatPrompt)
        thinking = chat and self.template.thinks
        answer_tags = self.template.answer_tags if chat else None
        banned = self._llama.eog_tokens if request.sampling.ignore_eos else ()
        defaults = self.model_sampling_defaults if request.batch_line else self.sampling_defaults
        plan = prepared.plan
        deadline = None
        if request.qos == "completion" and self.settings.completion_deadline_ms:
            deadline = time.monotonic() + self.settings.completion_deadline_ms / 1000
        jobs = [
            Job(
                index=i,
                prompt=prepared.tokens,
                max_new_tokens=max_new,
                sampling=resolve(request.sampling, defaults, seed_offset=i, banned=banned),
                output=TextOutput(request.stop, thinking=thinking, in_reasoning=prepared.starts_in_reasoning,
                                  markers=self.template.reasoning, answer_tags=answer_tags),
                sink=sink,
                ignore_eos=request.sampling.ignore_eos,
                grammar=prepared.grammars[i] if prepared.grammars else None,
                lazy_grammar=plan.lazy if plan else None,
                lazy_state=prepared.lazy_grammars[i] if prepared.lazy_grammars else None,
                grammar_param=grammar_param(request),
                calls=plan.call_reader() if plan else None,
                preserve=(plan.preserve if plan else frozenset())
                | (self.reasoning_tokens if thinking else frozenset()),
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
        if not self._scheduler.submit(jobs, queue_limit=self.settings.queue_size):
            raise ConcurrencyLimited(
                f"model '{self.id}' has {self._scheduler.queued} requests waiting (limit {self.settings.queue_size})",
                retry_after_s=1.0)
        stream = GenerationStream(jobs, sink, self._scheduler.cancel, len(prepared.tokens))
        stream.gathered = gathered
        return stream
