"""Recurrent and hybrid models on the real server: every turn answers, warm, and as a cold server would.

A recurrent state (Mamba's scan, LFM2's short convolutions, Granite 4.0-H's Mamba-2 layers) holds only a sequence's
end, so a lane cannot be cut back the way attention cells can (engine/scheduling/checkpoints.py). Before, a
conversation's second turn on such a model was a 500. Here, for a pure recurrent model and two hybrids written with
random weights at test time (conformance/random_models.py: the bundled model's tokenizer and chat template, logits
peaked like a trained model's), on plain `superfluid serve`:

- a multi-turn greedy conversation through each API (OpenAI chat, Anthropic Messages, Responses with
  ``previous_response_id``, Ollama): every turn answers 200, every follow-up reports at least 80% of the previous
  turn's prompt and reply cached, and every reply is byte-identical to the same request sent to a freshly started
  server (which reports nothing cached);
- ``n`` > 1 on a prompt sent again, a reply cut by a stop string and the turn after it, a stream the client leaves
  halfway and the request after it;
- a restart on the same sessions directory: the conversation and the Responses chain go on warm and identical;
- /props says what the model's memory is and that drafting is off (and the start log says why).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from conformance.random_models import write_model
from conformance.server import RunningServer, start_server, stop_server

MODELS = {"mamba": "recurrent", "lfm2": "hybrid", "granitehybrid": "hybrid"}
"""Architecture -> the memory kind llama.cpp reports for it."""
MAX_TOKENS = 16
WARM_SHARE = 0.8
"""A follow-up turn reuses at least this share of the previous turn's prompt and reply."""
SYSTEM = "You answer questions about {topic}. Keep every answer short, plain and friendly. " * 16
"""Long enough (about 300 tokens) that the disk tier saves a conversation (--kv-disk-min-tokens 256)."""


@dataclass
class Turn:
    """One request of a conversation and what the server answered."""

    api: str
    body: dict[str, Any]
    text: str = ""
    prompt: int = 0
    cached: int = 0
    completion: int = 0
    reply: dict[str, Any] = field(default_factory=dict)


# ---- one request per API: send, read the text and the token figures ----------------------------------------------

def send(http: httpx.Client, turn: Turn) -> Turn:
    if turn.api == "openai":
        body = _ok(http.post("/v1/chat/completions", json=turn.body))
        usage = body["usage"]
        return _done(turn, body, body["choices"][0]["message"]["content"], usage["prompt_tokens"],
                     usage["prompt_tokens_details"]["cached_tokens"], usage["completion_tokens"])
    if turn.api == "anthropic":
        body = _ok(http.post("/v1/messages", json=turn.body))
        usage = body["usage"]
        cached = usage["cache_read_input_tokens"]
        return _done(turn, body, body["content"][0]["text"], usage["input_tokens"] + cached, cached,
                     usage["output_tokens"])
    if turn.api == "responses":
        body = _ok(http.post("/v1/responses", json=turn.body))
        usage = body["usage"]
        text = "".join(part["text"] for item in body["output"] if item["type"] == "message"
                       for part in item["content"])
        return _done(turn, body, text, usage["input_tokens"], usage["input_tokens_details"]["cached_tokens"],
                     usage["output_tokens"])
    body = _ok(http.post("/api/chat", json=turn.body))
    return _done(turn, body, body["message"]["content"], body["prompt_eval_count"], body["prompt_eval_cached_count"],
                 body["eval_count"])


def _ok(response: httpx.Response) -> dict[str, Any]:
    assert response.status_code == 200, response.text
    return dict(response.json())


def _done(turn: Turn, reply: dict[str, Any], text: str, prompt: int, cached: int, completion: int) -> Turn:
    turn.reply, turn.text, turn.prompt, turn.cached, turn.completion = reply, text, prompt, cached, completion
    return turn


# ---- conversations: each API's next request from the turns so far ------------------------------------------------

def first_turn(api: str, model: str, topic: str, question: str) -> Turn:
    system = SYSTEM.format(topic=topic)
    if api == "openai":
        return Turn(api, {"model": model, "max_tokens": MAX_TOKENS, "temperature": 0,
                          "messages": [{"role": "system", "content": system}, {"role": "user", "content": question}]})
    if api == "anthropic":
        return Turn(api, {"model": model, "max_tokens": MAX_TOKENS, "temperature": 0, "system": system,
                          "messages": [{"role": "user", "content": question}]})
    if api == "responses":
        return Turn(api, {"model": model, "max_output_tokens": MAX_TOKENS, "temperature": 0, "store": True,
                          "instructions": system, "input": question})
    return Turn(api, {"model": model, "stream": False, "options": {"temperature": 0, "num_predict": MAX_TOKENS},
                      "messages": [{"role": "system", "content": system}, {"role": "user", "content": question}]})


