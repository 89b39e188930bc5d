"""Cutting a long text that holds many special tokens into parts llama.cpp tokenizes the same way.

Before tokenizing, llama.cpp splits a text at the special tokens it contains (role markers such as
``<|im_start|>``) and tokenizes the plain text between them piece by piece. That split searches from each piece
to the end of the whole text, so its time grows with (special tokens in the text) x (the text's length): a
rendered conversation of 20,000 short messages (40,000 markers, 600 KB) took 15-20 s of CPU, while the same text
without markers took 60 ms. Cut right before a special token, in parts of a few KB, the text is tokenized in time
that grows with its length only, and the tokens are the same, as long as every cut is one llama.cpp's own split
makes too:

* no other special token's text overlaps the one the part starts with (llama.cpp matches longer ones first, so
  an overlap could move its boundary), and
* that special token does not strip the whitespace before it (an ``lstrip`` token takes spaces from the end of
  the part before, which llama.cpp does only when it sees both).

Text with no special tokens is one part: the slow search needs special tokens to be slow.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

PART_CHARS = 8192
"""Parts are at least this long (the last one aside); below it per-call overhead outweighs the search cost."""


class SpecialSplitter:
    """Where a text may be cut for tokenizing, from a vocabulary's special tokens: (text, strips space before)."""

    def __init__(self, specials: Iterable[tuple[str, bool]]) -> None:
        listed = list(specials)
        stripping = {text for text, strips in listed if strips}
        every = sorted({text for text, _ in listed if text}, key=len, reverse=True)
        cuttable = [text for text in every if text not in stripping]
        self.longest = len(every[0]) if every else 0
        self._cut = re.compile("|".join(map(re.escape, cuttable))) if cuttable else None
        self._starts = re.compile("(?=(" + "|".join(map(re.escape, every)) + "))") if every else None
        """At each position where a special token starts, the longest one there (group 1)."""

    def parts(self, text: str, size: int = PART_CHARS) -> Iterator[str]:
        """``text`` in consecutive parts of at least ``size`` characters (the last may be shorter); joined, the
        parts are the text, and each after the first starts with a special token at a clean cut."""
        start = 0
        while self._cut is not None and len(text) - start > 2 * size:
            match = self._cut.search(text, start + size)
            while match is not None and not self._clean(text, match.start(), match.end()):
                match = self._cut.search(text, match.start() + 1)
            if match is None:
                break
            yield text[start:match.start()]
            start = match.start()
        yield text[start:]

    def _clean(self, text: str, begin: int, end: int) -> bool:
        """Whether no special token other than the one at ``begin`` overlaps it."""
        assert self._starts is not None
        for other in self._starts.finditer(text, max(0, begin - self.longest + 1)):
            start = other.start()
            if start >= end:
                return True
            if start < begin < start + len(other.group(1)) or begin < start:
                return False
        return True
