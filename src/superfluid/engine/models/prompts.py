"""A served model's prompt preparation: a request becomes the tokens, output plan and grammar matchers its
generation needs (the chat template, tokenizing, the context window's bounds, fill-in-the-middle tokens). It runs
on whichever thread prepares the request (the event loop for light ones, the preparation pool otherwise); it
queues nothing (intake.py does)."""

from __future__ import annotations

import ctypes
import dataclasses
from collections.abc import Sequence

import llama_cpp

from superfluid.engine.decoding.grammar import GrammarState, GrammarTokenizer
from superfluid.engine.decoding.output_plan import OutputPlan, plan_output
from superfluid.engine.decoding.tool_calls import format_markers
from superfluid.engine.models.chat_template import ChatTemplate, close_reasoning
from superfluid.engine.models.llama_model import LlamaModel
from superfluid.engine.types import (
    ChatMessage,
    ChatPrompt,
    FimPrompt,
    GenerationRequest,
    PreparedPrompt,
    TextPrompt,
)
from superfluid.errors import (
    ConstraintUnsatisfiable,
    ContextLengthExceeded,
    FimUnsupported,
    InvalidRequest,
)

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


class PromptBuilder:
    """Prepares requests for one loaded model: its template, vocabulary and context window."""

    def __init__(self, model_id: str, llama: LlamaModel, template: ChatTemplate, grammar: GrammarTokenizer) -> None:
        self.id = model_id
        self._llama = llama
        self.template = template
        self.grammar_tokenizer = grammar
        self.n_ctx = int(llama.n_ctx)
        # The call format's markers that this vocabulary holds as control tokens (Mistral's [TOOL_CALLS]).
        markers = ((text, llama.control_token(text)) for text in format_markers(template.call_format))
        self.control_markers = {text: token for text, token in markers if token is not None}
        # The reasoning block's markers where the vocabulary holds them as control tokens (Command R7B's
        # <|START_THINKING|>): written out, so the reasoning split sees them.
        reasoning = ((text, llama.control_token(text)) for text in template.reasoning)
        self.reasoning_tokens = frozenset(token for _, token in reasoning if token is not None)
        self.longest_token = self._longest_token()
        """Bytes in the longest token's text (special tokens included): the early bound's divisor."""
        self._generation_prompts: dict[str, int] = {}
        """Tokens of the template's generation prompt, by template arguments (recurrent models only)."""

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
