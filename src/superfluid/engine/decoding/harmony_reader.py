"""The reader of gpt-oss's harmony messages: the framing taken off the words, calls read from the commentary
messages to ``functions.NAME``.
"""

from __future__ import annotations

import re

from superfluid.engine.decoding.call_object_reader import partial_tail
from superfluid.engine.decoding.json_stream import ValueReader
from superfluid.engine.decoding.tool_calls import ParsedPiece, ToolCallDelta, new_call_id

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
            keep = max(partial_tail(self.buffer, m) for m in (*_HARMONY_ENDS, "<|start|>", "<|channel|>"))
            out.content += self.buffer[: len(self.buffer) - keep]
            self.buffer = self.buffer[len(self.buffer) - keep:]
            return False
        at = min(hits)[0]
        out.content += self.buffer[:at]
        self.buffer = self.buffer[at:]
        self.stage = "between"
        return True

