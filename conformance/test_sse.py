"""Server-Sent Events framing, read byte for byte with plain httpx.

What the stream promises: every event is one ``data: <json>`` line followed by a blank line (lines that
start with ``:`` are keep-alives), the first chat chunk opens the assistant's turn, the terminal chunk
carries finish_reason, usage and superfluid.warm, and the stream ends with ``data: [DONE]``.
"""

from __future__ import annotations

import json
import time
from typing import Any

import httpx

from conformance.reference import validate_openai


def _post_stream(http: httpx.Client, path: str, body: dict[str, Any]) -> tuple[httpx.Response, str]:
    with http.stream("POST", path, json=body) as response:
        raw = b"".join(response.iter_raw())
    return response, raw.decode("utf-8")


def _events(raw: str) -> list[str]:
    """Split a raw SSE body into its events, checking the framing as it goes; keep-alives are dropped."""
    assert raw.endswith("\n\n"), f"the stream does not end with a blank line: {raw[-80:]!r}"
    events = []
    for block in raw[:-2].split("\n\n"):
        lines = block.split("\n")
        if all(line.startswith(":") for line in lines):
            continue
        assert len(lines) == 1, f"an event spans several lines: {block!r}"
        assert lines[0].startswith("data: "), f"an event is not a data line: {block!r}"
        events.append(lines[0][len("data: "):])
    return events


def _chunks(raw: str) -> list[dict[str, Any]]:
    events = _events(raw)
    assert events, "the stream carried no events"
    assert events[-1] == "[DONE]", f"the stream does not end with [DONE]: {events[-1]!r}"
    assert "[DONE]" not in events[:-1]
    return [json.loads(event) for event in events[:-1]]


def _chat(model: str, text: str, **extra: Any) -> dict[str, Any]:
    return {"model": model, "messages": [{"role": "user", "content": text}], "stream": True,
            "temperature": 0, "max_tokens": 8, **extra}


def test_chat_stream_framing(http: httpx.Client, model: str) -> None:
    response, raw = _post_stream(http, "/v1/chat/completions", _chat(model, "Say hello."))
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    assert int(response.headers["x-superfluid-warm"]) >= 0
    chunks = _chunks(raw)
    assert len(chunks) >= 2
    for chunk in chunks:
        validate_openai("CreateChatCompletionStreamResponse", chunk)
        assert chunk["object"] == "chat.completion.chunk"
        assert chunk["model"] == model
    assert len({c["id"] for c in chunks}) == 1
    assert len({c["created"] for c in chunks}) == 1


def test_first_chunk_opens_the_assistant_turn(http: httpx.Client, model: str) -> None:
    _, raw = _post_stream(http, "/v1/chat/completions", _chat(model, "Say hello."))
    first = _chunks(raw)[0]
    assert first["choices"][0]["delta"] == {"role": "assistant"}  # the product document, word for word
    assert first["choices"][0]["finish_reason"] is None
    later = _chunks(raw)[1:]
    assert all("role" not in c["choices"][0]["delta"] for c in later)


def test_no_delta_is_empty(http: httpx.Client, model: str) -> None:
    """Every chunk but the first and the terminal one carries text: no empty or absent-content deltas."""
    for extra in ({}, {"logprobs": True, "top_logprobs": 1}, {"stop": ["e"]}):
        _, raw = _post_stream(http, "/v1/chat/completions",
                              _chat(model, "Tell me about the sea.", max_tokens=24, **extra))
        chunks = _chunks(raw)
        for chunk in chunks[1:-1]:
            delta = chunk["choices"][0]["delta"]
            assert delta, f"an empty delta: {chunk}"
            assert delta.get("content") or delta.get("reasoning_content") or delta.get("tool_calls"), chunk
            if "content" in delta:
                assert delta["content"], f"an empty content delta: {chunk}"


def test_terminal_chunk_carries_finish_usage_and_warm(http: httpx.Client, model: str) -> None:
    response, raw = _post_stream(http, "/v1/chat/completions", _chat(model, "Say hello."))
    chunks = _chunks(raw)
    final = chunks[-1]
    assert final["choices"][0]["finish_reason"] in ("stop", "length")
    assert all(c["choices"][0]["finish_reason"] is None for c in chunks[:-1])
    usage = final["usage"]
    validate_openai("CompletionUsage", usage)
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]
    assert 0 < usage["completion_tokens"] <= 8
    cached = usage["prompt_tokens_details"]["cached_tokens"]
    assert final["superfluid"]["warm"] == cached
    assert response.headers["x-superfluid-warm"] == str(cached)
    # usage arrives even though the request did not ask for it (include_usage is always on)
    content = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks)
    assert content


def test_content_chunks_carry_no_usage_by_default(http: httpx.Client, model: str) -> None:
    _, raw = _post_stream(http, "/v1/chat/completions", _chat(model, "Say hello."))
    chunks = _chunks(raw)
    assert all("usage" not in c or c["usage"] is None for c in chunks[:-1])


