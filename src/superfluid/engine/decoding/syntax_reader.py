"""The streaming reader of a call-syntax family (:mod:`.call_syntax`): calls read out of a reply as it arrives.

The reader is lenient where models are: whitespace around the pieces is skipped, and a value written on its
own line (Qwen3-Coder's ``<parameter=city>\\nParis\\n</parameter>``) loses those two newlines only.
"""

from __future__ import annotations

import json
import re

from superfluid.engine.decoding.call_syntax import PLACEHOLDER, CallSyntax, is_plain_string
from superfluid.engine.decoding.json_stream import ValueReader
from superfluid.engine.decoding.tool_calls import ParsedPiece, ToolCallDelta, ToolSpec, new_call_id


class _Piece:
    """A piece as the reader meets it: whitespace around it and between its parts is whatever the model wrote
    (GLM-family models differ on the newlines between ``</arg_key>`` and ``<arg_value>``), and a placeholder
    (Command's ``"tool_call_id": "{index}"``) is whatever position or id the model wrote there."""

    def __init__(self, text: str) -> None:
        bits = PLACEHOLDER.split(text)
        pattern = []
        for i, bit in enumerate(bits):
            if i % 2:
                pattern.append(r"\s*[0-9]+\s*" if bit == "index" else r"\s*[A-Za-z0-9]+\s*")
            elif bit.split():
                pattern.append(r"\s*".join(re.escape(p) for p in bit.split()))
        # What may_start compares with: the piece up to its first placeholder, and how long it may grow after.
        self.text = "".join(bits[0].split())
        self.rest = sum(len("".join(b.split())) + 12 for b in bits[1:])
        self.regex = re.compile(r"\s*".join(pattern)) if pattern else None

    def __bool__(self) -> bool:
        return bool(self.text)

    def find(self, buffer: str) -> tuple[int, int] | None:
        """Where the piece first appears: (start, end)."""
        found = self.regex.search(buffer) if self.regex else None
        return (found.start(), found.end()) if found else None

    def may_start(self, text: str) -> bool:
        """Whether ``text`` (whitespace aside) is the piece's beginning, not yet all of it (past a placeholder:
        it begins as the piece does and is not yet too long to be it)."""
        squashed = "".join(text.split())
        if len(squashed) < len(self.text):
            return self.text.startswith(squashed)
        return bool(self.rest) and squashed.startswith(self.text) and len(squashed) < len(self.text) + self.rest

    def take(self, buffer: str) -> int | bool | None:
        """At the buffer's start (after whitespace): the end of the piece there; None while the buffer may still
        grow into it; False when it cannot."""
        head = buffer.lstrip()
        found = self.regex.match(head) if self.regex else None
        if found:
            return len(buffer) - len(head) + found.end()
        return None if self.may_start(head) else False

    def held_back(self, buffer: str) -> int:
        """How much of the buffer's tail may still grow into the piece (and must wait)."""
        for size in range(min(len(buffer), len(self.text) * 2), 0, -1):
            tail = buffer[-size:]
            if not tail[0].isspace() and self.may_start(tail):
                return size
        return 0


def as_json(text: str) -> str:
    """A value written raw: itself where it reads as JSON, else a JSON string of it."""
    try:
        json.loads(text)
    except json.JSONDecodeError:
        return json.dumps(text, ensure_ascii=False)
    return text.strip()


