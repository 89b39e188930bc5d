"""The /v1/messages handler's loop path: when a stream cannot be written directly (TLS, another server, a test
client), the loop renders each delta with the same MessageEvents, keep-alives become pings, and the closing
events follow the engine's Finished."""

from __future__ import annotations

from conformance.anthropic_checks import check_sequence, sse_events, strict_stream

from superfluid.engine.types import Finished, TextDelta, Usage
from superfluid.handlers.anthropic import replies
from tests.handlers.scripted import run_stream


def test_the_loop_path_renders_the_same_event_sequence() -> None:
    finished = Finished(0, "stop", Usage(prompt_tokens=5, completion_tokens=3, cached_tokens=0))
    events = replies.MessageEvents("msg_1", "m", show_thinking=True)
    script = [TextDelta(0, reasoning="hm"), None, TextDelta(0, content="Hi"), TextDelta(0), finished]
    raw = run_stream(events, script, prompt_tokens=5, cached_tokens=0)
    parsed = sse_events(raw)
    check_sequence(parsed)
    strict_stream(parsed)
    assert [name for name, _ in parsed].count("ping") == 1
    assert [data["content_block"]["type"] for name, data in parsed if name == "content_block_start"] == [
        "thinking", "text"]
