"""One response's output items and stream events, from engine deltas."""

from __future__ import annotations

import json
from typing import Any

from superfluid.engine.decoding.tool_calls import ToolCallDelta
from superfluid.engine.types import TextDelta, TokenLogprob, TopLogprob, Usage
from superfluid.errors import ConstraintUnsatisfiable, EngineFailure
from superfluid.handlers.openai.responses import shapes
from superfluid.handlers.openai.responses.render import ResponseRender
from superfluid.http.dialect import Dialect

BASE = shapes.base_response({"model": "m"}, response_id="resp_1", created_at=1, model="m")
USAGE = Usage(prompt_tokens=10, completion_tokens=5, cached_tokens=4, reasoning_tokens=2)


def _events(raw: bytes | None) -> list[dict[str, Any]]:
    """Decode SSE messages, checking that each event line names the data's type."""
    out = []
    for block in (raw or b"").decode().split("\n\n"):
        if not block:
            continue
        event, data = block.split("\n")
        frame = json.loads(data.removeprefix("data: "))
        assert event == "event: " + frame["type"]
        out.append(frame)
    return out


def _run(deltas: list[TextDelta], *, truncated: bool = False, logprobs: bool = False
         ) -> tuple[list[dict[str, Any]], dict[str, Any], ResponseRender]:
    render = ResponseRender(dict(BASE), stream=True, logprobs=logprobs)
    events = _events(render.lead())
    for delta in deltas:
        events += _events(render.delta(delta))
    closing, final = render.close(USAGE, truncated=truncated)
    events += _events(closing) + _events(render.terminal(final))
    return events, final, render


def _types(events: list[dict[str, Any]]) -> list[str]:
    return [e["type"].removeprefix("response.") for e in events]


def test_a_text_reply_streams_openais_event_sequence() -> None:
    events, final, _ = _run([TextDelta(0, content="Hel"), TextDelta(0, content="lo")])
    assert _types(events) == ["created", "in_progress", "output_item.added", "content_part.added",
                              "output_text.delta", "output_text.delta", "output_text.done", "content_part.done",
                              "output_item.done", "completed"]
    assert [e["sequence_number"] for e in events] == list(range(len(events)))
    assert [e["delta"] for e in events if e["type"].endswith("text.delta")] == ["Hel", "lo"]
    message = final["output"][0]
    assert message["content"][0]["text"] == "Hello" and message["status"] == "completed"
    assert {e.get("item_id") for e in events[3:8]} == {message["id"]} == {events[8]["item"]["id"]}
    assert final["status"] == "completed" and final["completed_at"] and events[-1]["response"] == final
    assert final["usage"] == {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 4, "cache_write_tokens": 6},
                              "output_tokens": 5, "output_tokens_details": {"reasoning_tokens": 2},
                              "total_tokens": 15}


def test_the_hot_path_writes_the_same_event_as_the_general_one() -> None:
    """The first text delta opens the message through the general path; later ones take the pre-encoded one."""
    events, _, _ = _run([TextDelta(0, content="a"), TextDelta(0, content='q"\u00e9\n')])
    general, fast = [e for e in events if e["type"] == "response.output_text.delta"]
    assert fast["delta"] == 'q"\u00e9\n'
    assert list(fast) == list(general)  # same keys, same order
    assert {k: v for k, v in fast.items() if k not in ("delta", "sequence_number")} == {
        k: v for k, v in general.items() if k not in ("delta", "sequence_number")}
    assert fast["sequence_number"] == general["sequence_number"] + 1


def test_reasoning_then_text_makes_two_items() -> None:
    events, final, _ = _run([TextDelta(0, reasoning="Two plus "), TextDelta(0, reasoning="two."),
                             TextDelta(0, reasoning="\n", content="\n"), TextDelta(0, content="4")])
    assert _types(events) == [
        "created", "in_progress",
        "output_item.added", "reasoning_summary_part.added", "reasoning_summary_text.delta",
        "reasoning_summary_text.delta", "reasoning_summary_text.delta",
        "reasoning_summary_text.done", "reasoning_summary_part.done", "output_item.done",
        "output_item.added", "content_part.added", "output_text.delta", "output_text.done", "content_part.done",
        "output_item.done", "completed"]
    reasoning, message = final["output"]
    assert reasoning["type"] == "reasoning" and reasoning["summary"] == [{"type": "summary_text",
                                                                         "text": "Two plus two.\n"}]
    assert message["content"][0]["text"] == "\n4"  # the newline waited for the text after it
    assert [e["output_index"] for e in events if e["type"] == "response.output_item.added"] == [0, 1]


