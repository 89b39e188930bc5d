"""Engine results in Ollama's shapes: records, tool calls gathered whole, log probabilities, the stream order."""

from __future__ import annotations

import json
import re
import time
from typing import Any

import pytest

from superfluid.engine.decoding.tool_calls import ToolCallDelta
from superfluid.engine.types import Finished, TextDelta, TokenLogprob, TopLogprob, Usage
from superfluid.errors import EngineFailure
from superfluid.handlers.ollama import replies
from tests.handlers.scripted import run_stream

STAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$")


def test_rfc3339_is_utc_with_a_z() -> None:
    assert STAMP.match(replies.rfc3339())
    assert replies.rfc3339(0) == "1970-01-01T00:00:00.000000Z"


def test_done_reasons() -> None:
    assert replies.done_reason("stop") == "stop"
    assert replies.done_reason("length") == "length"
    assert replies.done_reason("tool_calls") == "stop"


def test_chat_and_generate_records() -> None:
    chat = replies.record("chat", "m", "hi", "")
    assert set(chat) == {"model", "created_at", "message", "done"}
    assert chat["message"] == {"role": "assistant", "content": "hi"} and chat["done"] is False
    thinking = replies.record("chat", "m", "", "hmm", done=True)
    assert thinking["message"] == {"role": "assistant", "content": "", "thinking": "hmm"} and thinking["done"]
    generated = replies.record("generate", "m", "hi", "hmm")
    assert generated["response"] == "hi" and generated["thinking"] == "hmm" and "message" not in generated
    assert "thinking" not in replies.record("generate", "m", "hi")


def test_totals() -> None:
    out = replies.totals("length", prompt=10, cached=4, completion=3, started_ns=time.monotonic_ns() - 5)
    assert out["done_reason"] == "length" and out["total_duration"] >= 5
    assert (out["prompt_eval_count"], out["prompt_eval_cached_count"], out["eval_count"]) == (10, 4, 3)


def test_logprobs_body() -> None:
    token = TokenLogprob("a", (97,), -0.5, (TopLogprob("a", (97,), -0.5), TopLogprob("b", (98,), -1.5)))
    assert replies.logprobs_body([token]) == [
        {"token": "a", "logprob": -0.5, "bytes": [97],
         "top_logprobs": [{"token": "a", "logprob": -0.5, "bytes": [97]},
                          {"token": "b", "logprob": -1.5, "bytes": [98]}]}]


def test_whole_calls_parse_arguments_into_objects() -> None:
    calls = [{"id": "c1", "name": "f", "arguments": '{"x": 1}'}, {"id": "c2", "name": "g", "arguments": ""}]
    assert replies.whole_calls(calls, "stop") == [
        {"id": "c1", "function": {"index": 0, "name": "f", "arguments": {"x": 1}}},
        {"id": "c2", "function": {"index": 1, "name": "g", "arguments": {}}},
    ]


def test_a_call_cut_by_the_budget_keeps_what_was_written() -> None:
    calls = [{"id": "c1", "name": "f", "arguments": '{"x": 1}'}, {"id": "c2", "name": "g", "arguments": '{"y": "a'}]
    whole = replies.whole_calls(calls, "length")
    assert [(c["function"]["name"], c["function"]["arguments"]) for c in whole] == [("f", {"x": 1}), ("g", {"y": "a"})]
    with pytest.raises(EngineFailure):
        replies.whole_calls(calls, "stop")


def test_call_collector_joins_pieces() -> None:
    collector = replies.CallCollector()
    collector.add([ToolCallDelta(0, id="c1", name="f"), ToolCallDelta(0, arguments='{"x"')])
    collector.add([ToolCallDelta(0, arguments=": 1}"), ToolCallDelta(1, id="c2", name="g", arguments="{}")])
    assert collector.calls == [{"id": "c1", "name": "f", "arguments": '{"x": 1}'},
                               {"id": "c2", "name": "g", "arguments": "{}"}]


def _records(events: list[TextDelta | Finished | None], kind: replies.Kind = "chat",
             logprobs: bool = False) -> list[Any]:
    """The stream's NDJSON lines, parsed; a keep-alive is an empty record (done: false, no text)."""
    raw = run_stream(replies.Records(kind, "m", logprobs=logprobs, started_ns=time.monotonic_ns()), events)
    assert raw.endswith(b"\n")
    return [json.loads(line) for line in raw.split(b"\n")[:-1]]


USAGE = Usage(prompt_tokens=7, completion_tokens=5, cached_tokens=2)


def test_stream_text_then_terminal_record() -> None:
    records = _records([TextDelta(0, content="Hel"), TextDelta(0, reasoning="r"),
                                   TextDelta(0, content="lo"), Finished(0, "stop", USAGE)])
    assert [r["message"].get("content") for r in records[:-1]] == ["Hel", "", "lo"]
    assert records[1]["message"]["thinking"] == "r"
    final = records[-1]
    assert final["done"] is True and final["message"] == {"role": "assistant", "content": ""}
    assert (final["done_reason"], final["prompt_eval_count"], final["prompt_eval_cached_count"],
            final["eval_count"]) == ("stop", 7, 2, 5)
    assert all(r["done"] is False for r in records[:-1])


def test_stream_sends_calls_whole_just_before_the_end() -> None:
    records = _records([
        TextDelta(0, tool_calls=(ToolCallDelta(0, id="c1", name="f"),)),
        TextDelta(0, tool_calls=(ToolCallDelta(0, arguments='{"city": '),)),
        TextDelta(0, tool_calls=(ToolCallDelta(0, arguments='"Paris"}'),)),
        Finished(0, "tool_calls", USAGE)])
    assert len(records) == 2
    calls: Any = records[0]["message"]["tool_calls"]
    assert records[0]["done"] is False
    assert calls == [{"id": "c1", "function": {"index": 0, "name": "f", "arguments": {"city": "Paris"}}}]
    assert records[1]["done"] is True and records[1]["done_reason"] == "stop"


def test_stream_logprobs_ride_on_their_records() -> None:
    token = TokenLogprob("a", (97,), -0.1)
    records = _records([TextDelta(0, content="a", logprobs=(token,)), TextDelta(0, logprobs=(token,)),
                                   Finished(0, "length", USAGE)], logprobs=True)
    assert [len(r["logprobs"]) for r in records[:-1]] == [1, 1]
    assert "logprobs" not in records[-1]
    plain = _records([TextDelta(0, logprobs=(token,)), Finished(0, "length", USAGE)])
    assert len(plain) == 1


def test_generate_stream_records() -> None:
    records = _records([TextDelta(0, content="x"), Finished(0, "length", USAGE)], kind="generate")
    assert records[0]["response"] == "x" and records[-1]["response"] == ""
    assert records[-1]["done_reason"] == "length"


def test_a_quiet_stream_passes_its_keep_alives_through() -> None:
    records = _records([TextDelta(0, content="a"), None, Finished(0, "stop", USAGE)])
    assert records[1]["done"] is False and records[1]["message"] == {"role": "assistant", "content": ""}
    assert records[0]["message"]["content"] == "a" and records[-1]["done"] is True
