"""From sampled token bytes to client text: UTF-8 reassembly, stop strings and the reasoning split."""

from __future__ import annotations

import codecs
from dataclasses import dataclass

THINK_OPEN = "<think>"
THINK_CLOSE = "</think>"


def _partial_suffix(text: str, needles: tuple[str, ...]) -> int:
    """Length of the longest tail of ``text`` that is a proper prefix of one of ``needles``."""
    best = 0
    for needle in needles:
        for size in range(min(len(needle) - 1, len(text)), best, -1):
            if text.endswith(needle[:size]):
                best = size
                break
    return best


@dataclass
class Piece:
    content: str = ""
    reasoning: str = ""

    def __bool__(self) -> bool:
        return bool(self.content or self.reasoning)


class TextOutput:
    """Feeds on token bytes; yields text that is safe to send, holding back what might become a stop string.

    With ``thinking`` on, text between ``<think>`` and ``</think>`` (or the template's own ``markers``) goes to
    ``reasoning``.
    """

    def __init__(self, stops: tuple[str, ...], *, thinking: bool, in_reasoning: bool = False,
                 markers: tuple[str, str] = (THINK_OPEN, THINK_CLOSE)) -> None:
        self._open, self._close = markers
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._stops = tuple(s for s in stops if s)
        self._thinking = thinking
        self._in_reasoning = in_reasoning
        self._held = ""
        self._trim_newlines = False
        self.stopped = False
        self.stop_sequence: str | None = None
        """The stop string that ended the reply, once one did."""

    @property
    def in_reasoning(self) -> bool:
        """Text fed now goes to reasoning (a reasoning block is open)."""
        return self._in_reasoning

    def feed(self, data: bytes) -> Piece:
        if self.stopped:
            return Piece()
        if not (self._stops or self._thinking or self._held):  # plain text: nothing to hold back or split
            return Piece(content=self._decoder.decode(data))
        text = self._held + self._decoder.decode(data)
        self._held = ""
        if self._stops:
            found = [(at, stop) for stop in self._stops if (at := text.find(stop)) >= 0]
            if found:
                cut, self.stop_sequence = min(found, key=lambda hit: hit[0])
                self.stopped = True
                return self._split(text[:cut], final=True)
        return self._split(text, final=False)

    def flush(self) -> Piece:
        """Everything still held back, at the end of generation."""
        if self.stopped:
            return Piece()
        text = self._held + self._decoder.decode(b"", final=True)
        self._held = ""
        return self._split(text, final=True)

    def _split(self, text: str, *, final: bool) -> Piece:
        out = Piece()
        while text:
            if not self._thinking:
                keep = 0 if final else _partial_suffix(text, self._stops)
                out.content += text[: len(text) - keep]
                self._held = text[len(text) - keep:]
                return out
            marker = self._close if self._in_reasoning else self._open
            at = text.find(marker)
            if at >= 0:
                self._emit(out, text[:at])
                self._in_reasoning = not self._in_reasoning
                self._trim_newlines = not self._in_reasoning
                text = text[at + len(marker):]
                continue
            keep = 0 if final else _partial_suffix(text, (marker, *self._stops))
            self._emit(out, text[: len(text) - keep])
            self._held = text[len(text) - keep:]
            return out
        return out

    def _emit(self, out: Piece, text: str) -> None:
        if self._in_reasoning:
            out.reasoning += text
            return
        if self._trim_newlines:
            text = text.lstrip("\n")
            if not text:
                return
            self._trim_newlines = False
        out.content += text