def next_turn(previous: Turn, question: str) -> Turn:
    body = json.loads(json.dumps(previous.body))
    if previous.api == "responses":
        body["previous_response_id"] = previous.reply["id"]
        body["input"] = question
        return Turn("responses", body)
    body["messages"] += [{"role": "assistant", "content": previous.text}, {"role": "user", "content": question}]
    return Turn(previous.api, body)


def cold_body(turns: list[Turn], index: int) -> dict[str, Any]:
    """Turn ``index`` as one self-contained request (a Responses chain spelled out as input items, since the fresh
    server has no stored responses)."""
    turn = turns[index]
    if turn.api != "responses":
        return turn.body
    items: list[dict[str, Any]] = []
    for earlier in turns[:index]:
        items += [{"role": "user", "content": earlier.body["input"]},
                  {"role": "assistant", "content": earlier.text}]
    items.append({"role": "user", "content": turn.body["input"]})
    body = {k: v for k, v in turn.body.items() if k != "previous_response_id"}
    return {**body, "input": items, "store": False}


QUESTIONS = {"openai": ("rivers", ["Name a long river.", "Where does it flow?", "Is it navigable?"]),
             "anthropic": ("mountains", ["Name a high mountain.", "Who climbed it first?"]),
             "responses": ("cities", ["Name an old city.", "What is it known for?"]),
             "ollama": ("birds", ["Name a bird of prey.", "What does it eat?"])}


def converse(http: httpx.Client, model: str) -> dict[str, list[Turn]]:
    """Each API's conversation, turn after turn, on one server."""
    talks: dict[str, list[Turn]] = {}
    for api, (topic, questions) in QUESTIONS.items():
        turns = [send(http, first_turn(api, model, topic, questions[0]))]
        for question in questions[1:]:
            turns.append(send(http, next_turn(turns[-1], question)))
        talks[api] = turns
    return talks


def assert_warm(after: Turn, before: Turn) -> None:
    reused = before.prompt + before.completion
    assert after.cached >= WARM_SHARE * reused, (after.api, after.cached, reused)


# ---- servers -----------------------------------------------------------------------------------------------------

@dataclass
class Subject:
    arch: str
    path: Path
    model: str
    base: Path


