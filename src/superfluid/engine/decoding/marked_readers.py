"""Readers of the formats that open their calls with a marker anywhere in the reply: Hermes' ``<tool_call>``,
Mistral's ``[TOOL_CALLS]``, Gemma's ```` ```tool_code ```` and LFM2's ``<|tool_call_start|>``.
"""

from __future__ import annotations

import json

from superfluid.engine.decoding.call_object_reader import CallObjectReader, IdFactory, partial_tail
from superfluid.engine.decoding.json_stream import ValueReader
from superfluid.engine.decoding.pythonic_calls import literal_json
from superfluid.engine.decoding.tool_calls import (
    GEMMA_CLOSE,
    GEMMA_OPEN,
    HERMES_CLOSE,
    HERMES_OPEN,
    LFM2_CLOSE,
    LFM2_OPEN,
    MISTRAL_OPEN,
    ParsedPiece,
    ToolCallDelta,
    new_call_id,
    new_mistral_call_id,
)


class MarkedReader:
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
                keep = partial_tail(self.buffer, self.marker)
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


class HermesReader(MarkedReader):
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


class MistralReader(MarkedReader):
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


class GemmaReader(MarkedReader):
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


def python_value_end(text: str) -> int | None:
    """Where a Python literal at the text's start ends: the index of the ``,`` or ``)`` after it, outside quotes
    and brackets; None while it has not come."""
    depth, quote, escaped = 0, "", False
    for at, ch in enumerate(text):
        if quote:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in "}]" or (ch == ")" and depth):
            depth -= 1
        elif ch in ",)" and depth == 0:
            return at
    return None


class Lfm2Reader(MarkedReader):
    """``<|tool_call_start|>[name(key=value, ...), ...]<|tool_call_end|>``, values as Python literals (or JSON).

    A call opens once ``name(`` is read; each value is read whole and written as JSON. A list of JSON call
    objects (what LFM2 writes when its system prompt asks for JSON) is read too."""

    marker = LFM2_OPEN

    def _open_calls(self) -> None:
        self.stage = "list"
        self.wrote_key = False
        self.index = -1
        self.call: CallObjectReader | None = None

    def _emit(self, out: ParsedPiece, arguments: str) -> None:
        out.calls.append(ToolCallDelta(index=self.index, arguments=arguments))

    def _read_calls(self, out: ParsedPiece) -> bool:
        step = {"list": self._list, "call": self._call, "object": self._object, "key": self._key,
                "value": self._value, "close": self._close}
        while self.buffer:
            if self.stage == "done":
                return True
            if not step[self.stage](out):
                return False
        return self.stage == "done"

    def _list(self, out: ParsedPiece) -> bool:
        self.buffer = self.buffer.lstrip()
        if not self.buffer:
            return False
        if self.buffer.startswith("["):
            self.buffer = self.buffer[1:]
        self.stage = "call"
        return True

    def _call(self, out: ParsedPiece) -> bool:
        """Another call, or the list's end."""
        self.buffer = self.buffer.lstrip(", \n")
        if not self.buffer:
            return False
        if self.buffer.startswith("]") or self.buffer.startswith(LFM2_CLOSE[0]):
            self.buffer = self.buffer.removeprefix("]")
            self.stage = "close"
            return True
        if self.buffer.startswith("{"):
            self.call = self._next_call()
            self.stage = "object"
            return True
        at = self.buffer.find("(")
        if at < 0:
            return False
        self.index = self.calls_seen
        self.calls_seen += 1
        out.calls.append(ToolCallDelta(index=self.index, id=new_call_id(), name=self.buffer[:at].strip()))
        self.buffer = self.buffer[at + 1:]
        self.stage, self.wrote_key = "key", False
        return True

    def _object(self, out: ParsedPiece) -> bool:
        assert self.call is not None
        deltas, self.buffer = self.call.feed(self.buffer)
        out.calls.extend(deltas)
        if not self.call.done:
            return False
        self.stage = "call"
        return True

    def _key(self, out: ParsedPiece) -> bool:
        self.buffer = self.buffer.lstrip(", \n")
        if self.buffer.startswith(")"):
            self._emit(out, "}" if self.wrote_key else "{}")
            self.buffer = self.buffer[1:]
            self.stage = "call"
            return True
        at = self.buffer.find("=")
        if at < 0:
            return False
        key = self.buffer[:at].strip().strip("'\"")
        self._emit(out, (", " if self.wrote_key else "{") + json.dumps(key, ensure_ascii=False) + ": ")
        self.buffer = self.buffer[at + 1:]
        self.stage, self.wrote_key = "value", True
        return True

    def _value(self, out: ParsedPiece) -> bool:
        end = python_value_end(self.buffer)
        if end is None:
            return False
        self._emit(out, literal_json(self.buffer[:end]))
        self.buffer = self.buffer[end:]
        self.stage = "key"
        return True

    def _close(self, out: ParsedPiece) -> bool:
        """The closing marker, where the model wrote it."""
        self.buffer = self.buffer.lstrip()
        if len(self.buffer) < len(LFM2_CLOSE) and LFM2_CLOSE.startswith(self.buffer):
            return False
        self.buffer = self.buffer.removeprefix(LFM2_CLOSE)
        self.stage = "done"
        return True
