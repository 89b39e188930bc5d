"""The Anthropic reply shapes: the message body, and the stream renderer's events, held to the SDK's types."""

from __future__ import annotations

from typing import Any

from anthropic.lib.streaming._messages import accumulate_event
from conformance.anthropic_checks import check_sequence, sse_events, strict_message, strict_stream

from superfluid.engine.decoding.tool_calls import ToolCallDelta
from superfluid.engine.types import ChoiceResult, Finished, FinishReason, TextDelta, Usage
from superfluid.handlers.anthropic import replies
from tests.handlers.scripted import run_stream

MODEL = "m"


def _finished(reason: FinishReason = "stop", stop_sequence: str | None = None) -> Finished:
    return Finished(index=0, finish_reason=reason, usage=Usage(prompt_tokens=10, completion_tokens=5,
                                                               cached_tokens=4), stop_sequence=stop_sequence)


def _stream(deltas: list[TextDelta], finished: Finished, *, show_thinking: bool = True) -> bytes:
    events = replies.MessageEvents("msg_1", MODEL, show_thinking=show_thinking)
    return run_stream(events, [*deltas, finished], prompt_tokens=10, cached_tokens=4)


def _final(raw: bytes) -> Any:
    """What the SDK's own stream helper assembles from the events."""
    events = sse_events(raw)
    check_sequence(events)
    snapshot = None
    buffers: dict[int, bytes] = {}
    for event in strict_stream(events):
        snapshot = accumulate_event(event=event, current_snapshot=snapshot, json_bufs=buffers)
    return snapshot


def test_a_text_stream_is_anthropics_event_sequence() -> None:
    raw = _stream([TextDelta(0, content="Hel"), TextDelta(0, content="lo")], _finished())
    names = [name for name, _ in sse_events(raw)]
    assert names == ["message_start", "content_block_start", "content_block_delta", "content_block_delta",
                     "content_block_stop", "message_delta", "message_stop"]
    final = _final(raw)
    assert final.id == "msg_1" and final.content[0].text == "Hello"
    assert final.stop_reason == "end_turn" and final.stop_sequence is None
    assert final.usage.input_tokens == 6 and final.usage.cache_read_input_tokens == 4
    assert final.usage.output_tokens == 5 and final.usage.cache_creation_input_tokens == 0


def test_the_text_hot_path_frames_the_same_json_as_the_encoder() -> None:
    raw = _stream([TextDelta(0, content='a "quoted"\nline ✓')], _finished())
    delta = next(data for name, data in sse_events(raw) if name == "content_block_delta")
    assert delta == {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta",
                                                                           "text": 'a "quoted"\nline ✓'}}


def test_thinking_then_text_are_two_blocks_and_the_signature_closes_the_first() -> None:
    raw = _stream([TextDelta(0, reasoning="Two plus"), TextDelta(0, reasoning=" two.", content="Four"),
                   TextDelta(0, content=".")], _finished())
    events = [data for _, data in sse_events(raw)]
    signature = replies.Signature("Two plus two.").value()
    thinking = [e["delta"] for e in events if e["type"] == "content_block_delta" and e["index"] == 0]
    assert thinking[-1] == {"type": "signature_delta", "signature": signature}
    assert sum(1 for d in thinking if d["type"] == "signature_delta") == 1
    final = _final(raw)
    assert [b.type for b in final.content] == ["thinking", "text"]
    assert final.content[0].thinking == "Two plus two." and final.content[0].signature == signature
    assert final.content[1].text == "Four."
    body = replies.content_blocks(ChoiceResult(0, content="Four.", reasoning="Two plus two."), show_thinking=True)
    assert body == [b.to_dict() for b in final.content]


