"""The reader of Muse Glimmer's replies: the framing taken off the words, calls read from messages to functions.

A reply is messages (:mod:`.muse_glimmer_calls`). The reasoning (``to=self``) was taken out before this, as the
template's reasoning block (:class:`.text_output.TextOutput`); what is left is ``to=user`` (or recipient-less)
messages, whose bodies are the words, and messages to functions, whose bodies are ATEM blocks, read by the
call-syntax reader (:class:`.syntax_reader.SyntaxReader`) so that string values stream as they arrive. The reply
starts inside a header: the prompt ends in ``<|start|>assistant``.
"""

from __future__ import annotations

import re

from superfluid.engine.decoding.call_object_reader import partial_tail
from superfluid.engine.decoding.muse_glimmer_calls import ATEM
from superfluid.engine.decoding.syntax_reader import SyntaxReader
from superfluid.engine.decoding.tool_calls import MUSE_GLIMMER_FRAMING, ParsedPiece, ToolSpec

_START, _MESSAGE, _EOM, _EOT = MUSE_GLIMMER_FRAMING
_ENDS = (_EOM, _EOT, _START)
"""What ends a message's body: its end, or (where the model left the end out) the next message."""
_HEADS = ("to=", _MESSAGE, _START)
_RECIPIENT = re.compile(r"to=([^\s<]+)")
_HEADER_LIMIT = 512
"""A header longer than this was never one: what the model wrote is words."""


class MuseGlimmerReader:
    """Muse Glimmer's messages, with the contract of :mod:`.tool_readers`: the words of ``user`` messages as
    ``content`` (the framing never), and ``ToolCallDelta``s from the ATEM blocks of messages to functions.
    ``tools`` tell which values are strings, as for the call-syntax families."""

    def __init__(self, tools: tuple[ToolSpec, ...] = ()) -> None:
        self.buffer = ""
        self.stage = "start"
        self.calls = SyntaxReader(ATEM, tools)

    def feed(self, text: str) -> ParsedPiece:
        out = ParsedPiece()
        self.buffer += text
        while getattr(self, f"_{self.stage}")(out):
            pass
        return out

    def finish(self) -> ParsedPiece:
        rest = ParsedPiece()
        if self.stage == "body":
            rest.calls = self.calls.feed(self.buffer).calls + self.calls.finish().calls
        elif self.stage in ("start", "content") and not any(m.startswith(self.buffer) for m in _ENDS):
            rest.content = self.buffer  # what is held back is words, unless it is framing cut short
        self.buffer = ""
        return rest

    # Each stage reads what it can and says whether to go on (True) or wait for more text (False).

    def _start(self, out: ParsedPiece) -> bool:
        """A header, or words with no framing at all."""
        head = self.buffer.lstrip(" \n")
        if not head or any(h.startswith(head) and h != head for h in _HEADS):
            return False
        self.stage = "header" if head.startswith(_HEADS) else "content"
        return True

    def _header(self, out: ParsedPiece) -> bool:
        """Up to ``<|message|>``: the recipient says what the body is."""
        at = self.buffer.find(_MESSAGE)
        restart = self.buffer.find(_START, 1)
        if restart > 0 and (at < 0 or restart < at):  # a header left unfinished (its message went to reasoning)
            self.buffer = self.buffer[restart:]
            return True
        if at < 0:
            if len(self.buffer) > _HEADER_LIMIT:
                self.stage = "content"
                return True
            return False
        recipient = _RECIPIENT.search(self.buffer[:at])
        self.buffer = self.buffer[at + len(_MESSAGE):]
        name = recipient.group(1) if recipient else "user"
        self.stage = "content" if name == "user" else "skip" if name == "self" else "body"
        return True

    def _body_end(self, out: ParsedPiece, take: str) -> bool:
        """Hand the body up to the message's end to ``take``; False while the end has not come."""
        hits = [at for m in _ENDS if (at := self.buffer.find(m)) >= 0]
        if not hits:
            keep = max(partial_tail(self.buffer, m) for m in _ENDS)
            self._take(out, take, self.buffer[: len(self.buffer) - keep])
            self.buffer = self.buffer[len(self.buffer) - keep:]
            return False
        self._take(out, take, self.buffer[: min(hits)])
        self.buffer = self.buffer[min(hits):]
        self.stage = "between"
        return True

    def _take(self, out: ParsedPiece, take: str, text: str) -> None:
        if take == "content":
            out.content += text
        elif take == "calls" and text:
            out.calls.extend(self.calls.feed(text).calls)  # words around a block are the function's, not the user's

    def _content(self, out: ParsedPiece) -> bool:
        return self._body_end(out, "content")

    def _skip(self, out: ParsedPiece) -> bool:
        return self._body_end(out, "skip")

    def _body(self, out: ParsedPiece) -> bool:
        return self._body_end(out, "calls")

    def _between(self, out: ParsedPiece) -> bool:
        """After a message: its end, the next header, or nothing."""
        head = self.buffer.lstrip()
        for end in (_EOM, _EOT):
            if head.startswith(end):
                self.buffer = head[len(end):]
                return True
        self.buffer = head
        if not head or any(m.startswith(head) and m != head for m in _ENDS):
            return False
        self.stage = "header" if head.startswith(_START) else "content"
        return True