class SyntaxReader:
    """Reads calls in one :class:`CallSyntax` out of a streamed reply, with the contract of
    :mod:`.tool_readers`: ``content`` for the client, ``ToolCallDelta``s in OpenAI's partial shape.

    String values stream as they arrive when the function's schema says they are strings (or DSML marks them
    so); other values are read whole, then written as JSON where they parse and as strings where they do not."""

    def __init__(self, syntax: CallSyntax, tools: tuple[ToolSpec, ...] = ()) -> None:
        self.s = syntax
        self.string_keys = {t.name: {k for k, v in ((t.parameters or {}).get("properties") or {}).items()
                                     if isinstance(v, dict) and is_plain_string(v)} for t in tools}
        self.trigger = _Piece(syntax.trigger)
        # Without a section the trigger is the call's opening; what it leaves of the opening comes after it.
        opening = syntax.call_open.strip()
        self.open = _Piece(opening if syntax.section_open else opening[len(syntax.trigger):])
        self.close = _Piece(syntax.call_close)
        self.section_close = _Piece(syntax.section_close)
        self.section_rest = _Piece(syntax.section_rest)
        self.sep = _Piece(syntax.call_sep)
        # The name ends where name_end starts; a placeholder in name_end (Kimi's position, Mistral's id) is
        # skipped up to the literal text after it.
        parts = PLACEHOLDER.split(syntax.name_end)
        self.name_stop = _Piece(parts[0])
        self.name_tail = _Piece(parts[-1]) if len(parts) > 1 else _Piece("")
        self.arg_open = _Piece(syntax.arg_open)
        self.mids = [_Piece(m) for m in (syntax.arg_mid, syntax.arg_mid_json) if m.strip()]
        self.arg_close = _Piece(syntax.arg_close)
        # Values on their own line (Qwen3-Coder): the newline after the key and the one before the close go.
        self.own_line = syntax.arg_mid.endswith("\n")
        self.buffer = ""
        self.stage = "text"
        self.calls_seen = 0
        self.name = ""
        self.keys_written = 0
        self.value_is_string = False
        self.value_streams = False
        self.value_started = False
        self.args = ValueReader()

    def feed(self, text: str) -> ParsedPiece:
        out = ParsedPiece()
        self.buffer += text
        while getattr(self, f"_{self.stage}")(out):
            pass
        return out

    def finish(self) -> ParsedPiece:
        rest = ParsedPiece()
        if self.stage == "text":
            rest.content, self.buffer = self.buffer, ""
        return rest

    def _emit(self, out: ParsedPiece, arguments: str) -> None:
        out.calls.append(ToolCallDelta(index=self.calls_seen - 1, arguments=arguments))

    def _skip(self, piece: _Piece, then: str) -> bool:
        """Drop the buffer up to and through ``piece`` and move to stage ``then``; False while it has not come."""
        found = piece.find(self.buffer)
        if found is None:
            return False
        self.buffer = self.buffer[found[1]:]
        self.stage = then
        return True

    # Each stage reads what it can and says whether to go on (True) or wait for more text (False).

    def _text(self, out: ParsedPiece) -> bool:
        found = self.trigger.find(self.buffer)
        if found is None:
            keep = self.trigger.held_back(self.buffer)
            out.content += self.buffer[: len(self.buffer) - keep]
            self.buffer = self.buffer[len(self.buffer) - keep:]
            return False
        out.content += self.buffer[: found[0]]
        self.buffer = self.buffer[found[1]:]
        self.stage = "section_rest" if self.s.section_open else "opening"
        return True

    def _section_rest(self, out: ParsedPiece) -> bool:
        """What the section's opening holds after its trigger, where the model wrote it."""
        return self._optional(self.section_rest, "section")

    def _section(self, out: ParsedPiece) -> bool:
        """Inside a section: another call, or the section's end."""
        if self.sep:
            taken = self.sep.take(self.buffer)
            if taken is None:
                return False
            if taken:
                self.buffer = self.buffer[taken:]
        closed = self.section_close.take(self.buffer) if self.section_close else False
        if closed:
            self.buffer = self.buffer[closed:]
            self.stage = "after"
            return True
        opened = self.open.take(self.buffer)
        if opened:
            self.buffer = self.buffer[opened:]
            self.stage = "name"
            return True
        if opened is None or closed is None:
            return False
        self.stage = "text"  # not a call after all: the rest is words
        return True

    def _optional(self, piece: _Piece, then: str) -> bool:
        """Drop ``piece`` where the buffer starts with it and move to stage ``then``; False while it may still be
        arriving."""
        taken = piece.take(self.buffer) if piece else False
        if taken is None:
            return False
        if taken:
            self.buffer = self.buffer[taken:]
        self.stage = then
        return True

    def _opening(self, out: ParsedPiece) -> bool:
        """The rest of a call's opening after the trigger (Qwen3-Coder's ``<function=``)."""
        return self._optional(self.open, "name")

    def _name(self, out: ParsedPiece) -> bool:
        head = self.buffer.lstrip()
        stops = [self.name_stop, self.close] + ([self.arg_open] if self.s.xml else [])
        ends = [found[0] for found in (p.find(head) for p in stops if p) if found is not None]
        if not ends and self.name_stop and self.name_stop.held_back(head):
            self.buffer = head  # the name's ending may be arriving (JSON objects' '", "arguments":')
            return False
        space = re.search(r"\s", head)
        if space is not None and space.start() > 0:
            ends.append(space.start())
        if not ends:
            self.buffer = head
            return False
        at = min(ends)
        self.name = head[:at].strip()
        self.buffer = head[at:]
        out.calls.append(ToolCallDelta(index=self.calls_seen, id=new_call_id(), name=self.name))
        self.calls_seen += 1
        self.keys_written = 0
        self.args = ValueReader()
        self.stage = "name_end"
        return True

    @property
    def _body(self) -> str:
        return "pairs" if self.s.xml else "arguments"

    def _name_end(self, out: ParsedPiece) -> bool:
        """What ends the name, where the family writes it (DeepSeek R1's fence may come after a newline)."""
        return self._optional(self.name_stop, "name_tail" if self.name_tail else self._body)

    def _name_tail(self, out: ParsedPiece) -> bool:
        """What follows a placeholder in the name's ending (Kimi's ``<|tool_call_argument_begin|>``)."""
        return self._skip(self.name_tail, self._body)

    def _arguments(self, out: ParsedPiece) -> bool:
        value, rest = self.args.feed_trimmed(self.buffer)
        self.buffer = ""
        if value:
            self._emit(out, value)
        if not self.args.done:
            return False
        self.buffer = rest
        self.stage = "call_close"
        return True

    def _pairs(self, out: ParsedPiece) -> bool:
        """Another key/value pair, or the end of the call."""
        taken = self.arg_open.take(self.buffer)
        if taken:
            self.buffer = self.buffer[taken:]
            self.stage = "key"
            return True
        if taken is None and not self.close.take(self.buffer):
            return False
        self._emit(out, "}" if self.keys_written else "{}")
        self.stage = "call_close"
        return True

    def _key(self, out: ParsedPiece) -> bool:
        found = [(span, i) for i, span in enumerate(m.find(self.buffer) for m in self.mids) if span is not None]
        if not found:
            return False
        (start, end), which = min(found)
        key = self.buffer[:start].strip()
        self.buffer = self.buffer[end:]
        known = self.string_keys.get(self.name)
        if len(self.mids) > 1:
            self.value_is_string = which == 0
            self.value_streams = self.value_is_string
        else:
            self.value_is_string = known is None or key in known
            self.value_streams = known is not None and key in known
        self._emit(out, ("{" if not self.keys_written else ", ") + json.dumps(key, ensure_ascii=False) + ": ")
        self.keys_written += 1
        self.value_started = False
        self.stage = "value"
        return True

    def _value(self, out: ParsedPiece) -> bool:
        found = self.arg_close.find(self.buffer)
        if found is None:
            if self.value_streams:
                # Stream what cannot be part of the close (nor the newline a value on its own line ends with).
                ready = self.buffer[: len(self.buffer) - self.arg_close.held_back(self.buffer)]
                if self.own_line and ready.endswith("\n"):
                    ready = ready[:-1]
                self._stream(out, ready)
                self.buffer = self.buffer[len(ready):]
            return False
        text = self.buffer[: found[0]]
        self.buffer = self.buffer[found[1]:]
        if self.own_line:
            text = text.removesuffix("\n")
        if self.value_streams:
            self._stream(out, text)
            self._emit(out, '"' if self.value_started else '""')
        else:
            self._emit(out, as_json(text.removeprefix("\n") if self.own_line else text))
        self.stage = "pairs"
        return True

    def _stream(self, out: ParsedPiece, text: str) -> None:
        if not text:
            return
        if not self.value_started:
            text = text.removeprefix("\n") if self.own_line else text
            self.value_started = True
            self._emit(out, '"' + json.dumps(text, ensure_ascii=False)[1:-1])
        else:
            self._emit(out, json.dumps(text, ensure_ascii=False)[1:-1])

    def _call_close(self, out: ParsedPiece) -> bool:
        then = "section" if self.s.section_open else "after"
        if not self.close:
            self.stage = then
            return True
        return self._skip(self.close, then)

    def _after(self, out: ParsedPiece) -> bool:
        """Whitespace after the calls is not content; anything else is words again (another call may follow)."""
        self.buffer = self.buffer.lstrip()
        if not self.buffer:
            return False
        self.stage = "text"
        return True
