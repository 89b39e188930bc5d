"""Tool calling: the request's policy, the call formats, and which format a chat template speaks.

A format is chosen from the chat template's source (never the model's name):

* ``hermes`` — the template reads ``tools`` and contains ``<tool_call>`` (Hermes, Qwen and their kin):
  ``<tool_call>\\n{"name": ..., "arguments": ...}\\n</tool_call>``.
* ``llama3`` — the template reads ``tools`` and speaks Llama 3.1's tool dialect (``<|python_tag|>``, or an
  ``ipython`` role with ``"parameters"``): a reply that *is* one ``{"name": ..., "parameters": ...}`` object.
* ``mistral`` — the template reads ``tools`` and contains ``[TOOL_CALLS]``:
  ``[TOOL_CALLS][{"name": ..., "arguments": ...}, ...]``.
* ``gemma`` — the template reads ``tools`` and contains ``tool_code`` (Gemma 3's documented style): a fenced
  block ``````tool_code\\nname(key=value, ...)\\n`````` whose values are JSON.
* the families of :mod:`superfluid.engine.decoding.call_syntax` (Qwen3-Coder's ``<function=...>``, GLM's
  ``<arg_key>``, DeepSeek's ``<｜tool▁calls▁begin｜>``, Kimi K2, MiniMax M2, Mistral's ``[ARGS]`` and others),
  each described there as data; these are recognised first, since several of them share ``<tool_call>``.
* ``harmony`` — the template reads ``tools`` and frames messages with ``<|channel|>`` (gpt-oss): a call is a
  commentary message to ``functions.NAME`` whose body is the arguments JSON; the reader also takes the framing
  out of every reply.
* ``lfm2`` — the template reads ``tools`` and lists them as LFM2 (``<|tool_list_start|>``) or LFM2.5 (a plain
  ``List of tools: [``) do: ``<|tool_call_start|>[name(key=value, ...)]<|tool_call_end|>``, values as Python
  literals.
* ``functionary_v3_2`` — the template reads ``tools`` and writes an assistant's words behind ``>>>all``: a reply
  is messages ``>>>RECIPIENT\\nBODY``, ``all`` the words and any other recipient a function with its arguments
  JSON.
* ``gemma4`` — the template reads ``tools`` and writes ``<|tool_call>call:`` (Gemma 4):
  ``<|tool_call>call:NAME{key:<|"|>text<|"|>,n:2}<tool_call|>``, bare keys and Gemma's own string quotes.
* ``kimi_k3`` — the template reads ``tools`` and frames its messages with ``<|open|>``, ``<|close|>`` and
  ``<|end_of_msg|>`` (Kimi K3): a reply is ``think``, ``response`` and ``tools`` blocks, a call
  ``<|open|>call tool="NAME" index="1"<|sep|>`` with one ``<|open|>argument key="K" type="T"<|sep|>`` block per
  argument (:mod:`superfluid.engine.decoding.kimi_k3_calls`).
* ``muse_glimmer`` — the template reads ``tools`` and writes ``<atem:function_calls>`` and ``<|eom|>`` (Muse
  Glimmer): a reply is messages ``<|start|>assistant to=RECIPIENT<|message|>BODY``, ``self`` the reasoning,
  ``user`` the words and any other recipient a call whose body is an ATEM block
  (:mod:`superfluid.engine.decoding.muse_glimmer_calls`).
* ``generic`` — every other template: the tools and a JSON reply format are described in a system message and
  the reply is always constrained JSON, ``{"tool_calls": [...]}`` or (``auto``) ``{"response": "..."}``.

Grammars live in :mod:`superfluid.engine.decoding.tool_grammars`, the incremental readers behind streaming in
:mod:`superfluid.engine.decoding.tool_readers`.
"""

from __future__ import annotations

import hashlib
import secrets
import string
from dataclasses import dataclass, field
from typing import Any, Literal

ToolChoice = Literal["auto", "none", "required"] | str
"""auto, none, required, or the name of one function that must be called."""

ToolFormat = Literal["generic", "harmony", "hermes", "llama3", "mistral", "gemma", "qwen3_coder", "seed_oss", "glm",
                     "glm_compact", "minimax_m2", "dsml", "dsml_tools", "hunyuan", "minicpm", "kimi_k2", "deepseek_r1",
                     "deepseek_v3", "mistral_args", "mistral_call_id", "functionary_v3_1",
                     "nemotron_v2", "apriel", "minimax_m1", "firefunction_v2", "granite", "gigachat", "apertus",
                     "command_r7b", "command_r_plus", "lfm2", "functionary_v3_2", "gemma4",
                     "solar_open", "gigachat_v3", "kimi_k3", "muse_glimmer"]