def test_thinking_display_omitted_keeps_the_block_and_its_signature_only() -> None:
    raw = _stream([TextDelta(0, reasoning="secret"), TextDelta(0, content="ok")], _finished(), show_thinking=False)
    assert not [d for _, d in sse_events(raw) if d.get("delta", {}).get("type") == "thinking_delta"]
    final = _final(raw)
    assert final.content[0].thinking == "" and final.content[0].signature == replies.Signature("secret").value()
    blocks = replies.content_blocks(ChoiceResult(0, content="ok", reasoning="secret"), show_thinking=False)
    assert blocks[0] == {"type": "thinking", "thinking": "", "signature": replies.Signature("secret").value()}


def test_tool_calls_stream_as_tool_use_blocks_with_input_json_deltas() -> None:
    deltas = [TextDelta(0, content="Checking."),
              TextDelta(0, tool_calls=(ToolCallDelta(0, id="call_ab", name="get_weather", arguments='{"ci'),)),
              TextDelta(0, tool_calls=(ToolCallDelta(0, arguments='ty": "Paris"}'),
                                       ToolCallDelta(1, id="call_cd", name="get_time", arguments="{}")))]
    raw = _stream(deltas, _finished("tool_calls"))
    final = _final(raw)
    assert [b.type for b in final.content] == ["text", "tool_use", "tool_use"]
    assert final.content[1].id == "toolu_ab" and final.content[1].input == {"city": "Paris"}
    assert final.content[2].name == "get_time" and final.content[2].input == {}
    assert final.stop_reason == "tool_use"
    starts = [d["content_block"] for _, d in sse_events(raw) if d["type"] == "content_block_start"]
    assert starts[1] == {"type": "tool_use", "id": "toolu_ab", "name": "get_weather", "input": {}}


def test_a_stop_sequence_and_the_token_cap_name_their_stop_reason() -> None:
    assert _final(_stream([TextDelta(0, content="a")], _finished("stop", "END"))).stop_reason == "stop_sequence"
    assert _final(_stream([TextDelta(0, content="a")], _finished("stop", "END"))).stop_sequence == "END"
    assert _final(_stream([TextDelta(0, content="a")], _finished("length"))).stop_reason == "max_tokens"
    assert replies.stop_reason("tool_calls", None) == "tool_use"


def test_an_empty_reply_has_no_blocks() -> None:
    raw = _stream([], _finished())
    assert [n for n, _ in sse_events(raw)] == ["message_start", "message_delta", "message_stop"]
    assert _final(raw).content == []


def test_nothing_to_say_renders_nothing() -> None:
    events = replies.MessageEvents("msg_1", MODEL, show_thinking=True)
    assert events.delta(TextDelta(0, completion_tokens=3)) is None


def test_the_message_body_is_the_sdks_message() -> None:
    choice = ChoiceResult(0, content="Hi", reasoning="hm", finish_reason="tool_calls",
                          tool_calls=[{"id": "call_1", "name": "f", "arguments": '{"x": 1}'}])
    content = replies.content_blocks(choice, show_thinking=True)
    body = replies.message("msg_2", MODEL, content, stop=replies.stop_reason("tool_calls", None),
                           stop_sequence=None, usage_body=replies.usage(10, 3, 0))
    parsed = strict_message(body)
    assert parsed.content[2].type == "tool_use" and parsed.content[2].input == {"x": 1}
    assert parsed.usage.input_tokens == 10


def test_a_call_cut_by_the_token_cap_keeps_what_was_written() -> None:
    # As the streamed partial_json adds up: the message is not emptied of the text the model wrote.
    choice = ChoiceResult(0, finish_reason="length",
                          tool_calls=[{"id": "call_1", "name": "f", "arguments": '{"x": "ab", "y'}])
    assert replies.content_blocks(choice, show_thinking=True) == [
        {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {"x": "ab"}}]


def test_ids_look_like_anthropics() -> None:
    assert replies.new_message_id().startswith("msg_") and replies.new_message_id() != replies.new_message_id()
    assert replies.tool_use_id("call_123") == "toolu_123" and replies.tool_use_id("Ab3dE6gH9") == "toolu_Ab3dE6gH9"
