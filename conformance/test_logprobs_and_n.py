"""Log probabilities (chat and legacy completions, streaming too) and n > 1, against the real server.

The shapes are held to OpenAI's published schemas; the values to what a log-softmax must satisfy: never
above zero, alternatives sorted, probabilities summing to at most one, the chosen token's value equal to its
own entry among the alternatives, and a logit_bias moving a token exactly as the softmax says it should.
"""

from __future__ import annotations

import math
import uuid
from typing import Any

import httpx
import openai
import pytest
from openai import OpenAI

from conformance.reference import validate_openai

EPS = 1e-6


def _user(text: str) -> list[Any]:
    return [{"role": "user", "content": text}]


def _fresh(text: str) -> str:
    return f"{text} (request {uuid.uuid4().hex[:8]})"


def _chat(http: httpx.Client, model: str, **fields: Any) -> dict[str, Any]:
    body = {"model": model, "messages": _user("Say hello."), "temperature": 0, "max_tokens": 4, **fields}
    reply = http.post("/v1/chat/completions", json=body)
    assert reply.status_code == 200, reply.text
    return dict(reply.json())


def _joined_bytes(entries: list[dict[str, Any]]) -> str:
    """The text behind a run of tokens: a token may hold part of a character, so join bytes, not strings
    (a reply cut inside a character ends in U+FFFD, as the server writes it)."""
    return b"".join(bytes(e["bytes"]) for e in entries).decode("utf-8", errors="replace")


def _check_token_entry(entry: dict[str, Any], top_n: int, *, greedy: bool) -> None:
    validate_openai("ChatCompletionTokenLogprob", entry)
    assert set(entry) == {"token", "logprob", "bytes", "top_logprobs"}
    assert entry["logprob"] <= 0
    raw = bytes(entry["bytes"])
    assert raw.decode("utf-8", errors="replace") == entry["token"]
    top = entry["top_logprobs"]
    assert len(top) == top_n
    values = [alt["logprob"] for alt in top]
    assert values == sorted(values, reverse=True)
    assert all(v <= 0 for v in values)
    assert sum(math.exp(v) for v in values) <= 1 + EPS
    for alt in top:
        assert set(alt) == {"token", "logprob", "bytes"}
        assert bytes(alt["bytes"]).decode("utf-8", errors="replace") == alt["token"]
    same = [alt for alt in top if alt["bytes"] == entry["bytes"]]
    if same:
        assert same[0]["logprob"] == pytest.approx(entry["logprob"], abs=EPS)
    if greedy and top:
        assert entry["bytes"] == top[0]["bytes"], "at temperature 0 the chosen token is the most likely one"


# ---- chat ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("top_n", [0, 1, 5, 20])
def test_chat_logprobs_shape_and_values(http: httpx.Client, model: str, top_n: int) -> None:
    reply = _chat(http, model, logprobs=True, top_logprobs=top_n)
    validate_openai("CreateChatCompletionResponse", reply)
    choice = reply["choices"][0]
    logprobs = choice["logprobs"]
    assert set(logprobs) >= {"content", "refusal"}
    entries = logprobs["content"]
    assert len(entries) == reply["usage"]["completion_tokens"]
    for entry in entries:
        _check_token_entry(entry, top_n, greedy=True)
    assert _joined_bytes(entries) == choice["message"]["content"]


def test_chat_logprobs_are_absent_unless_asked(http: httpx.Client, model: str) -> None:
    assert _chat(http, model)["choices"][0]["logprobs"] is None
    assert _chat(http, model, logprobs=False)["choices"][0]["logprobs"] is None


def test_logprobs_without_top_logprobs_has_empty_alternatives(client: OpenAI, model: str) -> None:
    reply = client.chat.completions.create(model=model, messages=_user("Say hello."), max_tokens=3, temperature=0,
                                           logprobs=True)
    logprobs = reply.choices[0].logprobs
    assert logprobs is not None and logprobs.content
    assert all(entry.top_logprobs == [] for entry in logprobs.content)


def test_sampled_tokens_have_their_own_logprob(http: httpx.Client, model: str) -> None:
    """Hot sampling may pick a token below the top-1; its value is still its own log-softmax value."""
    reply = _chat(http, model, logprobs=True, top_logprobs=20, temperature=1.5, seed=5, max_tokens=8,
                  messages=_user(_fresh("Invent a word.")))
    for entry in reply["choices"][0]["logprobs"]["content"]:
        _check_token_entry(entry, 20, greedy=False)


def test_top_logprobs_above_twenty_is_a_400(client: OpenAI, model: str) -> None:
    with pytest.raises(openai.BadRequestError) as caught:
        client.chat.completions.create(model=model, messages=_user("Hi"), max_tokens=2, logprobs=True,
                                       top_logprobs=21)
    assert caught.value.status_code == 400
    body = caught.value.body
    assert isinstance(body, dict) and body["param"] == "top_logprobs"