HERMES_OPEN = "<tool_call>"
HERMES_CLOSE = "</tool_call>"
LLAMA3_OPEN = '{"name"'
"""Llama 3's trigger: a reply that starts (after whitespace) with this is a call."""
LLAMA3_PYTHON_TAG = "<|python_tag|>"
MISTRAL_OPEN = "[TOOL_CALLS]"
HARMONY_MARKERS = ("<|start|>", "<|channel|>", "<|message|>", "<|end|>", "<|constrain|>", "<|call|>", "<|return|>")
"""gpt-oss's message framing: written out in every reply, tools or not, since the words between these tokens
(``assistant``, ``final``) are not the answer."""
HARMONY_CALL = "to=functions."
LFM2_OPEN = "<|tool_call_start|>"
LFM2_CLOSE = "<|tool_call_end|>"
LFM2_TOOL_LIST = ("<|tool_list_start|>", "<|tool_list_end|>")
"""LFM2's template wraps the declared tools in these; LFM2.5's writes a plain ``List of tools: [``."""
LFM2_5_TOOL_LIST = "List of tools: ["
FUNCTIONARY_V3_2_TEXT = ">>>all"
"""Functionary v3.2's text message: its template writes an assistant's words behind it."""
GEMMA4_OPEN = "<|tool_call>"
GEMMA4_CLOSE = "<tool_call|>"
GEMMA4_QUOTE = '<|"|>'
"""Gemma 4's string quote: strings in its calls' arguments sit between two of these."""
GEMMA4_CHANNEL = ("<|channel>", "<channel|>")
"""Gemma 4's channel marks: ``<|channel>thought ... <channel|>`` is its thinking block."""
KIMI_K3_MARKERS = ("<|open|>", "<|close|>", "<|sep|>", "<|end_of_msg|>")
"""Kimi K3's framing: ``<|open|>TAG attrs<|sep|>`` opens a block, ``<|close|>TAG<|sep|>`` closes it, and
``<|end_of_msg|>`` ends a message."""
KIMI_K3_TOOLS = "<|open|>tools<|sep|>"
"""The opening of Kimi K3's block of calls: the grammar of ``auto`` engages here."""
MUSE_GLIMMER_FRAMING = ("<|start|>", "<|message|>", "<|eom|>", "<|eot|>")
"""Muse Glimmer's messages: ``<|start|>assistant to=RECIPIENT<|message|>BODY`` and ``<|eom|>`` (more messages
follow) or ``<|eot|>`` (the turn ends)."""
MUSE_GLIMMER_CALLS = "<atem:function_calls>"
MUSE_GLIMMER_MARKERS = (*MUSE_GLIMMER_FRAMING, MUSE_GLIMMER_CALLS, "<atem:invoke", "<atem:parameter",
                        "</atem:parameter>", "</atem:invoke>", "</atem:function_calls>")
GEMMA_OPEN = "```tool_code"
GEMMA_CLOSE = "```"

FORMAT_MARKERS: dict[ToolFormat, tuple[str, ...]] = {
    "generic": (),
    "harmony": HARMONY_MARKERS,
    "hermes": (HERMES_OPEN, HERMES_CLOSE),
    "llama3": (),  # a <|python_tag|> token before a JSON call is dropped, as llama.cpp does without built-in tools
    "mistral": (MISTRAL_OPEN,),
    "gemma": (),
    "lfm2": (LFM2_OPEN, LFM2_CLOSE),
    "functionary_v3_2": (),
    "gemma4": (GEMMA4_OPEN, GEMMA4_CLOSE, GEMMA4_QUOTE, *GEMMA4_CHANNEL),  # the channel marks: so the reasoning
    # split sees a thinking block before a call, and a forced call's grammar takes one
    "kimi_k3": KIMI_K3_MARKERS,  # written out in every reply, tools or not: the blocks' names are not the answer
    "muse_glimmer": MUSE_GLIMMER_MARKERS,  # the same: the recipients are not the answer
}
"""Markers a model's vocabulary may hold as control tokens (Mistral's ``[TOOL_CALLS]``): they are written out."""


def format_markers(fmt: ToolFormat) -> tuple[str, ...]:
    """The markers of any format, the call-syntax families' included."""
    from superfluid.engine.decoding.call_syntax import SYNTAXES

    return SYNTAXES[fmt].markers() if fmt in SYNTAXES else FORMAT_MARKERS[fmt]


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    parameters: dict[str, Any]

    def as_template_tool(self) -> dict[str, Any]:
        return {"type": "function", "function": {"name": self.name, "description": self.description,
                                                 "parameters": self.parameters}}