def test_whitespace_around_tool_calls_opens_no_message() -> None:
    events, final, _ = _run([
        TextDelta(0, content="\n"),
        TextDelta(0, tool_calls=(ToolCallDelta(0, "call_a", "get", '{"a": '),)),
        TextDelta(0, tool_calls=(ToolCallDelta(0, None, None, "1}"),)),
        TextDelta(0, content="\n", tool_calls=(ToolCallDelta(1, "call_b", "get", "{}"),)),
        TextDelta(0, content="\n"),
    ])
    assert [item["type"] for item in final["output"]] == ["function_call", "function_call"]
    first, second = final["output"]
    assert (first["call_id"], first["name"], first["arguments"]) == ("call_a", "get", '{"a": 1}')
    assert second["arguments"] == "{}" and second["status"] == "completed"
    assert _types(events)[2:] == ["output_item.added", "function_call_arguments.delta",
                                  "function_call_arguments.delta", "function_call_arguments.done",
                                  "output_item.done", "output_item.added", "function_call_arguments.delta",
                                  "function_call_arguments.done", "output_item.done", "completed"]
    done = [e for e in events if e["type"] == "response.function_call_arguments.done"]
    assert done[0]["name"] == "get" and done[0]["arguments"] == '{"a": 1}'


def test_a_truncated_reply_is_incomplete() -> None:
    events, final, _ = _run([TextDelta(0, content="cut")], truncated=True)
    assert final["status"] == "incomplete" and final["incomplete_details"] == {"reason": "max_output_tokens"}
    assert final["completed_at"] is None and final["output"][0]["status"] == "incomplete"
    assert events[-1]["type"] == "response.incomplete"


def test_log_probabilities_ride_on_the_text() -> None:
    lp = TokenLogprob("a", (97,), -0.5, (TopLogprob("a", (97,), -0.5),))
    events, final, _ = _run([TextDelta(0, content="a", logprobs=(lp,)), TextDelta(0, logprobs=(lp,))],
                            logprobs=True)
    part = final["output"][0]["content"][0]
    assert len(part["logprobs"]) == 2 and part["logprobs"][0]["token"] == "a"
    assert part["logprobs"][0]["top_logprobs"][0]["logprob"] == -0.5
    assert sum(len(e["logprobs"]) for e in events if e["type"] == "response.output_text.delta") == 2


def test_without_a_stream_nothing_is_encoded_but_the_items_are_the_same() -> None:
    deltas = [TextDelta(0, reasoning="hm"), TextDelta(0, content="ok"),
              TextDelta(0, tool_calls=(ToolCallDelta(0, "c", "f", "{}"),))]
    quiet = ResponseRender(dict(BASE), stream=False, logprobs=False)
    assert quiet.lead() == b"" and all(quiet.delta(d) is None for d in deltas)
    _, plain = quiet.close(USAGE, truncated=False)
    _, streamed, _ = _run(deltas)
    strip = [{k: v for k, v in item.items() if k != "id"} for item in plain["output"]]
    assert strip == [{k: v for k, v in item.items() if k != "id"} for item in streamed["output"]]


def test_a_failure_marks_the_open_item_incomplete() -> None:
    render = ResponseRender(dict(BASE), stream=True, logprobs=False)
    render.lead()
    render.delta(TextDelta(0, content="half"))
    final = render.fail(EngineFailure("decode failed"))
    assert final["status"] == "failed" and final["error"] == {"code": "server_error", "message": "decode failed"}
    assert final["output"][0]["status"] == "incomplete"
    error = Dialect.RESPONSES.error_frame(EngineFailure("decode failed"), sequence_number=render.next_sequence())
    events = _events(error + render.terminal(final))
    assert _types(events) == ["error", "failed"]
    assert events[0]["code"] == "server_error" and events[0]["param"] is None
    assert events[0]["sequence_number"] + 1 == events[1]["sequence_number"] == 6


def test_a_failed_response_names_whose_failure_it_was() -> None:
    base = {"id": "resp_1", "object": "response"}
    engine = shapes.failed(base, [], EngineFailure("llama_decode failed"))
    grammar = shapes.failed(base, [], ConstraintUnsatisfiable("the output grammar gave up at reply token 5: x"))
    assert engine["status"] == grammar["status"] == "failed"
    assert engine["error"]["code"] == "server_error"
    assert grammar["error"] == {"code": "invalid_prompt",
                                "message": "constraint unsatisfiable: the output grammar gave up at reply token 5: x"}
