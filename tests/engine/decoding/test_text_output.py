"""TextOutput: bytes in, client-safe text out (UTF-8 reassembly, stop strings, the <think> split, answer tags)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest

from superfluid.engine.decoding.text_output import Piece, TextOutput
from superfluid.engine.models.chat_template import ChatTemplate


def _run(output: TextOutput, pieces: Iterable[str | bytes]) -> tuple[list[Piece], Piece]:
    fed = [output.feed(p.encode() if isinstance(p, str) else p) for p in pieces]
    return fed, output.flush()


def _joined(fed: list[Piece], tail: Piece) -> tuple[str, str]:
    content = "".join(p.content for p in fed) + tail.content
    reasoning = "".join(p.reasoning for p in fed) + tail.reasoning
    return content, reasoning


def _plain(stops: tuple[str, ...] = ()) -> TextOutput:
    return TextOutput(stops, thinking=False)


def _thinking(stops: tuple[str, ...] = (), *, in_reasoning: bool = False) -> TextOutput:
    return TextOutput(stops, thinking=True, in_reasoning=in_reasoning)


# --- UTF-8 -------------------------------------------------------------------------------------------


def test_plain_text_goes_straight_through() -> None:
    out = _plain()
    assert out.feed(b"Hello").content == "Hello"
    assert out.feed(b", world").content == ", world"
    assert not out.flush()


def test_two_byte_character_split_over_two_tokens() -> None:
    raw = "é".encode()
    out = _plain()
    first = out.feed(raw[:1])
    assert first.content == ""
    assert not first
    assert out.feed(raw[1:]).content == "é"


def test_four_byte_character_split_byte_by_byte() -> None:
    raw = "a🙂b".encode()
    fed, tail = _run(_plain(), [raw[i:i + 1] for i in range(len(raw))])
    assert [p.content for p in fed] == ["a", "", "", "", "🙂", "b"]
    assert _joined(fed, tail) == ("a🙂b", "")


def test_dangling_bytes_at_the_end_become_a_replacement_character() -> None:
    out = _plain()
    assert out.feed("x€".encode()[:-1]).content == "x"
    assert out.flush().content == "\ufffd"


# --- stop strings -------------------------------------------------------------------------------------


def test_stop_string_is_cut_out_with_everything_after_it() -> None:
    out = _plain(("STOP",))
    assert out.feed(b"Hello STOP world").content == "Hello "
    assert out.stopped
    assert not out.feed(b"more")
    assert not out.flush()


def test_partial_stop_is_held_back_then_released_when_it_does_not_complete() -> None:
    out = _plain(("STOP",))
    assert out.feed(b"Hello ST").content == "Hello "
    assert out.feed(b"ART").content == "START"
    assert not out.stopped


def test_stop_split_across_pieces() -> None:
    fed, tail = _run(_plain(("STOP",)), ["The end is S", "T", "O", "P and more"])
    assert _joined(fed, tail) == ("The end is ", "")
    assert all("S" not in p.content for p in fed)


def test_stop_completed_inside_a_later_piece_after_held_text() -> None:
    out = _plain(("</s>",))
    assert out.feed(b"answer<").content == "answer"
    assert out.feed(b"/").content == ""
    assert out.feed(b"s> trailing").content == ""
    assert out.stopped


def test_earliest_of_several_stops_wins() -> None:
    out = _plain(("STOP", "END"))
    assert out.feed(b"one END two STOP three").content == "one "
    assert out.stopped
    assert out.stop_sequence == "END"


def test_the_stop_string_that_matched_is_named_only_once_one_did() -> None:
    out = _plain(("STOP", "END"))
    out.feed(b"no stop ST")
    assert out.stop_sequence is None
    out.feed(b"OP here")
    assert out.stop_sequence == "STOP"
    assert _plain(("STOP",)).stop_sequence is None


def test_several_stops_hold_back_the_longest_partial_match() -> None:
    out = _plain(("\n\n", "User:"))
    assert out.feed(b"hi\nUs").content == "hi\n"
    assert out.feed(b"er").content == ""
    assert out.feed(b": next").content == ""
    assert out.stopped


def test_repeated_prefix_characters_are_released_as_the_match_slides() -> None:
    fed, tail = _run(_plain(("aab",)), ["a", "a", "a", "b", "c"])
    assert _joined(fed, tail) == ("a", "")


def test_flush_releases_a_held_partial_stop() -> None:
    out = _plain(("STOP",))
    assert out.feed(b"abc STO").content == "abc "
    tail = out.flush()
    assert tail.content == "STO"
    assert not out.stopped


def test_empty_stop_strings_are_ignored() -> None:
    out = _plain(("",))
    assert out.feed(b"abc").content == "abc"
    assert not out.stopped


def test_multibyte_stop_string_split_inside_a_character() -> None:
    raw = "ok。rest".encode()
    cut = raw.index("。".encode()) + 1
    fed, tail = _run(_plain(("。",)), [raw[:cut], raw[cut:]])
    assert _joined(fed, tail) == ("ok", "")


# --- reasoning split -----------------------------------------------------------------------------------


def test_think_block_goes_to_reasoning() -> None:
    out = _thinking()
    piece = out.feed(b"<think>plan it</think>The answer")
    assert piece.reasoning == "plan it"
    assert piece.content == "The answer"


def test_think_markers_split_across_pieces_never_leak() -> None:
    pieces = ["<th", "ink>pl", "an</thi", "nk>", "ans", "wer"]
    fed, tail = _run(_thinking(), pieces)
    assert _joined(fed, tail) == ("answer", "plan")
    for piece in fed:
        assert "<" not in piece.content + piece.reasoning
        assert ">" not in piece.content + piece.reasoning


def test_marker_split_one_character_at_a_time() -> None:
    text = "<think>abc</think>xyz"
    fed, tail = _run(_thinking(), list(text))
    assert _joined(fed, tail) == ("xyz", "abc")


def test_newlines_after_the_closing_marker_are_trimmed_even_across_pieces() -> None:
    fed, tail = _run(_thinking(), ["<think>r</think>", "\n", "\n", "Answer\n\nmore"])
    assert _joined(fed, tail) == ("Answer\n\nmore", "r")


def test_newlines_inside_reasoning_are_kept() -> None:
    fed, tail = _run(_thinking(), ["<think>\nstep 1\n\nstep 2\n</think>done"])
    assert _joined(fed, tail) == ("done", "\nstep 1\n\nstep 2\n")


def test_text_before_the_think_block_is_content() -> None:
    fed, tail = _run(_thinking(), ["Hi <think>hmm</think>there"])
    assert _joined(fed, tail) == ("Hi there", "hmm")


def test_starts_in_reasoning_when_the_prompt_opened_the_block() -> None:
    fed, tail = _run(_thinking(in_reasoning=True), ["still thinking", "</think>", "\nreply"])
    assert _joined(fed, tail) == ("reply", "still thinking")


def test_without_thinking_markers_are_plain_content() -> None:
    fed, tail = _run(TextOutput((), thinking=False, in_reasoning=True), ["<think>a</think>b"])
    assert _joined(fed, tail) == ("<think>a</think>b", "")


def test_flush_inside_an_unfinished_think_block_returns_held_text_as_reasoning() -> None:
    out = _thinking()
    piece = out.feed(b"<think>half</th")
    assert piece.reasoning == "half"
    tail = out.flush()
    assert tail.reasoning == "</th"
    assert tail.content == ""


def test_flush_releases_a_partial_opening_marker_as_content() -> None:
    out = _thinking()
    assert out.feed(b"a <thi").content == "a "
    assert out.flush().content == "<thi"


def test_stop_string_after_reasoning_cuts_the_content() -> None:
    fed, tail = _run(_thinking(("STOP",)), ["<think>x</think>ans ST", "OP tail"])
    assert _joined(fed, tail) == ("ans ", "x")


def test_partial_stop_held_while_reasoning() -> None:
    out = _thinking(("###",), in_reasoning=True)
    assert out.feed(b"think #").reasoning == "think "
    assert out.feed(b"#").reasoning == ""
    assert out.feed(b"#").reasoning == ""
    assert out.stopped


def test_piece_truthiness() -> None:
    assert not Piece()
    assert Piece(content="a")
    assert Piece(reasoning="b")


def test_in_reasoning_follows_the_think_markers() -> None:
    """The scheduler counts a token as reasoning when the block was open before or after feeding it."""
    out = _thinking()
    assert not out.in_reasoning
    out.feed(b"<think>")
    assert out.in_reasoning
    out.feed(b"hm</think>")
    assert not out.in_reasoning
    assert _thinking(in_reasoning=True).in_reasoning


def test_a_template_s_own_reasoning_markers_split_the_reply() -> None:
    output = TextOutput((), thinking=True, markers=("<seed:think>", "</seed:think>"))
    pieces, rest = _run(output, ["<seed:th", "ink>Let me see.</seed", ":think>\n\nParis."])
    reasoning = "".join(p.reasoning for p in [*pieces, rest])
    content = "".join(p.content for p in [*pieces, rest])
    assert (reasoning, content) == ("Let me see.", "Paris.")


# --- answer tags (Granite 3.3's <response>) ------------------------------------------------------------------

GRANITE = Path(__file__).parents[1] / "models" / "published_templates" / "ibm-granite-granite-3.3-2B-Instruct.jinja"
RESPONSE = ("<response>", "</response>")


@functools.cache
def _granite_template() -> ChatTemplate:
    return ChatTemplate(GRANITE.read_text(), name="granite", bos_token="<s>", eos_token="</s>")


def _granite(stops: tuple[str, ...] = ()) -> TextOutput:
    template = _granite_template()
    assert template.answer_tags == RESPONSE
    return TextOutput(stops, thinking=template.thinks, markers=template.reasoning, answer_tags=template.answer_tags)


def _splits(data: bytes) -> Iterable[list[bytes]]:
    """The bytes whole, cut once at every position, cut twice at every pair of positions, and one at a time."""
    yield [data]
    for i in range(1, len(data)):
        yield [data[:i], data[i:]]
    for i in range(1, len(data)):
        for j in range(i + 1, len(data)):
            yield [data[:i], data[i:j], data[j:]]
    yield [data[i:i + 1] for i in range(len(data))]


def _read_every_way(make: Callable[[], TextOutput], reply: str) -> set[tuple[str, str]]:
    """What the reply reads as, fed in every way of _splits; no piece shows part of a tag the reply's reading
    leaves out."""
    seen = set()
    for pieces in _splits(reply.encode()):
        fed, tail = _run(make(), pieces)
        content, reasoning = _joined(fed, tail)
        hidden = [part for part in ("<re", "</re", "<th", "</th") if part not in content]
        for piece in [*fed, tail]:
            assert not any(part in piece.content for part in hidden), pieces
        seen.add((content, reasoning))
    return seen


@pytest.mark.parametrize(("reply", "content", "reasoning"), [
    ("<think>Two and two.</think><response>It is 4.</response>", "It is 4.", "Two and two."),
    ("<think>Two and two.</think>\n\n<response>\nIt is 4.\n</response>", "\nIt is 4.\n", "Two and two."),
    ("<response>Ça fait 4 🙂.</response>", "Ça fait 4 🙂.", ""),
    (" \n<response>x</response>\nafter", "x\nafter", ""),
    # Cut off by the token budget inside the block: the text written so far stays, the cut closing tag goes.
    ("<think>t</think><response>Half an ans", "Half an ans", "t"),
    ("<think>t</think><response>Half</resp", "Half", "t"),
])
def test_granite_answer_tags_are_taken_out_however_the_reply_is_cut(reply: str, content: str,
                                                                    reasoning: str) -> None:
    assert _read_every_way(_granite, reply) == {(content, reasoning)}


@pytest.mark.parametrize("reply", [
    "Plain answer.",
    "  Indented answer",
    "<b>bold</b> first",
    "<respond>almost</respond>",
    "a <response> later stays </response>",
    "<",
    "\n\n",
    "<|tool_call|>[]",
])
def test_content_without_the_opening_tag_passes_unchanged(reply: str) -> None:
    assert _read_every_way(lambda: TextOutput((), thinking=False, answer_tags=RESPONSE), reply) == {(reply, "")}
    assert _read_every_way(_granite, reply) == {(reply, "")}


def test_only_the_first_closing_tag_after_the_opening_is_taken_out() -> None:
    reply = "<response>a</response> b <response>c</response>"
    assert _read_every_way(_granite, reply) == {("a b <response>c</response>", "")}


def test_answer_tags_hold_back_only_what_may_still_become_a_tag() -> None:
    out = TextOutput((), thinking=False, answer_tags=RESPONSE)
    assert out.feed(b"\n<resp").content == ""
    assert out.feed(b"onse>Hello, wor").content == "Hello, wor"
    assert out.feed(b"ld</res").content == "ld"
    assert out.feed(b"ponse>").content == ""
    assert not out.flush()


def test_a_stop_string_inside_the_answer_cuts_it_without_its_tags() -> None:
    fed, tail = _run(_granite(("STOP",)), ["<think>t</think><response>ans ST", "OP more</response>"])
    assert _joined(fed, tail) == ("ans ", "t")


def test_without_answer_tags_the_response_tags_are_content() -> None:
    fed, tail = _run(_thinking(), ["<think>t</think><response>x</response>"])
    assert _joined(fed, tail) == ("<response>x</response>", "t")
