"""The reader of Kimi K3's replies: the blocks' framing taken off the words, calls read out of the ``tools`` block.

What reaches the reader is the reply after the reasoning split (:class:`.text_output.TextOutput` takes the
``think`` block out as reasoning): ``<|open|>response<|sep|>words<|close|>response<|sep|>``, then maybe
``<|open|>tools<|sep|>...<|close|>tools<|sep|>``, then ``<|close|>message<|sep|>`` and ``<|end_of_msg|>``. The
reply may start inside the response block (the prompt opened it) or before any block. Every framing piece is
dropped wherever it comes; the words between are the content. A call opens once its ``call`` block's opening is
read; each argument is a key written into the arguments JSON, then its value: a ``type="string"`` value streams
as it arrives (a file's content reaches the client line by line), any other value is read whole and written as
JSON where it parses (as a string where it does not). A ``json`` block (the template's form for arguments
handed over as a JSON string) is the arguments whole.
"""

from __future__ import annotations

import json
import re

from superfluid.engine.decoding.call_object_reader import partial_tail
from superfluid.engine.decoding.call_syntax import is_plain_string
from superfluid.engine.decoding.kimi_k3_calls import ARGUMENT_CLOSE
from superfluid.engine.decoding.syntax_reader import as_json
from superfluid.engine.decoding.tool_calls import KIMI_K3_MARKERS, ParsedPiece, ToolCallDelta, ToolSpec, new_call_id

_OPEN, _CLOSE, _SEP, _END = _MARKERS = KIMI_K3_MARKERS
_JSON_CLOSE = "<|close|>json<|sep|>"
_ATTRIBUTE = re.compile(r'([\w-]+)="([^"]*)"')
_TAG_LIMIT = 512
"""A block's opening longer than this (no ``<|sep|>`` yet) was never one: what the model wrote is words."""


class _Tag:
    """A block's opening (``<|open|>NAME attr="v"...<|sep|>``) or close (``<|close|>NAME<|sep|>``)."""

    def __init__(self, opening: bool, body: str, end: int) -> None:
        self.opening = opening
        self.name, _, rest = body.strip().partition(" ")
        self.attributes = {key: value.replace("&quot;", '"').replace("&amp;", "&")
                           for key, value in _ATTRIBUTE.findall(rest)}
        self.end = end


def _tag(buffer: str) -> _Tag | bool | None:
    """The block piece at the buffer's start; None while it may still be arriving; False when there is none."""
    if not buffer or any(m.startswith(buffer) and m != buffer for m in (_OPEN, _CLOSE)):
        return None
    marker = _OPEN if buffer.startswith(_OPEN) else _CLOSE if buffer.startswith(_CLOSE) else ""
    if not marker:
        return False
    at = buffer.find(_SEP, len(marker))
    body = buffer[len(marker): at if at >= 0 else len(buffer)]
    if _OPEN in body or _CLOSE in body or len(body) > _TAG_LIMIT:
        return False
    if at < 0:
        return None
    return _Tag(marker == _OPEN, body, at + len(_SEP))