@pytest.fixture(scope="module", params=list(MODELS))
def subject(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Subject:
    arch = str(request.param)
    base = tmp_path_factory.mktemp(f"recurrent-{arch}")
    path = write_model(base / f"{arch}.gguf", arch, seed=7)
    return Subject(arch, path, arch, base)


def serve(subject: Subject, name: str, *extra: str, sessions: str = "sessions") -> RunningServer:
    """Plain `superfluid serve` on the model, with two lanes and one llama.cpp thread. On two threads a hybrid's
    attention layer splits its work by the length of the KV pool the lanes share, so a prompt decoded beside
    another lane's cells can round differently in the last bits from the same prompt alone, and at a near tie
    take another token (seen here); one thread sums in one order wherever the cells lie, so a warm reply and a
    cold one compare bit for bit and what is compared is the state the lane resumed from."""
    return start_server([str(subject.path), "--parallel", "2", "--threads", "1",
                         "--sessions", str(subject.base / sessions), *extra], subject.base / f"{name}.log")


@pytest.fixture(scope="module")
def warm(subject: Subject) -> Iterator[RunningServer]:
    server = serve(subject, "warm")
    yield server
    stop_server(server)


def cold_replies(subject: Subject, bodies: list[tuple[str, dict[str, Any]]]) -> list[Turn]:
    """The requests sent to a freshly started server (no disk tier), in order; each must find nothing cached (so
    no two of them may be turns of one conversation)."""
    server = serve(subject, "cold", "--kv-disk-bytes", "0", sessions="cold-sessions")
    try:
        with httpx.Client(base_url=server.base_url, timeout=120) as http:
            replies = [send(http, Turn(api, body)) for api, body in bodies]
    finally:
        stop_server(server)
    for reply in replies:
        assert reply.cached == 0, (reply.api, reply.cached)
    return replies


# ---- the tests ---------------------------------------------------------------------------------------------------

def test_props_and_start_log_say_what_the_memory_is(subject: Subject, warm: RunningServer) -> None:
    props = httpx.get(warm.base_url + "/props").json()
    assert props["memory"]["kind"] == MODELS[subject.arch]
    assert props["memory"]["rollback"] is False and props["memory"]["checkpoints"]["max_per_lane"] == 32
    assert props["speculative"] is False  # --spec-draft 4 by default, but rejected drafts cannot leave the state
    assert "prompt-lookup drafting is off" in warm.log_path.read_text()
    slots = httpx.get(warm.base_url + "/slots").json()[0]
    assert slots["speculative"] is False and slots["memory"]["kind"] == MODELS[subject.arch]


def test_every_turn_is_warm_and_as_a_fresh_server_answers(subject: Subject, warm: RunningServer) -> None:
    with httpx.Client(base_url=warm.base_url, timeout=120) as http:
        talks = converse(http, subject.model)
        metrics = http.get("/metrics").text
    for turns in talks.values():
        assert turns[0].text
        for before, after in itertools.pairwise(turns):
            assert_warm(after, before)
    assert "superfluid_checkpoints_saved" in metrics
    depth = max(len(turns) for turns in talks.values())
    for index in range(depth):  # one fresh server per turn depth: nothing of an earlier turn is cached there
        asked = [(api, turns) for api, turns in talks.items() if index < len(turns)]
        cold = cold_replies(subject, [(api, cold_body(turns, index)) for api, turns in asked])
        for (api, turns), reply in zip(asked, cold, strict=True):
            assert reply.text == turns[index].text, (api, index)
            assert reply.prompt == turns[index].prompt, (api, index)


def test_n_choices_stop_strings_and_a_prompt_sent_again(subject: Subject, warm: RunningServer) -> None:
    with httpx.Client(base_url=warm.base_url, timeout=120) as http:
        first = send(http, first_turn("openai", subject.model, "lakes", "Name a deep lake."))
        again = send(http, Turn("openai", {**first.body, "n": 3}))
        words = first.text.split()
        assert len(words) > 3
        stop = words[3]
        cut = send(http, Turn("openai", {**first.body, "stop": [stop]}))
        after = send(http, next_turn(cut, "Why is it deep?"))
    assert [c["message"]["content"] for c in again.reply["choices"]] == [first.text] * 3
    # A checkpoint where the generation prompt starts serves it (ChatML's "<|im_start|>assistant\n" is 4 tokens of
    # SmolLM2's vocabulary), and the 4 are decoded again.
    assert again.cached == first.prompt - 4
    assert cut.reply["choices"][0]["finish_reason"] == "stop" and stop not in cut.text
    assert cut.text == first.text[:first.text.index(stop)]
    assert after.cached >= WARM_SHARE * (cut.prompt + cut.completion)  # the reply was cut: a checkpoint serves it
    [cold] = cold_replies(subject, [("openai", after.body)])
    assert cold.text == after.text


def test_a_client_that_leaves_mid_stream_then_the_next_request(subject: Subject, warm: RunningServer) -> None:
    first = first_turn("openai", subject.model, "forests", "Name a large forest.")
    with httpx.Client(base_url=warm.base_url, timeout=120) as http:
        with http.stream("POST", "/v1/chat/completions", json={**first.body, "stream": True}) as response:
            assert response.status_code == 200
            lines = response.iter_lines()
            for _ in range(4):
                next(lines)  # a few frames, then the client goes away
        whole = send(http, first)
        after = send(http, next_turn(whole, "Which country is it in?"))
    assert_warm(after, whole)
    cold = [cold_replies(subject, [("openai", turn.body)])[0] for turn in (whole, after)]  # one conversation
    assert [c.text for c in cold] == [whole.text, after.text]


def test_a_restart_keeps_conversations_warm_and_identical(subject: Subject) -> None:
    server = serve(subject, "before-restart", sessions="restart-sessions")
    try:
        with httpx.Client(base_url=server.base_url, timeout=120) as http:
            chat = [send(http, first_turn("openai", subject.model, "islands", "Name a big island."))]
            chain = [send(http, first_turn("responses", subject.model, "deserts", "Name a hot desert."))]
    finally:
        stop_server(server)  # a clean stop saves the lanes, checkpoints included
    server = serve(subject, "after-restart", sessions="restart-sessions")
    try:
        with httpx.Client(base_url=server.base_url, timeout=120) as http:
            chat.append(send(http, next_turn(chat[0], "How many people live there?")))
            chain.append(send(http, next_turn(chain[0], "How hot does it get?")))
            disk = http.get("/slots").json()[0]["kv_disk"]
    finally:
        stop_server(server)
    assert disk["restores"] >= 2
    assert_warm(chat[1], chat[0])
    assert_warm(chain[1], chain[0])
    cold = cold_replies(subject, [("openai", chat[1].body), ("responses", cold_body(chain, 1))])
    assert [c.text for c in cold] == [chat[1].text, chain[1].text]
