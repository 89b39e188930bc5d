import random

from superfluid.engine.scheduling.speculation import DraftIndex, lookup_draft


def test_no_draft_without_a_long_enough_repeat() -> None:
    assert lookup_draft([1, 2, 3, 4, 5, 1, 2, 3], 4, min_match=4) == []
    assert lookup_draft([1, 2, 3], 4, min_match=4) == []


def test_draft_follows_the_latest_earlier_occurrence() -> None:
    seq = [7, 1, 2, 3, 4, 9, 9, 1, 2, 3, 4, 8, 6, 1, 2, 3, 4]
    assert lookup_draft(seq, 2, min_match=4) == [8, 6]
    assert lookup_draft(seq, 10, min_match=4) == [8, 6, 1, 2, 3, 4]


def test_draft_is_capped_and_can_be_off() -> None:
    seq = [1, 2, 3, 1, 2, 3, 1, 2, 3]
    assert lookup_draft(seq, 1, min_match=3) == [1]
    assert lookup_draft(seq, 0, min_match=3) == []


def test_matches_only_on_token_boundaries() -> None:
    # Byte patterns that line up across token boundaries must not count as a repeat.
    seq = [0x01000000, 0x00000002, 5, 0x02000000, 0x00000000, 0x01000000, 0x00000002]
    assert lookup_draft(seq, 2, min_match=2) == [5, 0x02000000]
    tricky = [0x00010000, 0x00000200, 0x00000100, 0x00020000]
    assert lookup_draft([*tricky, 0x00000100, 0x00020000], 1, min_match=2) == [0x00000100]


def test_large_token_ids() -> None:
    seq = [150000, 2, 150000, 2, 150000]
    assert lookup_draft(seq, 3, min_match=2) == [2, 150000]


def test_the_bigram_index_drafts_exactly_what_the_full_lookup_drafts() -> None:
    """Grown token by token, with tails cut off now and then (rejected drafts), as a lane's sequence is."""
    rng = random.Random(7)
    index, tokens = DraftIndex(), [rng.randrange(6) for _ in range(20)]
    drafted = 0
    for _ in range(3000):
        nxt = tokens[-10] if rng.random() < 0.9 else rng.randrange(6)  # mostly a 10-token cycle
        got = index.draft(tokens, nxt, 4)
        assert got == lookup_draft([*tokens, nxt], 4)
        drafted += bool(got)
        tokens.append(nxt)
        if rng.random() < 0.05:
            del tokens[-rng.randrange(1, 4):]
    assert 300 < drafted < 2700  # both answers are exercised
    assert index.draft(tokens, 0, 0) == []