class KimiK3Reader:
    """Reads Kimi K3's replies, with the contract of :mod:`.tool_readers`: ``content`` for the client (no
    framing), ``ToolCallDelta``s in OpenAI's partial shape. ``tools`` say which values are strings where the
    model leaves out an argument's ``type``."""

    def __init__(self, tools: tuple[ToolSpec, ...] = ()) -> None:
        self.string_keys = {t.name: {k for k, v in ((t.parameters or {}).get("properties") or {}).items()
                                     if isinstance(v, dict) and is_plain_string(v)} for t in tools}
        self.buffer = ""
        self.stage = "text"
        self.after_calls = False
        self.framed = False
        """A block's piece was read: the reply is framed."""
        self.calls_seen = 0
        self.name = ""
        self.keys_written = 0
        self.whole = False
        """The call's arguments came whole (a ``json`` block)."""
        self.value_kind = ""
        self.value_started = False

    def feed(self, text: str) -> ParsedPiece:
        out = ParsedPiece()
        self.buffer += text
        while getattr(self, f"_{self.stage}")(out):
            pass
        return out

    def finish(self) -> ParsedPiece:
        rest = ParsedPiece()
        # A block's piece cut short at the end of a framed reply is framing, not words.
        cut = self.buffer.startswith("<|") or (self.framed and any(m.startswith(self.buffer) for m in _MARKERS))
        if self.stage == "text" and not cut:
            rest.content = self.buffer
        self.buffer = ""
        return rest

    def _emit(self, out: ParsedPiece, arguments: str) -> None:
        out.calls.append(ToolCallDelta(index=self.calls_seen - 1, arguments=arguments))

    # Each stage reads what it can and says whether to go on (True) or wait for more text (False).

    def _text(self, out: ParsedPiece) -> bool:
        """Words up to the next piece of framing; a ``tools`` block opens the calls."""
        if self.after_calls:  # whitespace after the calls is not content
            self.buffer = self.buffer.lstrip()
            if not self.buffer:
                return False
            self.after_calls = False
        hits = [(at, m) for m in (_OPEN, _CLOSE, _END) if (at := self.buffer.find(m)) >= 0]
        if not hits:
            keep = max(partial_tail(self.buffer, m) for m in (_OPEN, _CLOSE, _END))
            out.content += self.buffer[: len(self.buffer) - keep]
            self.buffer = self.buffer[len(self.buffer) - keep:]
            return False
        at, marker = min(hits)
        out.content += self.buffer[:at]
        self.buffer = self.buffer[at:]
        if marker == _END:
            self.buffer = self.buffer[len(_END):]
            self.framed = True
            return True
        tag = _tag(self.buffer)
        if tag is None:
            return False
        if not isinstance(tag, _Tag):  # a marker in the words, not a block
            out.content += marker
            self.buffer = self.buffer[len(marker):]
            return True
        self.buffer = self.buffer[tag.end:]
        self.framed = True
        if tag.opening and tag.name == "tools":
            self.stage = "calls"
        return True

    def _calls(self, out: ParsedPiece) -> bool:
        """Inside the ``tools`` block: a call's opening, or the block's close."""
        self.buffer = self.buffer.lstrip()
        tag = _tag(self.buffer)
        if tag is None:
            return False
        if not isinstance(tag, _Tag):  # not a call after all: the rest is words
            self.stage = "text"
            return True
        self.buffer = self.buffer[tag.end:]
        if tag.opening and tag.name == "call":
            self.name = tag.attributes.get("tool", "")
            out.calls.append(ToolCallDelta(index=self.calls_seen, id=new_call_id(), name=self.name))
            self.calls_seen += 1
            self.keys_written, self.whole = 0, False
            self.stage = "arguments"
        elif not tag.opening and tag.name == "tools":
            self.stage, self.after_calls = "text", True
        return True

    def _arguments(self, out: ParsedPiece) -> bool:
        """Inside a call: an argument's opening, a ``json`` block, or the call's close."""
        self.buffer = self.buffer.lstrip()
        tag = _tag(self.buffer)
        if tag is None:
            return False
        if not isinstance(tag, _Tag):  # the call ends where its pieces do
            self._close_call(out)
            self.stage = "text"
            return True
        self.buffer = self.buffer[tag.end:]
        if tag.opening and tag.name == "argument":
            key = tag.attributes.get("key", "")
            kind = tag.attributes.get("type")
            self.value_kind = kind if kind is not None else (
                "string" if key in self.string_keys.get(self.name, ()) else "")
            self._emit(out, ("{" if not self.keys_written else ", ") + json.dumps(key, ensure_ascii=False) + ": ")
            self.keys_written += 1
            self.value_started = False
            self.stage = "value"
        elif tag.opening and tag.name == "json":
            self.stage = "json"
        elif not tag.opening and tag.name == "call":
            self._close_call(out)
            self.stage = "calls"
        return True

    def _close_call(self, out: ParsedPiece) -> None:
        if not self.whole:
            self._emit(out, "}" if self.keys_written else "{}")

    def _value(self, out: ParsedPiece) -> bool:
        at = self.buffer.find(ARGUMENT_CLOSE)
        if at < 0:
            if self.value_kind == "string":  # stream what cannot be part of the close
                keep = partial_tail(self.buffer, ARGUMENT_CLOSE)
                self._stream(out, self.buffer[: len(self.buffer) - keep])
                self.buffer = self.buffer[len(self.buffer) - keep:]
            return False
        text = self.buffer[:at]
        self.buffer = self.buffer[at + len(ARGUMENT_CLOSE):]
        if self.value_kind == "string":
            self._stream(out, text)
            self._emit(out, '"' if self.value_started else '""')
        else:
            self._emit(out, as_json(text))
        self.stage = "arguments"
        return True

    def _stream(self, out: ParsedPiece, text: str) -> None:
        if not text:
            return
        self._emit(out, ("" if self.value_started else '"') + json.dumps(text, ensure_ascii=False)[1:-1])
        self.value_started = True

    def _json(self, out: ParsedPiece) -> bool:
        """A ``json`` block: the call's arguments whole, where no argument came before it."""
        at = self.buffer.find(_JSON_CLOSE)
        if at < 0:
            return False
        text = self.buffer[:at].strip()
        self.buffer = self.buffer[at + len(_JSON_CLOSE):]
        if not self.keys_written and not self.whole:
            try:
                whole = isinstance(json.loads(text), dict)
            except json.JSONDecodeError:
                whole = False
            self._emit(out, text if whole else "{}")
            self.whole = True
        self.stage = "arguments"
        return True
