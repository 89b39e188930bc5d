"""Every validation rule of the Ollama surface, one request each, with raw httpx.

Refusals must be ``{"error": "message"}`` with the right status before any body is streamed; accepted
requests must produce records that validate against Ollama's published schemas. Generations are one to four
tokens long.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from conformance.reference import validate_ollama

NDJSON = "application/x-ndjson"
SHORT: dict[str, Any] = {"temperature": 0, "num_predict": 2}


def _chat(model: str, **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"model": model, "messages": [{"role": "user", "content": "hi"}], "stream": False,
                            "options": dict(SHORT)}
    body.update(extra)
    return body


def _generate(model: str, **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"model": model, "prompt": "hi", "stream": False, "options": dict(SHORT)}
    body.update(extra)
    return body


def _error(response: httpx.Response, status: int) -> str:
    assert response.status_code == status, f"expected {status}, got {response.status_code}: {response.text[:300]}"
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert set(body) == {"error"} and isinstance(body["error"], str) and body["error"]
    validate_ollama("ErrorResponse", body)
    return str(body["error"])


def _ok(response: httpx.Response, schema: str) -> dict[str, Any]:
    assert response.status_code == 200, response.text[:300]
    body: dict[str, Any] = response.json()
    validate_ollama(schema, body)
    assert body["done"] is True
    return body


def _lines(response: httpx.Response) -> list[dict[str, Any]]:
    assert response.status_code == 200, response.text[:300]
    assert response.headers["content-type"].startswith(NDJSON)
    return [json.loads(line) for line in response.text.splitlines()]


# ---- records ----------------------------------------------------------------------------------------


def test_chat_streams_by_default_and_every_line_is_a_record(http: httpx.Client, model: str) -> None:
    body = _chat(model)
    del body["stream"]
    lines = _lines(http.post("/api/chat", json=body))
    for line in lines:
        validate_ollama("ChatStreamEvent", line)
        validate_ollama("ChatResponse", line)
        assert line["model"] == model and line["created_at"].endswith("Z")
    assert [line["done"] for line in lines] == [False] * (len(lines) - 1) + [True]
    final = lines[-1]
    assert set(final) == {"model", "created_at", "message", "done", "done_reason", "total_duration",
                          "prompt_eval_count", "prompt_eval_cached_count", "eval_count"}
    assert final["message"] == {"role": "assistant", "content": ""}
    assert final["eval_count"] == SHORT["num_predict"] and final["done_reason"] == "length"


def test_generate_streams_by_default_and_every_line_is_a_record(http: httpx.Client, model: str) -> None:
    body = _generate(model)
    del body["stream"]
    lines = _lines(http.post("/api/generate", json=body))
    for line in lines:
        validate_ollama("GenerateStreamEvent", line)
        validate_ollama("GenerateResponse", line)
    final = lines[-1]
    assert final["done"] is True and final["response"] == ""
    assert {"load_duration", "prompt_eval_duration", "eval_duration", "context"}.isdisjoint(final)


def test_non_streaming_records_validate(http: httpx.Client, model: str) -> None:
    chat = _ok(http.post("/api/chat", json=_chat(model)), "ChatResponse")
    assert chat["message"]["role"] == "assistant" and chat["message"]["content"]
    generated = _ok(http.post("/api/generate", json=_generate(model)), "GenerateResponse")
    assert generated["response"]
    assert isinstance(generated["prompt_eval_cached_count"], int)


def test_null_fields_are_no_fields(http: httpx.Client, model: str) -> None:
    body = _chat(model, foo=None, keep_alive=None, format=None, think=None, tools=None, logprobs=None)
    body["options"] = {**SHORT, "mirostat": None, "stop": None, "seed": None}
    _ok(http.post("/api/chat", json=body), "ChatResponse")
    # No options at all means no num_predict: the reply may run to the end of the window at temperature 0.8, so
    # read its first record and hang up (the server cancels the rest).
    with http.stream("POST", "/api/chat", json={**_chat(model), "options": None, "stream": True}) as reply:
        assert reply.status_code == 200, reply.read()[:300]
        first = json.loads(next(reply.iter_lines()))
    validate_ollama("ChatResponse", first)
    assert first["model"] == model


def test_preloads(http: httpx.Client, model: str) -> None:
    for path, body in (("/api/chat", {"model": model, "messages": [], "stream": False}),
                       ("/api/chat", {"model": model, "stream": False}),
                       ("/api/generate", {"model": model, "prompt": "", "stream": False}),
                       ("/api/generate", {"model": model, "suffix": "", "images": [], "stream": False})):
        response = http.post(path, json=body)
        assert response.status_code == 200, response.text
        assert response.json()["done_reason"] == "load"
    streamed = _lines(http.post("/api/generate", json={"model": model}))
    assert len(streamed) == 1 and streamed[0]["done_reason"] == "load"


def test_empty_prompt_with_a_system_prompt_generates(http: httpx.Client, model: str) -> None:
    body = _ok(http.post("/api/generate", json=_generate(model, prompt="", system="Say hello.")), "GenerateResponse")
    assert body["done_reason"] != "load"


def test_empty_suffix_and_template_are_none(http: httpx.Client, model: str) -> None:
    _ok(http.post("/api/generate", json=_generate(model, suffix="", template="")), "GenerateResponse")


# ---- unknown fields ---------------------------------------------------------------------------------


@pytest.mark.parametrize("field", ["foo", "tool_choice", "context", "keep_alive_s", "n"])
def test_unknown_chat_field(http: httpx.Client, model: str, field: str) -> None:
    assert _error(http.post("/api/chat", json=_chat(model, **{field: 1})), 400) == f"unsupported parameter: {field}"


@pytest.mark.parametrize("field", ["foo", "context", "tools", "logprobs", "top_logprobs", "messages"])
def test_unknown_generate_field(http: httpx.Client, model: str, field: str) -> None:
    message = _error(http.post("/api/generate", json=_generate(model, **{field: []})), 400)
    assert message == f"unsupported parameter: {field}"


def test_unknown_message_field(http: httpx.Client, model: str) -> None:
    body = _chat(model, messages=[{"role": "user", "content": "hi", "name": "bob"}])
    assert _error(http.post("/api/chat", json=body), 400) == "unsupported parameter: messages[0].name"


@pytest.mark.parametrize("value", ["5m", 0, -1, "0", 300])
@pytest.mark.parametrize("path", ["/api/chat", "/api/generate", "/api/embed", "/api/embeddings"])
def test_keep_alive_is_refused(http: httpx.Client, model: str, path: str, value: Any) -> None:
    body = {"model": model, "keep_alive": value, "input": "x", "prompt": "x"} if "embed" in path else (
        _chat(model, keep_alive=value) if path == "/api/chat" else _generate(model, keep_alive=value))
    assert "keep_alive" in _error(http.post(path, json=body), 400)


# ---- options ----------------------------------------------------------------------------------------

UNSUPPORTED_OPTIONS = ["num_gpu", "num_thread", "mirostat", "mirostat_tau", "mirostat_eta", "num_keep", "typical_p",
                       "tfs_z", "repeat_last_n", "penalize_newline", "numa", "num_batch", "main_gpu", "low_vram",
                       "use_mmap", "use_mlock", "f16_kv", "vocab_only", "embedding_only", "logits_all"]


@pytest.mark.parametrize("option", UNSUPPORTED_OPTIONS)
def test_unsupported_option(http: httpx.Client, model: str, option: str) -> None:
    body = _chat(model)
    body["options"][option] = 1
    assert _error(http.post("/api/chat", json=body), 400) == f"unsupported option: {option}"


@pytest.mark.parametrize(("option", "value"), [
    ("num_predict", 0), ("num_predict", -3), ("num_predict", 1.5), ("num_predict", "8"),
    ("temperature", -0.1), ("top_p", -0.1), ("top_p", 1.01), ("min_p", -0.5), ("min_p", 2),
    ("top_k", -1), ("seed", -2), ("repeat_penalty", 0), ("repeat_penalty", -1),
    ("presence_penalty", 2.01), ("presence_penalty", -2.01), ("frequency_penalty", 3), ("frequency_penalty", -3),
    ("stop", ["a", "b", "c", "d", "e"]), ("stop", [""]), ("stop", ""), ("stop", [1]),
])
def test_option_out_of_range(http: httpx.Client, model: str, option: str, value: Any) -> None:
    body = _generate(model)
    body["options"][option] = value
    assert option in _error(http.post("/api/generate", json=body), 400)


@pytest.mark.parametrize(("option", "value"), [
    ("temperature", 0), ("top_p", 0), ("top_p", 1), ("min_p", 1), ("top_k", 0), ("seed", -1), ("seed", 0),
    ("seed", 42), ("repeat_penalty", 1.1), ("presence_penalty", -2), ("frequency_penalty", 2),
    ("stop", ["a", "b", "c", "d"]), ("stop", "."), ("num_predict", 1),
])
def test_option_in_range(http: httpx.Client, model: str, option: str, value: Any) -> None:
    body = _generate(model)
    body["options"][option] = value
    _ok(http.post("/api/generate", json=body), "GenerateResponse")


@pytest.mark.parametrize("value", [-1, -2])
def test_num_predict_fills_the_context(http: httpx.Client, model: str, value: int) -> None:
    """-1 and -2 are accepted; the stream is closed after its first record so the window is not filled."""
    body = _chat(model, stream=True)
    body["options"]["num_predict"] = value
    with http.stream("POST", "/api/chat", json=body) as response:
        assert response.status_code == 200
        first = json.loads(next(response.iter_lines()))
    assert first["done"] is False


def test_num_ctx_must_be_the_window(http: httpx.Client, model: str) -> None:
    window = http.get(f"/v1/models/{model}").json()["meta"]["n_ctx"]
    body = _chat(model)
    body["options"]["num_ctx"] = window
    _ok(http.post("/api/chat", json=body), "ChatResponse")
    body["options"]["num_ctx"] = 2048
    message = _error(http.post("/api/chat", json=body), 400)
    assert "num_ctx" in message and str(window) in message


# ---- raw, suffix, template, images ------------------------------------------------------------------

PLAIN_PROMPT_REFUSALS: list[tuple[str, Any]] = [
    ("system", "Be brief."), ("images", ["aGVsbG8="]), ("format", "json"), ("think", False), ("think", True),
]


@pytest.mark.parametrize(("field", "value"), PLAIN_PROMPT_REFUSALS)
@pytest.mark.parametrize("mode", [{"raw": True}, {"suffix": "return x"}])
def test_raw_and_suffix_refuse(http: httpx.Client, model: str, mode: dict[str, Any], field: str,
                               value: Any) -> None:
    message = _error(http.post("/api/generate", json=_generate(model, **mode, **{field: value})), 400)
    assert f"'{field}'" in message


@pytest.mark.parametrize("mode", [{"raw": True}, {"suffix": "return x"}])
def test_raw_and_suffix_refuse_stop(http: httpx.Client, model: str, mode: dict[str, Any]) -> None:
    body = _generate(model, **mode)
    body["options"]["stop"] = ["\n"]
    assert "'options.stop'" in _error(http.post("/api/generate", json=body), 400)


def test_suffix_needs_a_fill_in_the_middle_model(http: httpx.Client, model: str) -> None:
    assert "fill-in-the-middle" in _error(http.post("/api/generate", json=_generate(model, suffix="x")), 400)


def test_template_only_empty(http: httpx.Client, model: str) -> None:
    assert "template" in _error(http.post("/api/generate", json=_generate(model, template="{{ .Prompt }}")), 400)


def test_images_on_a_text_only_model(http: httpx.Client, model: str) -> None:
    message = _error(http.post("/api/generate", json=_generate(model, images=["aGVsbG8="])), 400)
    assert "images" in message
    chat = _chat(model, messages=[{"role": "user", "content": "What is this?", "images": ["aGVsbG8="]}])
    assert "images" in _error(http.post("/api/chat", json=chat), 400)


# ---- think, format, tools, logprobs -----------------------------------------------------------------


@pytest.mark.parametrize("think", [True, "low", "high", "minimal", "medium"])
@pytest.mark.parametrize("path", ["/api/chat", "/api/generate"])
def test_think_on_a_template_without_thinking(http: httpx.Client, model: str, path: str, think: Any) -> None:
    body = _chat(model, think=think) if path == "/api/chat" else _generate(model, think=think)
    assert "think" in _error(http.post(path, json=body), 400)


def test_think_false_is_accepted(http: httpx.Client, model: str) -> None:
    _ok(http.post("/api/chat", json=_chat(model, think=False)), "ChatResponse")


@pytest.mark.parametrize("think", ["max", "none", 1])
def test_think_values_outside_the_document(http: httpx.Client, model: str, think: Any) -> None:
    assert "think" in _error(http.post("/api/chat", json=_chat(model, think=think)), 400)


@pytest.mark.parametrize("value", ["yaml", "JSON", 3, ["json"]])
def test_format_is_json_or_a_schema(http: httpx.Client, model: str, value: Any) -> None:
    assert "format" in _error(http.post("/api/chat", json=_chat(model, format=value)), 400)


def test_format_with_tools(http: httpx.Client, model: str) -> None:
    tool = {"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}
    assert "format" in _error(http.post("/api/chat", json=_chat(model, format="json", tools=[tool])), 400)


@pytest.mark.parametrize("tool", [{"type": "retrieval", "function": {"name": "f"}}, {"type": "function"},
                                  {"function": {"description": "no name"}}, "f"])
def test_malformed_tools(http: httpx.Client, model: str, tool: Any) -> None:
    assert "tools[0]" in _error(http.post("/api/chat", json=_chat(model, tools=[tool])), 400)


def test_empty_tools_is_no_tools(http: httpx.Client, model: str) -> None:
    _ok(http.post("/api/chat", json=_chat(model, tools=[])), "ChatResponse")


@pytest.mark.parametrize(("fields", "needle"), [
    ({"logprobs": True, "top_logprobs": 21}, "top_logprobs"),
    ({"logprobs": True, "top_logprobs": -1}, "top_logprobs"),
    ({"top_logprobs": 3}, "top_logprobs"),
    ({"logprobs": "yes"}, "logprobs"),
])
def test_logprobs_bounds(http: httpx.Client, model: str, fields: dict[str, Any], needle: str) -> None:
    assert needle in _error(http.post("/api/chat", json=_chat(model, **fields)), 400)


def test_logprobs_records(http: httpx.Client, model: str) -> None:
    body = _ok(http.post("/api/chat", json=_chat(model, logprobs=True, top_logprobs=20)), "ChatResponse")
    assert len(body["logprobs"]) == body["eval_count"]
    assert all(len(entry["top_logprobs"]) == 20 for entry in body["logprobs"])
    streamed = _lines(http.post("/api/chat", json=_chat(model, stream=True, logprobs=True)))
    tokens = [entry for line in streamed for entry in line.get("logprobs", [])]
    assert len(tokens) == streamed[-1]["eval_count"]
    assert all(entry["top_logprobs"] == [] for entry in tokens)


# ---- shape of the request ---------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/api/chat", "/api/generate", "/api/show", "/api/embed", "/api/embeddings"])
def test_missing_model(http: httpx.Client, path: str) -> None:
    assert "model" in _error(http.post(path, json={"messages": [], "prompt": "x", "input": "x"}), 400)


NAMED_BODIES: dict[str, dict[str, Any]] = {
    "/api/chat": {"messages": [{"role": "user", "content": "hi"}], "stream": False},
    "/api/generate": {"prompt": "hi", "stream": False},
    "/api/show": {},
    "/api/embed": {"input": "hi"},
}


@pytest.mark.parametrize("name", ["no-such-model", "hf.co/owner/repo:Q4_K_M", "/tmp/model.gguf", "library/llama3:8b",
                                  "smollm2-135m-instruct:q4"])
@pytest.mark.parametrize("path", list(NAMED_BODIES))
def test_unknown_and_remote_names_are_404(http: httpx.Client, path: str, name: str) -> None:
    assert name in _error(http.post(path, json={"model": name, **NAMED_BODIES[path]}), 404)


def test_latest_is_the_model(http: httpx.Client, model: str) -> None:
    assert _ok(http.post("/api/chat", json=_chat(model + ":latest")), "ChatResponse")["model"] == model


@pytest.mark.parametrize("messages", [[{"content": "no role"}], [{"role": "robot", "content": "x"}],
                                      [{"role": "user", "content": 3}], "hi"])
def test_malformed_messages(http: httpx.Client, model: str, messages: Any) -> None:
    assert "messages" in _error(http.post("/api/chat", json=_chat(model, messages=messages)), 400)


def test_malformed_json(http: httpx.Client) -> None:
    response = http.post("/api/chat", content=b'{"model": "x", "messages": [',
                         headers={"content-type": "application/json"})
    _error(response, 400)


def test_body_must_be_an_object(http: httpx.Client) -> None:
    _error(http.post("/api/generate", json=["model"]), 400)


def test_unknown_route_and_wrong_method(http: httpx.Client) -> None:
    _error(http.get("/api/nothing-here"), 404)
    _error(http.get("/api/chat"), 405)


# ---- embeddings -------------------------------------------------------------------------------------


@pytest.mark.parametrize("body", [
    {"input": "one"}, {"input": ["one", "two"]}, {"input": ""}, {"input": []},
    {"input": "one", "truncate": False, "dimensions": 8}, {"input": "one", "options": {"num_ctx": None}},
])
def test_embed_refuses_a_generation_model(http: httpx.Client, model: str, body: dict[str, Any]) -> None:
    message = _error(http.post("/api/embed", json={"model": model, **body}), 400)
    assert "serves no embeddings" in message


def test_legacy_embeddings_refuse_a_generation_model(http: httpx.Client, model: str) -> None:
    response = http.post("/api/embeddings", json={"model": model, "prompt": "one"})
    assert "serves no embeddings" in _error(response, 400)


@pytest.mark.parametrize(("body", "needle"), [
    ({}, "input"), ({"input": 3}, "input"), ({"input": [1, 2]}, "input"), ({"input": "x", "dimensions": 0},
                                                                           "dimensions"),
    ({"input": "x", "truncate": "no"}, "truncate"), ({"input": "x", "prompt": "y"}, "unsupported parameter: prompt"),
    ({"input": "x", "options": {"num_gpu": 1}}, "unsupported option: num_gpu"),
])
def test_embed_validates_its_input(http: httpx.Client, model: str, body: dict[str, Any], needle: str) -> None:
    assert needle in _error(http.post("/api/embed", json={"model": model, **body}), 400)


def test_legacy_embeddings_validate_their_input(http: httpx.Client, model: str) -> None:
    assert "prompt" in _error(http.post("/api/embeddings", json={"model": model, "prompt": 3}), 400)
    response = http.post("/api/embeddings", json={"model": model, "prompt": "x", "input": "y"})
    assert _error(response, 400) == "unsupported parameter: input"


# ---- discovery and model distribution ---------------------------------------------------------------


def test_root_is_plain_text(http: httpx.Client) -> None:
    response = http.get("/")
    assert response.status_code == 200 and response.text == "superfluid is running"
    assert response.headers["content-type"].startswith("text/plain")
    assert http.head("/").status_code == 200


def test_show_refuses_unknown_fields(http: httpx.Client, model: str) -> None:
    assert _error(http.post("/api/show", json={"model": model, "foo": 1}), 400) == "unsupported parameter: foo"


DISTRIBUTION = ["/api/pull", "/api/push", "/api/create", "/api/copy", "/api/delete", "/api/blobs/sha256:0123abcd"]


@pytest.mark.parametrize("method", ["GET", "POST", "PUT", "PATCH", "DELETE"])
@pytest.mark.parametrize("path", DISTRIBUTION)
def test_model_distribution_is_501(http: httpx.Client, path: str, method: str) -> None:
    response = http.request(method, path, json={"model": "x"})
    assert "not served" in _error(response, 501)


@pytest.mark.parametrize("path", DISTRIBUTION)
def test_model_distribution_head_is_501(http: httpx.Client, path: str) -> None:
    assert http.head(path).status_code == 501


def test_a_form_content_type_is_read_as_json(http: httpx.Client) -> None:
    """curl -d sends application/x-www-form-urlencoded; Ollama reads the body as JSON anyway."""
    body = json.dumps({"model": "smollm2-135m-instruct", "prompt": "Hi", "stream": False,
                       "options": {"num_predict": 2, "temperature": 0}})
    reply = http.post("/api/generate", content=body, headers={"content-type": "application/x-www-form-urlencoded"})
    assert reply.status_code == 200, reply.text
    assert reply.json()["done"] is True


def test_seed_zero_is_a_fixed_seed(http: httpx.Client) -> None:
    body = {"model": "smollm2-135m-instruct", "prompt": "Name a fruit.", "stream": False,
            "options": {"num_predict": 12, "temperature": 1.0, "seed": 0}}
    first = http.post("/api/generate", json=body).json()["response"]
    second = http.post("/api/generate", json=body).json()["response"]
    assert first == second
