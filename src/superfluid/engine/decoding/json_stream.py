"""Reading JSON as it streams in: a string's decoded text, and where one value ends."""

from __future__ import annotations

import json


class JsonStringReader:
    """Decodes the body of a JSON string as it streams in; stops at the closing quote."""

    def __init__(self) -> None:
        self.pending = ""
        self.closed = False

    def feed(self, text: str) -> tuple[str, str]:
        """Returns (decoded text ready to emit, text after the closing quote)."""
        data = self.pending + text
        self.pending = ""
        out: list[str] = []
        i = 0
        while i < len(data):
            ch = data[i]
            if ch == '"':
                self.closed = True
                return "".join(out), data[i + 1:]
            if ch == "\\":
                need = 6 if data[i + 1: i + 2] == "u" else 2
                if need == 6 and len(data) - i >= 6 and 0xD800 <= int(data[i + 2: i + 6], 16) <= 0xDBFF:
                    need = 12  # a surrogate pair is decoded whole
                if len(data) - i < need:
                    self.pending = data[i:]
                    break
                out.append(json.loads('"' + data[i: i + need] + '"'))
                i += need
                continue
            out.append(ch)
            i += 1
        return "".join(out), ""


class ValueReader:
    """Finds where one JSON value ends in a stream, passing its text through.

    A scalar ends before a comma, a newline, or one of ``closers`` (the brackets of the container it sits in;
    ``)`` for keyword arguments)."""

    def __init__(self, closers: str = "}]") -> None:
        self.closers = closers
        self.depth = 0
        self.in_string = False
        self.escaped = False
        self.started = False
        self.done = False

    def feed(self, text: str) -> tuple[str, str]:
        """Returns (value text, text after the value)."""
        for i, ch in enumerate(text):
            if self.in_string:
                if self.escaped:
                    self.escaped = False
                elif ch == "\\":
                    self.escaped = True
                elif ch == '"':
                    self.in_string = False
                    if self.depth == 0:
                        self.done = True
                        return text[: i + 1], text[i + 1:]
                continue
            if ch == '"':
                self.in_string = True
                self.started = True
            elif ch in "{[":
                self.depth += 1
                self.started = True
            elif self.depth == 0 and (ch in self.closers or ch in "}]"):  # a scalar ends where its container closes
                self.done = True
                return text[:i], text[i:]
            elif ch in "}]":
                self.depth -= 1
                if self.depth == 0:
                    self.done = True
                    return text[: i + 1], text[i + 1:]
            elif ch in ",\n" and self.started and self.depth == 0:
                self.done = True
                return text[:i], text[i:]
            elif not ch.isspace():
                self.started = True
        return text, ""

    def feed_trimmed(self, text: str) -> tuple[str, str]:
        """Like feed, dropping whitespace before the value starts."""
        if not self.started:
            text = text.lstrip()
        return self.feed(text)
