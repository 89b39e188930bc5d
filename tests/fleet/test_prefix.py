"""Canonical conversation text, chained block hashes and the per-replica index."""

from __future__ import annotations

from superfluid.fleet.prefix import PrefixIndex, block_hashes, conversation_text

SYSTEM = "You are a careful assistant. " * 20


def _chat(*turns: str) -> dict[str, object]:
    messages = [{"role": "system", "content": SYSTEM}]
    messages += [{"role": "user" if i % 2 == 0 else "assistant", "content": t} for i, t in enumerate(turns)]
    return {"model": "m", "messages": messages}


def test_a_continued_conversation_keeps_the_hashes_of_its_earlier_turns() -> None:
    first = block_hashes(conversation_text("/v1/chat/completions", _chat("Hello")))
    later = block_hashes(conversation_text("/v1/chat/completions", _chat("Hello", "Hi!", "How are you?")))
    whole = len(first) - 1  # the partial last block of the first turn is not a prefix block of the later one
    assert whole > 5 and later[:whole] == first[:whole]


def test_hashes_are_chained_so_equal_blocks_at_different_places_differ() -> None:
    hashes = block_hashes("a" * 64 * 3, 64)
    assert len(hashes) == 3 and len(set(hashes)) == 3


def test_a_short_prompt_still_has_one_block() -> None:
    assert len(block_hashes("hi", 64)) == 1
    assert block_hashes("", 64) == ()


def test_each_dialect_renders_its_own_prompt_fields() -> None:
    anthropic = conversation_text("/v1/messages", {"model": "m", "system": [{"type": "text", "text": "S"}],
                                                   "messages": [{"role": "user", "content": "U"}]})
    assert "S" in anthropic and "U" in anthropic
    responses = conversation_text("/v1/responses", {"model": "m", "instructions": "I", "input": "U"})
    assert "I" in responses and "U" in responses
    assert conversation_text("/v1/completions", {"model": "m", "prompt": "P"}).endswith("P")
    assert conversation_text("/v1/embeddings", {"model": "m", "input": "x"}) == ""
    assert conversation_text("/v1/chat/completions", ["not", "an", "object"]) == ""


def test_tools_and_model_are_part_of_the_prefix() -> None:
    plain = conversation_text("/v1/chat/completions", _chat("Hello"))
    tooled = conversation_text("/v1/chat/completions", {**_chat("Hello"), "tools": [{"type": "function"}]})
    other = conversation_text("/v1/chat/completions", {**_chat("Hello"), "model": "n"})
    assert block_hashes(plain)[0] != block_hashes(tooled)[0] != block_hashes(other)[0]


def test_the_index_matches_leading_blocks_and_forgets_the_oldest() -> None:
    index = PrefixIndex(capacity=4)
    index.record("r1", (1, 2, 3))
    assert index.match("r1", (1, 2, 9)) == 2
    assert index.match("r1", (9, 1, 2)) == 0
    assert index.match("r2", (1,)) == 0
    index.record("r1", (7, 8))  # five blocks held: 1, the least recently used, goes
    assert index.size("r1") == 4 and index.match("r1", (1, 2)) == 0 and index.match("r1", (7, 8)) == 2
    index.forget("r1")
    assert index.replicas() == [] and index.match("r1", (7,)) == 0
