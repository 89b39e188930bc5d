"""Functionary v3.2's replies: a run of messages, each ``>>>RECIPIENT\\nBODY``, where the recipient ``all`` is the
text for the user and any other recipient is a function whose body is its arguments JSON::

    all\\nLet me check.>>>get_weather\\n{"city": "Paris"}>>>get_time\\n{}

The template's generation prompt already ends with the first ``>>>``, so a reply starts at a recipient; a
``>>>`` the model writes there anyway is read past. Also the format's writing and its grammar.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from superfluid.engine.decoding.call_object_reader import partial_tail
from superfluid.engine.decoding.grammar import closed_objects
from superfluid.engine.decoding.grammar import lark_json as _json
from superfluid.engine.decoding.grammar import lark_literal as _lit
from superfluid.engine.decoding.json_stream import ValueReader
from superfluid.engine.decoding.tool_calls import ParsedPiece, ToolCallDelta, ToolSpec, new_call_id
from superfluid.errors import ConstraintUnsatisfiable

RECIPIENT = ">>>"
TEXT_RECIPIENT = "all"
_NAME = re.compile(r"[^\s>]+")
_LONGEST_NAME = 128
"""A first line longer than this without a newline is words, not a recipient."""


def write_functionary_v3_2(calls: list[tuple[str, Mapping[str, Any]]]) -> str:
    """Calls as the template writes an assistant turn's calls (each behind its own ``>>>``)."""
    return "".join(f"{RECIPIENT}{name}\n{json.dumps(dict(arguments), ensure_ascii=False)}" for name, arguments in calls)


def functionary_v3_2_lark(tools: tuple[ToolSpec, ...], *, parallel: bool, auto: bool, param: str) -> str:
    """The grammar of a reply after the prompt's ``>>>``: calls, and with ``auto`` the text message first (or
    only). Text cannot hold ``>>>``, which starts the next message."""
    rules = []
    for i, tool in enumerate(tools):
        if not _NAME.fullmatch(tool.name) or tool.name == TEXT_RECIPIENT:
            raise ConstraintUnsatisfiable(f"'{tool.name}' cannot be a Functionary recipient", param=param)
        arguments = _json(closed_objects(tool.parameters or {"type": "object"}))
        rules.append(f"c{i}: {_lit(tool.name + chr(10))} {arguments}")
    calls = f'call ({_lit(RECIPIENT)} call)*' if parallel else "call"
    said = _lit(TEXT_RECIPIENT + "\n")
    start = f"start: {said} said {calls} | {said} TEXT | {calls}" if auto else f"start: {calls}"
    # Words then calls: the words end at the >>> that starts the calls (written as the suffix of `said`).
    text = [f"said[suffix={_lit(RECIPIENT)}]: /(.|\\n)*/", "TEXT: /([^>]|>[^>]|>>[^>])*/"] if auto else []
    return "\n".join([start, f"call: {' | '.join(f'c{i}' for i in range(len(tools)))}", *rules, *text]) + "\n"


class FunctionaryV32Reader:
    """Reads a Functionary v3.2 reply as it streams: ``all`` messages are content, the others calls whose
    arguments stream as fragments of their JSON."""

    def __init__(self) -> None:
        self.buffer = ""
        self.stage = "recipient"
        self.calls_seen = 0
        self.args = ValueReader()

    def feed(self, text: str) -> ParsedPiece:
        out = ParsedPiece()
        self.buffer += text
        while self.buffer and getattr(self, f"_{self.stage}")(out):
            pass
        return out

    def finish(self) -> ParsedPiece:
        rest = ParsedPiece()
        if self.stage in ("text", "recipient"):
            rest.content, self.buffer = self.buffer, ""
        return rest

    def _recipient(self, out: ParsedPiece) -> bool:
        """A message's recipient, up to its newline."""
        head = self.buffer.lstrip()
        if RECIPIENT.startswith(head):
            return False  # the >>> the model may write itself, still arriving
        head = head.removeprefix(RECIPIENT)
        at = head.find("\n")
        name = head[:at] if at >= 0 else head
        if not _NAME.fullmatch(name) or len(name) > _LONGEST_NAME:
            self.buffer, self.stage = head, "text"  # not a recipient: words
            return True
        if at < 0:
            return False
        self.buffer = head[at + 1:]
        if name == TEXT_RECIPIENT:
            self.stage = "text"
        else:
            out.calls.append(ToolCallDelta(index=self.calls_seen, id=new_call_id(), name=name))
            self.calls_seen += 1
            self.args = ValueReader()
            self.stage = "arguments"
        return True

    def _text(self, out: ParsedPiece) -> bool:
        at = self.buffer.find(RECIPIENT)
        if at < 0:
            keep = partial_tail(self.buffer, RECIPIENT)
            out.content += self.buffer[: len(self.buffer) - keep]
            self.buffer = self.buffer[len(self.buffer) - keep:]
            return False
        out.content += self.buffer[:at]
        self.buffer = self.buffer[at:]
        self.stage = "recipient"
        return True

    def _arguments(self, out: ParsedPiece) -> bool:
        value, rest = self.args.feed_trimmed(self.buffer)
        self.buffer = ""
        if value:
            out.calls.append(ToolCallDelta(index=self.calls_seen - 1, arguments=value))
        if not self.args.done:
            return False
        self.buffer = rest.lstrip()
        self.stage = "recipient"
        return True
