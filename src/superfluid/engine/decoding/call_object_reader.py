"""What the format readers of :mod:`.tool_readers` share: the reader of one ``{"name": ..., "arguments": ...}``
object, and how much of a text's tail to hold back while it may still grow into a marker.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from superfluid.engine.decoding.json_stream import JsonStringReader, ValueReader
from superfluid.engine.decoding.tool_calls import ToolCallDelta, new_call_id

IdFactory = Callable[[], str]


def partial_tail(text: str, needle: str) -> int:
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