@dataclass(frozen=True)
class ToolPolicy:
    tools: tuple[ToolSpec, ...]
    choice: ToolChoice = "auto"
    parallel: bool = False

    @property
    def active(self) -> bool:
        return bool(self.tools) and self.choice != "none"

    def callable_tools(self) -> tuple[ToolSpec, ...]:
        if self.choice in ("auto", "required", "none"):
            return self.tools
        return tuple(t for t in self.tools if t.name == self.choice)


@dataclass(frozen=True)
class ToolCallDelta:
    """A piece of a call: ``name`` and ``id`` open it; ``arguments`` fragments follow on the same index."""

    index: int
    id: str | None = None
    name: str | None = None
    arguments: str = ""


@dataclass
class ParsedPiece:
    """What a call reader makes of a piece of the reply: words for the client, and pieces of calls."""

    content: str = ""
    calls: list[ToolCallDelta] = field(default_factory=list)


def new_call_id() -> str:
    return "call_" + secrets.token_hex(12)


_ALPHANUMERIC = string.ascii_letters + string.digits


def new_mistral_call_id() -> str:
    """Mistral's templates refuse any call id that is not 9 alphanumeric characters."""
    return "".join(secrets.choice(_ALPHANUMERIC) for _ in range(9))


def _digest_id(call_id: str, alphabet: str, size: int) -> str:
    """A stable id of ``size`` characters of ``alphabet`` for any id: the same input, the same output."""
    number = int.from_bytes(hashlib.sha256(call_id.encode()).digest()[:8], "big")
    chars = []
    for _ in range(size):
        number, digit = divmod(number, len(alphabet))
        chars.append(alphabet[digit])
    return "".join(chars)


def mistral_call_id(call_id: str) -> str:
    """A history id as Mistral's templates accept it: kept when it already fits, else a stable 9-character digest.

    The same id always maps to the same digest, so a call and the tool result naming it still match."""
    if len(call_id) == 9 and call_id.isascii() and call_id.isalnum():
        return call_id
    return _digest_id(call_id, _ALPHANUMERIC, 9)


_LOWER_ALPHANUMERIC = string.ascii_lowercase + string.digits


def solar_call_id(call_id: str) -> str:
    """A history id as Solar Open's template asks for it (ten lowercase letters and digits): kept when it already
    fits, else a stable 10-character digest, the same for a call and the tool result naming it."""
    if len(call_id) == 10 and all(ch in _LOWER_ALPHANUMERIC for ch in call_id):
        return call_id
    return _digest_id(call_id, _LOWER_ALPHANUMERIC, 10)


def tool_format(template_source: str, supports_tools: bool) -> ToolFormat:
    """The call format a template speaks.

    A call-syntax family counts even when the template does not read ``tools`` (DeepSeek V3.1 and R1 render
    calls but leave the tool list to the server, which then describes the tools in a system message); the
    other native formats need a template that reads ``tools``."""
    from superfluid.engine.decoding.call_syntax import detect_syntax  # it builds on this module's types

    if "<|channel|>" in template_source and supports_tools:
        return "harmony"
    if GEMMA4_OPEN + "call:" in template_source and supports_tools:
        return "gemma4"
    if all(marker in template_source for marker in (*KIMI_K3_MARKERS[:2], KIMI_K3_MARKERS[3])) and supports_tools:
        return "kimi_k3"
    if MUSE_GLIMMER_CALLS in template_source and MUSE_GLIMMER_FRAMING[2] in template_source and supports_tools:
        return "muse_glimmer"
    syntax = detect_syntax(template_source)
    if syntax is not None:
        return syntax.family  # type: ignore[return-value]
    if not supports_tools:
        return "generic"
    if all(m in template_source for m in LFM2_TOOL_LIST) or (
            LFM2_5_TOOL_LIST in template_source and LFM2_TOOL_LIST[0] not in template_source):
        return "lfm2"
    if FUNCTIONARY_V3_2_TEXT in template_source:
        return "functionary_v3_2"
    if HERMES_OPEN in template_source:
        return "hermes"
    if MISTRAL_OPEN in template_source:
        return "mistral"
    if LLAMA3_PYTHON_TAG in template_source or ("ipython" in template_source and '"parameters"' in template_source):
        return "llama3"
    if "tool_code" in template_source:
        return "gemma"
    return "generic"
