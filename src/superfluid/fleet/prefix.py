"""What the fleet head knows of each replica's prefix cache: block hashes of the conversations it routed there.

The head does not hold the model, so it cannot render the chat template or tokenize. It renders a request's
conversation canonically instead (model, tools, then every message's role and text, in order) and hashes that
text in fixed-size blocks, each hash chained to the one before it. A continued conversation renders to the
same text plus more, so its leading block hashes are those of every earlier turn: a chain of hashes is a path in
a prefix tree of blocks, and a set of hashes per replica is that tree, flattened (vLLM's block hashing works the
same way on token ids). Block boundaries fall every ``block_chars`` bytes of UTF-8 (about 16 tokens by default);
the last, partial block is hashed too, so that a short prompt sent again finds where it went.

Each replica's set is bounded (least recently used blocks are forgotten first), so the head's view ages the
way the replica's own cache does: approximately.
"""

from __future__ import annotations

import hashlib
import json
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from typing import Any

BLOCK_CHARS = 64
"""Characters per hashed block: about 16 tokens of English text."""

CAPACITY_BLOCKS = 65536
"""Blocks remembered per replica (about a million tokens of conversations) before the oldest are forgotten."""

IMBALANCE = 4
"""Requests in flight by which the best-matching replica may exceed the least busy one and still be chosen."""

MIN_MATCH = 0.1
"""Share of a prompt's blocks a replica must hold to count as a match: a shared opening (the model's name, a
common first sentence) alone does not pull every request to one replica."""

PREFIX_KWARG = "prefix"
"""Keyword argument of the replica call that carries the request's block hashes."""

_ROLE_MARK = "\x1e"
_FIELD_MARK = "\x1f"


def _text(value: Any) -> str:
    """The text of a message's content: a string, or the text of its parts (images and audio count by kind)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "".join(_text(part) for part in value)
    if isinstance(value, dict):
        for key in ("text", "content", "input", "output", "arguments"):
            if key in value:
                return _text(value[key])
        return f"<{value.get('type', 'part')}>"
    return json.dumps(value, sort_keys=True)


def _messages(items: Iterable[Any]) -> str:
    parts = []
    for item in items:
        if isinstance(item, dict):
            role = str(item.get("role") or item.get("type") or "")
            calls = item.get("tool_calls")
            extra = json.dumps(calls, sort_keys=True) if calls else ""
            parts.append(role + _FIELD_MARK + _text(item.get("content", item)) + extra + _ROLE_MARK)
        else:
            parts.append(_text(item) + _ROLE_MARK)
    return "".join(parts)


def conversation_text(path: str, body: Any) -> str:
    """The canonical rendering of a request's prompt on ``path``; empty when the request has no prompt."""
    if not isinstance(body, dict):
        return ""
    head = str(body.get("model", "")) + _FIELD_MARK
    if body.get("tools"):
        head += json.dumps(body["tools"], sort_keys=True) + _FIELD_MARK
    if path == "/v1/messages":
        system = body.get("system")
        return head + "system" + _FIELD_MARK + _text(system) + _ROLE_MARK + _messages(body.get("messages") or ())
    if path == "/v1/responses":
        instructions = body.get("instructions")
        items = body.get("input")
        text = _text(items) if isinstance(items, str) else _messages(items or ())
        return head + "instructions" + _FIELD_MARK + _text(instructions) + _ROLE_MARK + text
    if path == "/v1/completions":
        prompt = body.get("prompt")
        return head + (prompt if isinstance(prompt, str) else "")
    if "messages" in body and isinstance(body["messages"], list):
        return head + _messages(body["messages"])
    return ""


def block_hashes(text: str, block_chars: int = BLOCK_CHARS) -> tuple[int, ...]:
    """Chained 64-bit hashes of ``text``'s blocks of ``block_chars`` bytes (the last may be shorter)."""
    hashes: list[int] = []
    previous = b""
    data = text.encode("utf-8", "surrogatepass")
    width = block_chars
    for start in range(0, len(data), width):
        digest = hashlib.blake2b(previous + data[start:start + width], digest_size=8).digest()
        hashes.append(int.from_bytes(digest, "big"))
        previous = digest
    return tuple(hashes)


class PrefixIndex:
    """Per replica, the block hashes routed to it, least recently used first, at most ``capacity`` of them."""

    def __init__(self, capacity: int = CAPACITY_BLOCKS) -> None:
        self.capacity = capacity
        self._blocks: dict[str, OrderedDict[int, None]] = {}

    def replicas(self) -> list[str]:
        return list(self._blocks)

    def match(self, replica: str, hashes: Sequence[int]) -> int:
        """How many leading blocks of ``hashes`` the replica holds."""
        held = self._blocks.get(replica)
        if not held:
            return 0
        count = 0
        for block in hashes:
            if block not in held:
                break
            count += 1
        return count

    def record(self, replica: str, hashes: Sequence[int]) -> None:
        """The request with ``hashes`` went to ``replica``: its blocks are now the replica's freshest."""
        held = self._blocks.setdefault(replica, OrderedDict())
        for block in hashes:
            held[block] = None
            held.move_to_end(block)
        while len(held) > self.capacity:
            held.popitem(last=False)

    def forget(self, replica: str) -> None:
        """The replica is gone (died, or scaled down): nothing is warm there any more."""
        self._blocks.pop(replica, None)

    def size(self, replica: str) -> int:
        return len(self._blocks.get(replica, ()))