def test_continuous_usage_stats(http: httpx.Client, model: str) -> None:
    body = _chat(model, "Count from one to ten.", max_tokens=10, ignore_eos=True,
                 stream_options={"include_usage": True, "continuous_usage_stats": True})
    _, raw = _post_stream(http, "/v1/chat/completions", body)
    chunks = _chunks(raw)
    final = chunks[-1]
    content_chunks = [c for c in chunks[:-1] if c["choices"][0]["delta"].get("content")]
    assert content_chunks
    counts = []
    for chunk in content_chunks:
        usage = chunk.get("usage")
        assert usage, f"a content chunk has no usage: {chunk}"
        validate_openai("CompletionUsage", usage)
        assert usage["prompt_tokens"] == final["usage"]["prompt_tokens"]
        assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]
        counts.append(usage["completion_tokens"])
    assert counts == sorted(counts), f"completion_tokens is not cumulative: {counts}"
    assert counts[0] >= 1
    assert counts[-1] <= final["usage"]["completion_tokens"] == 10


def test_stream_matches_non_streaming_reply(http: httpx.Client, model: str) -> None:
    body = _chat(model, "Name three fruits.")
    _, raw = _post_stream(http, "/v1/chat/completions", body)
    chunks = _chunks(raw)
    streamed = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks)
    whole = http.post("/v1/chat/completions", json={**body, "stream": False})
    assert whole.status_code == 200
    assert whole.json()["choices"][0]["message"]["content"] == streamed


def test_completions_stream(http: httpx.Client, model: str) -> None:
    body = {"model": model, "prompt": "Once upon a time", "stream": True, "temperature": 0, "max_tokens": 8}
    response, raw = _post_stream(http, "/v1/completions", body)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    chunks = _chunks(raw)
    for chunk in chunks:
        assert chunk["object"] == "text_completion"
        assert chunk["model"] == model
        assert len(chunk["choices"]) == 1
        assert isinstance(chunk["choices"][0]["text"], str)
    assert len({c["id"] for c in chunks}) == 1
    final = chunks[-1]
    # OpenAI's published schema types finish_reason as a non-null string (its streams send null until the
    # end), so only the terminal chunk can be held to it.
    validate_openai("CreateCompletionResponse", final)
    assert final["choices"][0]["finish_reason"] in ("stop", "length")
    assert all(c["choices"][0]["finish_reason"] is None for c in chunks[:-1])
    assert final["usage"]["completion_tokens"] <= 8
    assert final["superfluid"]["cached"] == final["usage"]["prompt_tokens_details"]["cached_tokens"]
    text = "".join(c["choices"][0]["text"] for c in chunks)
    whole = http.post("/v1/completions", json={**body, "stream": False}).json()
    assert whole["choices"][0]["text"] == text


def test_completions_stream_with_echo_starts_with_the_prompt(http: httpx.Client, model: str) -> None:
    body = {"model": model, "prompt": "Once upon a time", "stream": True, "echo": True, "temperature": 0,
            "max_tokens": 4}
    _, raw = _post_stream(http, "/v1/completions", body)
    text = "".join(c["choices"][0]["text"] for c in _chunks(raw))
    assert text.startswith("Once upon a time")
    assert len(text) > len("Once upon a time")


def test_error_before_the_stream_is_a_plain_http_error(http: httpx.Client) -> None:
    body = _chat("no-such-model", "hi")
    response, raw = _post_stream(http, "/v1/chat/completions", body)
    assert response.status_code == 404
    assert response.headers["content-type"].startswith("application/json")
    validate_openai("ErrorResponse", json.loads(raw))


def test_client_disconnect_does_not_break_the_server(http: httpx.Client, base_url: str, model: str) -> None:
    body = _chat(model, "Write a very long story about the sea.", max_tokens=8000, ignore_eos=True)
    with httpx.Client(base_url=base_url, timeout=60) as own, \
            own.stream("POST", "/v1/chat/completions", json=body) as response:
        assert response.status_code == 200
        seen = 0
        for line in response.iter_lines():
            if line.startswith("data: "):
                seen += 1
                if seen == 2:
                    break
    # leaving the block closed the connection with the generation still running
    after = http.post("/v1/chat/completions",
                      json={"model": model, "messages": [{"role": "user", "content": "Say hello."}],
                            "temperature": 0, "max_tokens": 4})
    assert after.status_code == 200
    assert after.json()["choices"][0]["message"]["content"]

    # The abandoned generation gives its lane back at its next tick. Without cancellation it would hold the
    # lane for 8000 tokens, far longer than this generous bound (the bound only allows for a busy machine).
    deadline = time.monotonic() + 20
    kv: dict[str, Any] = {}
    while time.monotonic() < deadline:
        kv = http.get("/props").json()["kv_cache"]
        if kv["busy"] == 0 and kv["waiting"] == 0:
            break
        time.sleep(0.2)
    assert kv["busy"] == 0, f"a lane is still busy after the client left: {kv}"
    assert kv["waiting"] == 0


def test_streaming_serves_one_choice(http: httpx.Client, model: str) -> None:
    """n applies to non-streaming replies; a stream carries choice 0 only."""
    _, raw = _post_stream(http, "/v1/chat/completions", _chat(model, "Say hello.", n=2))
    chunks = _chunks(raw)
    assert all([c["index"] for c in chunk["choices"]] == [0] for chunk in chunks)
    assert sum(1 for chunk in chunks if chunk["choices"][0]["finish_reason"]) == 1