def test_top_logprobs_needs_logprobs(http: httpx.Client, model: str) -> None:
    reply = http.post("/v1/chat/completions", json={"model": model, "messages": _user("Hi"), "max_tokens": 2,
                                                    "top_logprobs": 3})
    assert reply.status_code == 400
    assert reply.json()["error"]["param"] == "top_logprobs"


def test_logit_bias_moves_the_logprob_as_the_softmax_says(http: httpx.Client, model: str) -> None:
    """Values are a log-softmax taken after logit_bias: a bias b on a token with probability p moves its log
    probability from l to l + b - log(1 - p + p * e**b)."""
    prompt = _user(_fresh("Name a colour."))
    plain = _chat(http, model, messages=prompt, max_tokens=1, logprobs=True, top_logprobs=5)
    first = plain["choices"][0]["logprobs"]["content"][0]
    runner_up = first["top_logprobs"][1]
    ids = http.post("/v1/tokenize", json={"model": model, "content": runner_up["token"]}).json()["tokens"]
    if len(ids) != 1:
        pytest.skip(f"{runner_up['token']!r} does not tokenize back to one token")
    bias = 3.0
    biased = _chat(http, model, messages=prompt, max_tokens=1, logprobs=True, top_logprobs=5,
                   logit_bias={str(ids[0]): bias})
    moved = biased["choices"][0]["logprobs"]["content"][0]
    p = math.exp(runner_up["logprob"])
    expected = runner_up["logprob"] + bias - math.log(1 - p + p * math.exp(bias))
    entry = next(alt for alt in moved["top_logprobs"] if alt["bytes"] == runner_up["bytes"])
    # The same context decodes on whichever lane is free; llama.cpp's numbers agree to about 1e-3 across lanes.
    assert entry["logprob"] == pytest.approx(expected, abs=5e-3)
    assert sum(math.exp(alt["logprob"]) for alt in moved["top_logprobs"]) <= 1 + EPS


# ---- chat streaming ---------------------------------------------------------------------------------------


def test_streamed_chat_logprobs_ride_with_their_tokens(client: OpenAI, model: str) -> None:
    prompt = _user(_fresh("Say hello."))
    whole = client.chat.completions.create(model=model, messages=prompt, max_tokens=6, temperature=0,
                                           logprobs=True, top_logprobs=2)
    chunks = list(client.chat.completions.create(model=model, messages=prompt, max_tokens=6, temperature=0,
                                                 logprobs=True, top_logprobs=2, stream=True))
    streamed: list[Any] = []
    for chunk in chunks[1:-1]:
        choice = chunk.choices[0]
        assert choice.logprobs is not None and choice.logprobs.content, "every content chunk carries logprobs"
        for entry in choice.logprobs.content:
            _check_token_entry(entry.model_dump(), 2, greedy=True)
        assert _joined_bytes([e.model_dump() for e in choice.logprobs.content]) == choice.delta.content
        streamed.extend(choice.logprobs.content)
    assert chunks[-1].choices[0].finish_reason in ("stop", "length")
    assert whole.choices[0].logprobs is not None and whole.choices[0].logprobs.content is not None
    assert [e.token for e in streamed] == [e.token for e in whole.choices[0].logprobs.content]
    for a, b in zip(streamed, whole.choices[0].logprobs.content, strict=True):
        assert a.logprob == pytest.approx(b.logprob, abs=5e-3)


# ---- legacy completions -----------------------------------------------------------------------------------


def _completion(http: httpx.Client, model: str, **fields: Any) -> dict[str, Any]:
    body = {"model": model, "prompt": "The capital of France is", "max_tokens": 5, "temperature": 0, **fields}
    reply = http.post("/v1/completions", json=body)
    assert reply.status_code == 200, reply.text
    return dict(reply.json())


def _check_legacy(logprobs: dict[str, Any], text: str, top_n: int, start: int = 0) -> None:
    tokens, values = logprobs["tokens"], logprobs["token_logprobs"]
    tops, offsets = logprobs["top_logprobs"], logprobs["text_offset"]
    assert len(tokens) == len(values) == len(tops) == len(offsets)
    assert offsets == sorted(offsets)
    assert all(start <= o <= start + len(text) for o in offsets), f"offsets {offsets} run past {text!r}"
    assert "".join(tokens) == text
    assert offsets == [start + sum(len(t) for t in tokens[:i]) for i in range(len(tokens))]
    for token, value, top in zip(tokens, values, tops, strict=True):
        assert isinstance(top, dict)
        assert value <= 0
        assert len(top) <= top_n  # two alternatives with the same text share one key
        assert all(v <= 0 for v in top.values())
        assert sum(math.exp(v) for v in top.values()) <= 1 + EPS
        if top:
            assert max(top.values()) == pytest.approx(value, abs=EPS), "greedy: the chosen token leads"
            if token in top:
                assert top[token] == pytest.approx(value, abs=EPS)


