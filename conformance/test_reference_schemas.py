"""Every non-streaming reply body held to OpenAI's published component schemas.

superfluid adds its own fields (``superfluid``, ``loaded``, ``meta``, ...); the published schemas allow
extra properties, so these checks are about the fields OpenAI clients rely on.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from conformance.reference import validate_openai


def _ok(response: httpx.Response) -> Any:
    assert response.status_code == 200, response.text[:500]
    assert response.headers["content-type"].startswith("application/json")
    return response.json()


CHAT_VARIANTS: dict[str, dict[str, Any]] = {
    "plain": {},
    "system_and_history": {
        "messages": [
            {"role": "system", "content": "You are terse."},
            {"role": "user", "content": "Hi."},
            {"role": "assistant", "content": "Hello."},
            {"role": "user", "content": "Say it again."},
        ]
    },
    "developer_role": {"messages": [{"role": "developer", "content": "Be brief."},
                                    {"role": "user", "content": "Hi."}]},
    "text_parts": {"messages": [{"role": "user", "content": [{"type": "text", "text": "Say hello."}]}]},
    "n_2": {"n": 2, "temperature": 0.7, "seed": 11},
    "stop": {"stop": ["."]},
    "max_completion_tokens": {"max_completion_tokens": 2},
    "ignore_eos": {"ignore_eos": True, "max_tokens": 4},
    "penalties": {"presence_penalty": 0.5, "frequency_penalty": 0.5, "repeat_penalty": 1.1},
    "truncation": {"top_k": 5, "top_p": 0.9, "min_p": 0.1, "temperature": 0.5, "seed": 3},
}


@pytest.mark.parametrize("variant", sorted(CHAT_VARIANTS))
def test_chat_completion(http: httpx.Client, model: str, variant: str) -> None:
    body: dict[str, Any] = {"model": model, "messages": [{"role": "user", "content": "Say hello."}],
                            "temperature": 0, "max_tokens": 6}
    body.update(CHAT_VARIANTS[variant])
    reply = _ok(http.post("/v1/chat/completions", json=body))
    validate_openai("CreateChatCompletionResponse", reply)
    validate_openai("CompletionUsage", reply["usage"])
    assert reply["object"] == "chat.completion"
    assert len(reply["choices"]) == int(body.get("n", 1))


def test_chat_completion_on_the_second_model(http: httpx.Client, second_model: str) -> None:
    body = {"model": second_model, "messages": [{"role": "user", "content": "Say hello."}], "temperature": 0,
            "max_tokens": 4}
    validate_openai("CreateChatCompletionResponse", _ok(http.post("/v1/chat/completions", json=body)))


@pytest.mark.parametrize(
    "extra",
    [{}, {"echo": True}, {"max_tokens": 1}, {"seed": 5, "temperature": 0.8}],
    ids=["plain", "echo", "one_token", "seeded"],
)
def test_completion(http: httpx.Client, model: str, extra: dict[str, Any]) -> None:
    body = {"model": model, "prompt": "The capital of France is", "temperature": 0, "max_tokens": 6, **extra}
    reply = _ok(http.post("/v1/completions", json=body))
    validate_openai("CreateCompletionResponse", reply)
    validate_openai("CompletionUsage", reply["usage"])
    assert reply["object"] == "text_completion"
    if extra.get("echo"):
        assert reply["choices"][0]["text"].startswith(body["prompt"])


def test_models_list(http: httpx.Client, model: str, second_model: str) -> None:
    listing = _ok(http.get("/v1/models"))
    validate_openai("ListModelsResponse", listing)
    for entry in listing["data"]:
        validate_openai("Model", entry)
    assert {model, second_model} <= {entry["id"] for entry in listing["data"]}


@pytest.mark.parametrize("which", ["model", "second_model"])
def test_model(http: httpx.Client, request: pytest.FixtureRequest, which: str) -> None:
    model_id = request.getfixturevalue(which)
    entry = _ok(http.get(f"/v1/models/{model_id}"))
    validate_openai("Model", entry)
    assert entry["id"] == model_id


@pytest.mark.parametrize(
    ("method", "path", "body", "status"),
    [
        ("POST", "/v1/chat/completions", {"messages": [{"role": "user", "content": "hi"}]}, 400),
        ("POST", "/v1/chat/completions", {"model": "no-such-model", "messages": []}, 400),
        ("POST", "/v1/chat/completions", {"model": "no-such-model",
                                          "messages": [{"role": "user", "content": "hi"}]}, 404),
        ("POST", "/v1/completions", {"model": "no-such-model", "prompt": "hi"}, 404),
        ("GET", "/v1/models/no-such-model", None, 404),
        ("GET", "/v1/no-such-route", None, 404),
        ("POST", "/v1/tokenize", {"model": "no-such-model", "content": "hi"}, 404),
    ],
)
def test_error_bodies(http: httpx.Client, method: str, path: str, body: Any, status: int) -> None:
    response = http.request(method, path, json=body)
    assert response.status_code == status, response.text
    validate_openai("ErrorResponse", response.json())
