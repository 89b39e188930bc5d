"""Reading calls back out of a reply as it streams, one reader per call format.

A reader is fed the reply's text in whatever pieces decoding produces and hands back ``content`` (words for
the client) and ``ToolCallDelta``s in OpenAI's partial shape: an opening delta with the call's id and name,
then fragments of its arguments JSON on the same index. Call markup never reaches ``content``; text that may
still turn into markup is held back until it is known.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from superfluid.engine.decoding.call_syntax import SYNTAXES, SyntaxReader
from superfluid.engine.decoding.json_stream import JsonStringReader, ValueReader
from superfluid.engine.decoding.tool_calls import (
    GEMMA_CLOSE,
    GEMMA_OPEN,
    HERMES_CLOSE,
    HERMES_OPEN,
    LLAMA3_OPEN,
    LLAMA3_PYTHON_TAG,
    MISTRAL_OPEN,
    ParsedPiece,
    ToolCallDelta,
    ToolFormat,
    ToolSpec,
    new_call_id,
    new_mistral_call_id,
)

IdFactory = Callable[[], str]


def _partial_tail(text: str, needle: str) -> int:
    """Length of the longest tail of ``text`` that is a proper prefix of ``needle``."""
    for size in range(min(len(needle) - 1, len(text)), 0, -1):
        if text.endswith(needle[:size]):
            return size
    return 0


_NAME_PREFIX = re.compile(r'\s*\{\s*"name"\s*:\s*"')
_ARGS_PREFIX = re.compile(r'\s*,\s*"(?:arguments|parameters)"\s*:\s*')


class CallObjectReader:
    """Reads one ``{"name": "...", "arguments": {...}}`` object incrementally, emitting ToolCallDeltas.

    ``parameters`` is read as ``arguments`` (Llama 3); keys after the arguments (Mistral's ``id``) are skipped."""

    def __init__(self, index: int, new_id: IdFactory = new_call_id) -> None:
        self.index = index
        self.new_id = new_id
        self.stage = "open"
        self.buffer = ""
        self.name = JsonStringReader()
        self.name_text = ""
        self.args = ValueReader()
        self.done = False

    def feed(self, text: str) -> tuple[list[ToolCallDelta], str]:
        """Returns deltas, and text left over after the object closed."""
        out: list[ToolCallDelta] = []
        self.buffer += text
        while self.buffer and not self.done:
            if self.stage == "open":
                match = _NAME_PREFIX.match(self.buffer)
                if match is None:
                    return out, ""
                self.buffer = self.buffer[match.end():]
                self.stage = "name"
            elif self.stage == "name":
                decoded, rest = self.name.feed(self.buffer)
                self.name_text += decoded
                self.buffer = rest
                if not self.name.closed:
                    return out, ""
                out.append(ToolCallDelta(index=self.index, id=self.new_id(), name=self.name_text))
                self.stage = "args_key"
            elif self.stage == "args_key":
                match = _ARGS_PREFIX.match(self.buffer)
                if match is None:
                    return out, ""
                self.buffer = self.buffer[match.end():]
                self.stage = "args"
            elif self.stage == "args":
                value, rest = self.args.feed_trimmed(self.buffer)
                self.buffer = ""
                if value:
                    out.append(ToolCallDelta(index=self.index, arguments=value))
                if self.args.done:
                    self.buffer = rest
                    self.stage = "close"
            elif self.stage == "close":
                at = self.buffer.find("}")
                if at < 0:
                    return out, ""
                self.done = True
                rest = self.buffer[at + 1:]
                self.buffer = ""
                return out, rest
        return out, ""


# ---- generic: {"response": "..."} or {"tool_calls": [...]} --------------------------------------------------

_WORDS_OPEN = re.compile(r'\s*\{\s*"response"\s*:\s*"')
_CALLS_OPEN = re.compile(r'\s*\{\s*"tool_calls"\s*:\s*\[')


class GenericReader:
    """Reads the generic format: ``{"response": "..."}`` streams as content, ``{"tool_calls": [...]}`` as calls."""

    def __init__(self) -> None:
        self.buffer = ""
        self.mode = "start"
        self.words = JsonStringReader()
        self.call: CallObjectReader | None = None
        self.calls_seen = 0

    def feed(self, text: str) -> ParsedPiece:
        out = ParsedPiece()
        self.buffer += text
        while self.buffer:
            if self.mode == "start":
                words, calls = _WORDS_OPEN.match(self.buffer), _CALLS_OPEN.match(self.buffer)
                opened = words or calls
                if opened is None:
                    return out
                self.mode = "words" if words else "calls"
                self.buffer = self.buffer[opened.end():]
            elif self.mode == "words":
                decoded, _ = self.words.feed(self.buffer)
                out.content += decoded
                self.buffer = ""
                if self.words.closed:
                    self.mode = "end"
            elif self.mode == "calls" and self.call is None:
                self.buffer = self.buffer.lstrip(", \n")
                if self.buffer.startswith("]"):
                    self.mode = "end"
                elif self.buffer:
                    self.call = CallObjectReader(self.calls_seen)
                    self.calls_seen += 1
            elif self.mode == "calls":
                assert self.call is not None
                deltas, self.buffer = self.call.feed(self.buffer)
                out.calls.extend(deltas)
                if not self.call.done:
                    return out
                self.call = None
            else:
                self.buffer = ""
        return out

    def finish(self) -> ParsedPiece:
        return ParsedPiece()


# ---- formats that open their calls with a marker -----------------------------------------------------------


class _MarkedReader:
    """Content streams until the format's marker; the calls after it are read by ``_read_calls``.

    Whitespace right after the calls is not content."""

    marker = ""

    def __init__(self) -> None:
        self.buffer = ""
        self.in_calls = False
        self.after_calls = False
        self.calls_seen = 0

    def feed(self, text: str) -> ParsedPiece:
        out = ParsedPiece()
        self.buffer += text
        while self.buffer:
            if self.in_calls:
                if not self._read_calls(out):
                    return out
                self.in_calls = False
                self.after_calls = True
                continue
            if self.after_calls:
                self.buffer = self.buffer.lstrip()
                if not self.buffer:
                    return out
                self.after_calls = False
            at = self.buffer.find(self.marker)
            if at < 0:
                keep = _partial_tail(self.buffer, self.marker)
                out.content += self.buffer[: len(self.buffer) - keep]
                self.buffer = self.buffer[len(self.buffer) - keep:]
                return out
            out.content += self.buffer[:at]
            self.buffer = self.buffer[at + len(self.marker):]
            self.in_calls = True
            self._open_calls()
        return out

    def finish(self) -> ParsedPiece:
        rest = ParsedPiece()
        if not self.in_calls:
            rest.content, self.buffer = self.buffer, ""
        return rest

    def _open_calls(self) -> None:
        raise NotImplementedError

    def _read_calls(self, out: ParsedPiece) -> bool:
        """Read what the buffer holds; True once the calls behind this marker are over."""
        raise NotImplementedError

    def _next_call(self, new_id: IdFactory = new_call_id) -> CallObjectReader:
        self.calls_seen += 1
        return CallObjectReader(self.calls_seen - 1, new_id)


class HermesReader(_MarkedReader):
    """``<tool_call>\\n{"name": ..., "arguments": ...}\\n</tool_call>``, one call per block."""

    marker = HERMES_OPEN

    def _open_calls(self) -> None:
        self.call = self._next_call()

    def _read_calls(self, out: ParsedPiece) -> bool:
        if not self.call.done:
            deltas, self.buffer = self.call.feed(self.buffer)
            out.calls.extend(deltas)
            if not self.call.done:
                return False
        at = self.buffer.find(HERMES_CLOSE)
        if at < 0:
            return False
        self.buffer = self.buffer[at + len(HERMES_CLOSE):]
        return True


class MistralReader(_MarkedReader):
    """``[TOOL_CALLS][{"name": ..., "arguments": ...}, ...]``; ids are Mistral's 9 alphanumeric characters."""

    marker = MISTRAL_OPEN

    def _open_calls(self) -> None:
        self.opened = False
        self.call: CallObjectReader | None = None

    def _read_calls(self, out: ParsedPiece) -> bool:
        while self.buffer:
            if not self.opened:
                self.buffer = self.buffer.lstrip()
                if not self.buffer:
                    return False
                if not self.buffer.startswith("["):
                    return True  # not a call list after all: what follows is content
                self.buffer = self.buffer[1:]
                self.opened = True
            elif self.call is None:
                self.buffer = self.buffer.lstrip(", \n")
                if self.buffer.startswith("]"):
                    self.buffer = self.buffer[1:]
                    return True
                if self.buffer:
                    self.call = self._next_call(new_mistral_call_id)
            else:
                deltas, self.buffer = self.call.feed(self.buffer)
                out.calls.extend(deltas)
                if not self.call.done:
                    return False
                self.call = None
        return False


class GemmaReader(_MarkedReader):
    """````` ```tool_code\\nname(key=value, ...)\\n``` `````, one call per line; values are JSON.

    Each call opens once ``name(`` is read; its keyword arguments stream as the fragments of a JSON object."""

    marker = GEMMA_OPEN

    def _open_calls(self) -> None:
        self.stage = "name"
        self.index = -1
        self.wrote_key = False
        self.value = ValueReader(")")

    def _emit(self, out: ParsedPiece, arguments: str) -> None:
        out.calls.append(ToolCallDelta(index=self.index, arguments=arguments))

    def _read_calls(self, out: ParsedPiece) -> bool:
        while self.buffer:
            if self.stage == "name":
                self.buffer = self.buffer.lstrip()
                if self.buffer.startswith(GEMMA_CLOSE):
                    self.buffer = self.buffer[len(GEMMA_CLOSE):]
                    return True
                at = self.buffer.find("(")
                if at < 0 or GEMMA_CLOSE.startswith(self.buffer):
                    return False
                self.index = self.calls_seen
                self.calls_seen += 1
                out.calls.append(ToolCallDelta(index=self.index, id=new_call_id(), name=self.buffer[:at].strip()))
                self.buffer = self.buffer[at + 1:]
                self.stage, self.wrote_key = "key", False
            elif self.stage == "key":
                self.buffer = self.buffer.lstrip(" ")
                if self.buffer.startswith(")"):
                    self._emit(out, "}" if self.wrote_key else "{}")
                    self.buffer = self.buffer[1:]
                    self.stage = "name"
                    continue
                at = self.buffer.find("=")
                if at < 0:
                    return False
                key = self.buffer[:at].strip()
                self._emit(out, (", " if self.wrote_key else "{") + json.dumps(key, ensure_ascii=False) + ": ")
                self.buffer = self.buffer[at + 1:]
                self.stage, self.wrote_key, self.value = "value", True, ValueReader(")")
            elif self.stage == "value":
                value, rest = self.value.feed_trimmed(self.buffer)
                self.buffer = rest
                if value:
                    self._emit(out, value)
                if self.value.done:
                    self.stage = "comma"
            else:  # after a value: another argument, or the end of the call
                self.buffer = self.buffer.lstrip(" ")
                if self.buffer.startswith(","):
                    self.buffer = self.buffer[1:]
                    self.stage = "key"
                elif self.buffer:
                    self.stage = "key"  # ")" closes the call there
        return False


class Llama3Reader:
    """A reply that starts with ``{"name": ...`` (after whitespace, or ``<|python_tag|>``) is one call.

    Anything else is content; the start is held back only while it may still become a call."""

    def __init__(self) -> None:
        self.buffer = ""
        self.mode = "start"
        self.call = CallObjectReader(0)

    def feed(self, text: str) -> ParsedPiece:
        out = ParsedPiece()
        self.buffer += text
        if self.mode == "start":
            head = self.buffer.lstrip()
            if head.startswith(LLAMA3_PYTHON_TAG):
                head = head[len(LLAMA3_PYTHON_TAG):].lstrip()
            if not head or LLAMA3_OPEN.startswith(head) or LLAMA3_PYTHON_TAG.startswith(head):
                return out
            if head.startswith(LLAMA3_OPEN):
                self.mode, self.buffer = "call", head
            else:
                self.mode = "content"
        if self.mode == "call":
            deltas, rest = self.call.feed(self.buffer)
            out.calls.extend(deltas)
            self.buffer = ""
            if not self.call.done:
                return out
            self.mode, self.buffer = "after", rest
        if self.mode == "after":  # whitespace after the call is not content
            self.buffer = self.buffer.lstrip()
            if self.buffer:
                self.mode = "content"
        out.content += self.buffer
        self.buffer = ""
        return out

    def finish(self) -> ParsedPiece:
        rest = ParsedPiece()
        if self.mode != "call":
            rest.content, self.buffer = self.buffer, ""
        return rest


# ---- harmony (gpt-oss) ----------------------------------------------------------------------------------------

_HARMONY_HEADS = ("<|start|>", "<|channel|>", "<|constrain|>", "<|message|>", "to=", " to=")
_HARMONY_ENDS = ("<|end|>", "<|call|>", "<|return|>")
_HARMONY_RECIPIENT = re.compile(r"to=functions\.([^\s<]+)")
_HARMONY_HEADER_LIMIT = 512
"""A header longer than this was never one: what the model wrote is words."""


class HarmonyReader:
    """gpt-oss's messages: ``<|start|>assistant<|channel|>final<|message|>words<|end|>`` and calls, a
    commentary message to ``functions.NAME`` (in the header's start or after the channel) whose body is the
    arguments JSON. The framing never reaches ``content``; the analysis channel was taken out before this as
    reasoning. The reply starts inside a header: the prompt ends with ``<|start|>assistant``."""

    def __init__(self) -> None:
        self.buffer = ""
        self.stage = "start"
        self.calls_seen = 0
        self.args = ValueReader()

    def feed(self, text: str) -> ParsedPiece:
        out = ParsedPiece()
        self.buffer += text
        while self._step(out):
            pass
        return out

    def finish(self) -> ParsedPiece:
        rest = ParsedPiece()
        if self.stage in ("start", "content"):
            rest.content = self.buffer
        self.buffer = ""
        return rest

    def _step(self, out: ParsedPiece) -> bool:
        if self.stage == "start":  # a header, or words with no framing at all
            head = self.buffer.lstrip(" \n")
            if not head:
                return False
            if any(h.startswith(head) and h != head for h in _HARMONY_HEADS):
                return False
            self.stage = "header" if any(head.startswith(h) for h in _HARMONY_HEADS) else "content"
            return True
        if self.stage == "header":
            at = self.buffer.find("<|message|>")
            if at < 0:
                if len(self.buffer) > _HARMONY_HEADER_LIMIT:
                    self.stage = "content"
                    return True
                return False
            header, self.buffer = self.buffer[:at], self.buffer[at + len("<|message|>"):]
            recipient = _HARMONY_RECIPIENT.search(header)
            if recipient is None:
                self.stage = "content"
                return True
            out.calls.append(ToolCallDelta(index=self.calls_seen, id=new_call_id(), name=recipient.group(1)))
            self.calls_seen += 1
            self.args = ValueReader()
            self.stage = "arguments"
            return True
        if self.stage == "arguments":
            value, rest = self.args.feed_trimmed(self.buffer)
            self.buffer = ""
            if value:
                out.calls.append(ToolCallDelta(index=self.calls_seen - 1, arguments=value))
            if not self.args.done:
                return False
            self.buffer, self.stage = rest, "between"
            return True
        if self.stage == "between":  # after a message: its end, the next header, or nothing
            head = self.buffer.lstrip()
            for end in _HARMONY_ENDS:
                if head.startswith(end):
                    self.buffer = head[len(end):]
                    return True
            if not head or any(m.startswith(head) for m in (*_HARMONY_ENDS, "<|start|>", "<|channel|>")):
                self.buffer = head
                return False
            self.buffer = head
            self.stage = "header" if head.startswith(("<|start|>", "<|channel|>")) else "content"
            return True
        # content: words up to the message's end or the next header
        found = [(self.buffer.find(m), m) for m in (*_HARMONY_ENDS, "<|start|>", "<|channel|>")]
        hits = [(at, m) for at, m in found if at >= 0]
        if not hits:
            keep = max(_partial_tail(self.buffer, m) for m in (*_HARMONY_ENDS, "<|start|>", "<|channel|>"))
            out.content += self.buffer[: len(self.buffer) - keep]
            self.buffer = self.buffer[len(self.buffer) - keep:]
            return False
        at = min(hits)[0]
        out.content += self.buffer[:at]
        self.buffer = self.buffer[at:]
        self.stage = "between"
        return True


CallReader = GenericReader | HermesReader | MistralReader | GemmaReader | Llama3Reader | SyntaxReader | HarmonyReader

_READERS: dict[str, type[GenericReader | HermesReader | MistralReader | GemmaReader | Llama3Reader]] = {
    "generic": GenericReader,
    "hermes": HermesReader,
    "llama3": Llama3Reader,
    "mistral": MistralReader,
    "gemma": GemmaReader,
}


def call_reader(fmt: ToolFormat, tools: tuple[ToolSpec, ...] = ()) -> CallReader:
    """The reader of one format; ``tools`` tell a call-syntax family's reader which values are strings."""
    if fmt in SYNTAXES:
        return SyntaxReader(SYNTAXES[fmt], tools)
    if fmt == "harmony":
        return HarmonyReader()
    return _READERS[fmt]()
