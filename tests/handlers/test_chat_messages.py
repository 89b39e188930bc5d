"""OpenAI chat messages as the engine's messages (handlers/openai/chat.convert_messages)."""

from __future__ import annotations

from superfluid.engine.types import ChatMessage, PastCall
from superfluid.handlers.openai.chat import convert_messages

CALL = {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'}}
PAST = PastCall("get_weather", '{"city": "Oslo"}', "call_1")


def test_an_assistant_turn_of_calls_alone_keeps_its_calls() -> None:
    # OpenAI lets an assistant turn that only calls tools leave `content` out altogether.
    (turn,) = convert_messages([{"role": "assistant", "tool_calls": [CALL]}], "m")
    assert turn == ChatMessage(role="assistant", content="", tool_calls=(PAST,))
    assert turn.as_template_dict()["tool_calls"] == [CALL]  # templates read the call as the client sent it


def test_each_kind_of_message_keeps_what_a_template_reads() -> None:
    converted = convert_messages([
        {"role": "developer", "content": "Be terse."},
        {"role": "user", "content": [{"type": "text", "text": "Weather"}, {"type": "text", "text": "in Oslo?"}],
         "name": "ann"},
        {"role": "assistant", "content": None, "tool_calls": [CALL], "reasoning_content": "Look it up."},
        {"role": "tool", "content": "Sunny.", "tool_call_id": "call_1"},
    ], "m")
    assert converted == (
        ChatMessage(role="system", content="Be terse."),
        ChatMessage(role="user", content="Weather\nin Oslo?", name="ann"),
        ChatMessage(role="assistant", content="", tool_calls=(PAST,), reasoning_content="Look it up."),
        ChatMessage(role="tool", content="Sunny.", tool_call_id="call_1"),
    )