@pytest.mark.parametrize("top_n", [0, 3])
def test_completion_logprobs_legacy_shape(http: httpx.Client, model: str, top_n: int) -> None:
    reply = _completion(http, model, logprobs=top_n)
    validate_openai("CreateCompletionResponse", reply)
    choice = reply["choices"][0]
    assert choice["logprobs"] is not None
    assert len(choice["logprobs"]["tokens"]) == reply["usage"]["completion_tokens"]
    _check_legacy(choice["logprobs"], choice["text"], top_n)


def test_completion_logprobs_of_tokens_that_split_a_character(http: httpx.Client, model: str) -> None:
    """The model writes each emoji as several byte tokens; offsets must still point into the text."""
    reply = _completion(http, model, prompt="Party time! 🎉🎉🎉🎉", max_tokens=6, logprobs=1)
    choice = reply["choices"][0]
    assert any(ord(ch) > 0xFFFF for ch in choice["text"]), "the prompt should make the model write emoji"
    _check_legacy(choice["logprobs"], choice["text"], 1)


def test_completion_logprobs_above_twenty_is_a_400(http: httpx.Client, model: str) -> None:
    reply = http.post("/v1/completions", json={"model": model, "prompt": "Hi", "max_tokens": 2, "logprobs": 21})
    assert reply.status_code == 400
    assert reply.json()["error"]["param"] == "logprobs"


def test_streamed_completion_logprobs_continue_the_offsets(http: httpx.Client, model: str) -> None:
    body = {"model": model, "prompt": "The capital of France is", "max_tokens": 5, "temperature": 0,
            "logprobs": 2, "stream": True}
    frames: list[dict[str, Any]] = []
    with http.stream("POST", "/v1/completions", json=body) as reply:
        assert reply.status_code == 200
        for line in reply.iter_lines():
            if line.startswith("data: ") and line != "data: [DONE]":
                frames.append(httpx.Response(200, content=line[6:]).json())
    pieces = [f["choices"][0] for f in frames if f["choices"][0]["finish_reason"] is None]
    assert pieces
    text = "".join(p["text"] for p in pieces)
    merged: dict[str, list[Any]] = {"tokens": [], "token_logprobs": [], "top_logprobs": [], "text_offset": []}
    for piece in pieces:
        for key in merged:
            merged[key].extend(piece["logprobs"][key])
    _check_legacy(merged, text, 2)


# ---- n ------------------------------------------------------------------------------------------------------


def test_n_choices_each_finish_on_their_own(http: httpx.Client, model: str) -> None:
    reply = _chat(http, model, n=3, temperature=1.0, seed=1234, max_tokens=6, messages=_user(_fresh("Hi!")),
                  logprobs=True, top_logprobs=1)
    validate_openai("CreateChatCompletionResponse", reply)
    choices = reply["choices"]
    assert [c["index"] for c in choices] == [0, 1, 2]
    for choice in choices:
        assert choice["finish_reason"] in ("stop", "length")
        assert choice["logprobs"] is not None
        assert _joined_bytes(choice["logprobs"]["content"]) == choice["message"]["content"]
    total = sum(len(c["logprobs"]["content"]) for c in choices)
    assert reply["usage"]["completion_tokens"] == total


def test_n_choices_differ_and_a_seed_reproduces_them(http: httpx.Client, model: str) -> None:
    """Seeds pick the draws; bit-for-bit reproduction also needs the same arithmetic, which shared lanes do not
    promise (batched kernels and reused caches round differently), so reproduction is asked of the
    batch-invariant lane, as docs/scheduling.md says."""
    fields = {"n": 3, "temperature": 1.0, "seed": 4242, "max_tokens": 6, "messages": _user(_fresh("Name an animal."))}
    invariant = {"x-superfluid-batch-invariant": "1"}
    body = {"model": model, **fields}
    first = [c["message"]["content"] for c in http.post("/v1/chat/completions", json=body, headers=invariant)
             .json()["choices"]]
    again = [c["message"]["content"] for c in http.post("/v1/chat/completions", json=body, headers=invariant)
             .json()["choices"]]
    assert len(set(first)) > 1, f"each choice gets its own seed, so hot sampling should differ: {first}"
    assert again == first
    shared = _chat(http, model, **fields)["choices"]
    assert len(shared) == 3 and all(c["finish_reason"] in ("stop", "length") for c in shared)


def test_streaming_uses_one_choice(client: OpenAI, model: str) -> None:
    chunks = list(client.chat.completions.create(model=model, messages=_user("Hi"), n=2, max_tokens=2,
                                                 temperature=0, stream=True))
    assert {c.choices[0].index for c in chunks if c.choices} == {0}
