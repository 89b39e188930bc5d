"""Readers of the formats whose reply is JSON from its first character: the generic format's
``{"response": ...}`` or ``{"tool_calls": [...]}``, and Llama 3's single call object.
"""

from __future__ import annotations

import re

from superfluid.engine.decoding.call_object_reader import CallObjectReader
from superfluid.engine.decoding.json_stream import JsonStringReader, ValueReader
from superfluid.engine.decoding.tool_calls import LLAMA3_OPEN, LLAMA3_PYTHON_TAG, ParsedPiece

# ---- generic: {"response": "..."} or {"tool_calls": [...]} --------------------------------------------------

_WORDS_OPEN = re.compile(r'\s*\{\s*"response"\s*:\s*"')
_CALLS_OPEN = re.compile(r'\s*\{\s*"tool_calls"\s*:\s*\[')
_ANSWER_OPEN = re.compile(r'\s*\{\s*"response"\s*:\s*(?=\S)')


class GenericReader:
    """Reads the generic format: ``{"response": "..."}`` streams as content, ``{"tool_calls": [...]}`` as calls.

    With ``json_answer`` (structured output beside tools) the response is a JSON value, whose text is the content."""

    def __init__(self, json_answer: bool = False) -> None:
        self.buffer = ""
        self.mode = "start"
        self.json_answer = json_answer
        self.words = JsonStringReader()
        self.answer = ValueReader(closers="}")
        self.call: CallObjectReader | None = None
        self.calls_seen = 0

    def feed(self, text: str) -> ParsedPiece:
        out = ParsedPiece()
        self.buffer += text
        while self.buffer:
            if self.mode == "start":
                words = (_ANSWER_OPEN if self.json_answer else _WORDS_OPEN).match(self.buffer)
                calls = _CALLS_OPEN.match(self.buffer)
                opened = words or calls
                if opened is None:
                    return out
                self.mode = ("answer" if self.json_answer else "words") if words else "calls"
                self.buffer = self.buffer[opened.end():]
            elif self.mode == "answer":
                value, _ = self.answer.feed(self.buffer)
                out.content += value
                self.buffer = ""
                if self.answer.done:
                    self.mode = "end"
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


# ---- Llama 3: the whole reply is one call object ------------------------------------------------------------


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
