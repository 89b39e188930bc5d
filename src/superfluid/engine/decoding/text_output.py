"""From sampled token bytes to client text: UTF-8 reassembly, stop strings, the reasoning split and the answer
tags some templates wrap the content in (Granite 3.3's ``<response>``)."""

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


class AnswerTags:
    """Takes out the tags a reply wraps its answer in (``<response>`` ... ``</response>``, as Granite 3.3's thinking
    prompt asks for), as llama.cpp's Granite parser does: an opening that starts the content (after whitespace,
    which goes with it) and the first closing after it. Content that does not start so passes unchanged.

    A stream transformer over content text: ``take`` returns what is safe to send now, holding back a tail that
    may still become a tag (and leading whitespace until the content shows whether the opening follows);
    ``finish`` returns what is held, at the end of the reply. A reply cut off inside the block keeps its text; a
    closing tag it was cut off in is dropped (held text there is a prefix of the closing tag), while whitespace or
    a partial opening held at the start is content after all.
    """

    def __init__(self, tags: tuple[str, str]) -> None:
        self._open, self._close = tags
        self._held = ""
        self._state = "start"  # start: nothing but whitespace yet; inside: opening taken; done: pass through

    @property
    def passing(self) -> bool:
        """Nothing is held and nothing more will be: text goes through as it is."""
        return self._state == "done"

    def take(self, text: str) -> str:
        if self._state == "done":
            return text
        text, self._held = self._held + text, ""
        if self._state == "start":
            head = text.lstrip()
            if head.startswith(self._open):
                self._state, text = "inside", head[len(self._open):]
            elif not head or self._open.startswith(head):
                self._held = text
                return ""
            else:
                self._state = "done"
                return text
        at = text.find(self._close)
        if at >= 0:
            self._state = "done"
            return text[:at] + text[at + len(self._close):]
        keep = _partial_suffix(text, (self._close,))
        self._held = text[len(text) - keep:]
        return text[: len(text) - keep]

    def finish(self) -> str:
        held, self._held = self._held, ""
        return held if self._state == "start" else ""


@dataclass
class Piece:
    content: str = ""
    reasoning: str = ""

    def __bool__(self) -> bool:
        return bool(self.content or self.reasoning)


class TextOutput:
    """Feeds on token bytes; yields text that is safe to send, holding back what might become a stop string.

    With ``thinking`` on, text between ``<think>`` and ``</think>`` (or the template's own ``markers``) goes to
    ``reasoning``. With ``answer_tags``, the content's wrapping tags are taken out (:class:`AnswerTags`).
    """

    def __init__(self, stops: tuple[str, ...], *, thinking: bool, in_reasoning: bool = False,
                 markers: tuple[str, str] = (THINK_OPEN, THINK_CLOSE),
                 answer_tags: tuple[str, str] | None = None) -> None:
        self._open, self._close = markers
        self._answer = AnswerTags(answer_tags) if answer_tags else None
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
        if not (self._stops or self._thinking or self._held or self._tagged):  # plain text: nothing to hold or split
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

    @property
    def _tagged(self) -> bool:
        return self._answer is not None and not self._answer.passing

    def _split(self, text: str, *, final: bool) -> Piece:
        out = Piece()
        self._route(out, text, final=final)
        if final and self._answer is not None:
            out.content += self._answer.finish()
        return out

    def _route(self, out: Piece, text: str, *, final: bool) -> None:
        while text:
            if not self._thinking:
                keep = 0 if final else _partial_suffix(text, self._stops)
                self._content(out, text[: len(text) - keep])
                self._held = text[len(text) - keep:]
                return
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
            return

    def _emit(self, out: Piece, text: str) -> None:
        if self._in_reasoning:
            out.reasoning += text
            return
        if self._trim_newlines:
            text = text.lstrip("\n")
            if not text:
                return
            self._trim_newlines = False
        self._content(out, text)

    def _content(self, out: Piece, text: str) -> None:
        out.content += self._answer.take(text) if self._answer is not None and text else text
