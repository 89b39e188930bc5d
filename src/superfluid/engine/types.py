"""The engine's request and event types: every HTTP dialect is translated into and out of these."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from superfluid.engine.decoding.grammar import Constraint, GrammarState
    from superfluid.engine.decoding.output_plan import OutputPlan
    from superfluid.engine.decoding.tool_calls import ToolCallDelta, ToolPolicy

FinishReason = Literal["stop", "length", "tool_calls", "cancelled", "error"]


@dataclass(frozen=True)
class SamplingParams:
    """Per-request sampling. ``None`` means "the model's default"."""

    temperature: float | None = None
    top_p: float | None = None
    top_k: int | None = None
    min_p: float | None = None
    seed: int | None = None
    """None (or 0 on the OpenAI wire) draws a fresh seed per request."""
    presence_penalty: float = 0.0
    frequency_penalty: float = 0.0
    repeat_penalty: float = 1.0
    repeat_last_n: int = 64
    logit_bias: dict[int, float] = field(default_factory=dict)
    ignore_eos: bool = False


@dataclass(frozen=True)
class PastCall:
    """A tool call an earlier assistant turn of the conversation made, as the client sends it back."""

    name: str | None
    arguments: Any = None
    """JSON text (OpenAI's wire) or an object (Ollama's, Anthropic's ``input``)."""
    id: str | None = None

    @classmethod
    def from_template_dict(cls, call: dict[str, Any]) -> PastCall:
        """The inverse of ``as_template_dict`` (also OpenAI's wire shape of a call)."""
        function = call.get("function") or {}
        return cls(function.get("name"), function.get("arguments"), call.get("id"))

    def as_template_dict(self) -> dict[str, Any]:
        """The shape chat templates read (Hugging Face's convention)."""
        out: dict[str, Any] = {"type": "function", "function": {"name": self.name, "arguments": self.arguments}}
        if self.id is not None:
            out["id"] = self.id
        return out


@dataclass(frozen=True)
class ChatMessage:
    role: str
    content: str
    name: str | None = None
    """The name a tool result answers for, or a participant's name."""
    tool_call_id: str | None = None
    """The call a tool result answers."""
    tool_calls: tuple[PastCall, ...] = ()
    reasoning_content: str | None = None
    """The reasoning an earlier assistant turn wrote before its answer."""

    @classmethod
    def from_template_dict(cls, message: dict[str, Any]) -> ChatMessage:
        """The inverse of ``as_template_dict``: a message in the shape chat templates read."""
        calls = tuple(PastCall.from_template_dict(c) for c in message.get("tool_calls") or ())
        return cls(role=message["role"], content=message.get("content") or "", name=message.get("name"),
                   tool_call_id=message.get("tool_call_id"), tool_calls=calls,
                   reasoning_content=message.get("reasoning_content"))

    @property
    def plain(self) -> bool:
        """Only a role and text: no name, calls, result id or reasoning."""
        return (self.name is None and self.tool_call_id is None and not self.tool_calls
                and self.reasoning_content is None)

    def as_template_dict(self) -> dict[str, Any]:
        """The message as chat templates read it: the keys that are set, then role and content."""
        out: dict[str, Any] = {}
        if self.name is not None:
            out["name"] = self.name
        if self.tool_call_id is not None:
            out["tool_call_id"] = self.tool_call_id
        if self.tool_calls:
            out["tool_calls"] = [call.as_template_dict() for call in self.tool_calls]
        if self.reasoning_content is not None:
            out["reasoning_content"] = self.reasoning_content
        return {**out, "role": self.role, "content": self.content}


@dataclass(frozen=True)
class ChatPrompt:
    messages: tuple[ChatMessage, ...]
    template_kwargs: dict[str, Any] = field(default_factory=dict)
    add_generation_prompt: bool = True
    prefill: str = ""
    """Text the assistant's turn already starts with (Anthropic's trailing assistant message): written after the
    generation prompt, and the reply continues it."""


@dataclass(frozen=True)
class TextPrompt:
    text: str


@dataclass(frozen=True)
class FimPrompt:
    prefix: str
    suffix: str
    mode: Literal["psm", "spm"] = "psm"


Prompt = ChatPrompt | TextPrompt | FimPrompt


@dataclass(frozen=True)
class GenerationRequest:
    model: str
    prompt: Prompt
    sampling: SamplingParams = field(default_factory=SamplingParams)
    max_tokens: int | None = None
    """None: the server's --max-tokens, else fill the context."""
    stop: tuple[str, ...] = ()
    n: int = 1
    qos: str = "interactive"
    batch_invariant: bool = False
    constraint: Constraint | None = None
    """The reply must match this grammar (response_format, Ollama's format)."""
    tools: ToolPolicy | None = None
    logprobs: int | None = None
    """None: off; k >= 0: the chosen token's log probability plus the k most likely alternatives."""
    batch_line: bool = False
    """A line of a /v1/batches batch: sampling fields it leaves out take the model's defaults, not the
    operator's (--temp ...)."""


@dataclass(frozen=True)
class PreparedPrompt:
    """A prompt after templating and tokenization, ready for a lane."""

    tokens: tuple[int, ...]
    starts_in_reasoning: bool = False
    plan: OutputPlan | None = None
    grammars: tuple[GrammarState, ...] = ()
    """One matcher per choice when the plan has a grammar, built with the prompt (building one can take as long
    as compiling the grammar); each is used by one generation only."""
    lazy_grammars: tuple[GrammarState, ...] = ()
    """The same for a lazy grammar (a tool call's), ready for when the reply writes its trigger: built here, on
    a preparation thread, rather than on the engine thread while every lane waits (18 ms for 128 tools)."""
    generation_prompt: int = 0
    """Tokens of the chat template's generation prompt at the end of ``tokens`` (0: none or not counted); a
    recurrent model's lane saves a checkpoint before them (engine/scheduling/checkpoints.py)."""


@dataclass(frozen=True)
class Usage:
    prompt_tokens: int
    completion_tokens: int
    cached_tokens: int
    reasoning_tokens: int = 0
    """Of the completion tokens, those decoded inside the reasoning block (its markers included)."""

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


@dataclass(frozen=True)
class Admitted:
    """A choice got a lane; ``cached_tokens`` of its prompt were already in the KV cache."""

    index: int
    prompt_tokens: int
    cached_tokens: int
    restored_tokens: int = 0
    """Of ``cached_tokens``, those loaded from the prefix cache's tiers."""
    restored_from: str = ""
    """The tier ``restored_tokens`` came from: ``ram`` (a saved lane still in memory) or ``disk`` (its file)."""


@dataclass(frozen=True)
class TopLogprob:
    token: str
    bytes: tuple[int, ...]
    logprob: float


@dataclass(frozen=True)
class TokenLogprob:
    token: str
    bytes: tuple[int, ...]
    logprob: float
    top: tuple[TopLogprob, ...] = ()


@dataclass(frozen=True)
class TextDelta:
    """Newly decoded output for one choice: content, reasoning (inside the thinking block), tool-call pieces,
    and the log probabilities of the tokens behind them."""

    index: int
    content: str = ""
    reasoning: str = ""
    completion_tokens: int = 0
    tool_calls: tuple[ToolCallDelta, ...] = ()
    logprobs: tuple[TokenLogprob, ...] = ()


@dataclass(frozen=True)
class Finished:
    index: int
    finish_reason: FinishReason
    usage: Usage
    expired: bool = False
    """The completion-class deadline cut the reply short."""
    spec: dict[str, float] | None = None
    """Speculative decoding figures (proposed, accepted, acceptance_rate), when drafting ran."""
    stop_sequence: str | None = None
    """The request's stop string that ended the reply (finish_reason "stop"), if one did."""
    ttft_s: float | None = None
    """Seconds from the request reaching the engine to this choice's first token (None: it made none)."""


@dataclass(frozen=True)
class Failed:
    """The engine could not finish a choice; ``message`` is safe to show a client."""

    index: int
    message: str
    constraint: str | None = None
    """Set when the choice's output grammar gave up (a parser limit reached mid-reply): the request parameter
    that asked for it. The client hears a 400 ``constraint unsatisfiable`` naming it, not a server error."""


EngineEvent = Admitted | TextDelta | Finished | Failed


@dataclass
class ChoiceResult:
    index: int
    content: str = ""
    reasoning: str = ""
    finish_reason: FinishReason = "stop"
    usage: Usage | None = None
    expired: bool = False
    spec: dict[str, float] | None = None
    stop_sequence: str | None = None
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    """Whole calls: {"id", "name", "arguments"} with arguments as JSON text."""
    logprobs: list[TokenLogprob] = field(default_factory=list)
    deltas: list[TextDelta] = field(default_factory=list)
    """The choice's deltas in order, kept when ``collect(deltas=True)`` asked (a renderer that replays them)."""


@dataclass
class GenerationResult:
    choices: list[ChoiceResult]
    prompt_tokens: int
    completion_tokens: int
    cached_tokens: int
