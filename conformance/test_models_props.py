"""GET /v1/models, GET /v1/models/{id}, GET /props (with ?model= and ?autoload=1) and POST /v1/tokenize."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from conformance.server import RunningServer, start_server, stop_server

WINDOW = 8192
DIALECT_KEYS = {"enable_thinking", "reasoning_effort", "reasoning_effort_levels", "fim", "fim_model"}
KV_KEYS = {"lanes", "busy", "waiting", "cached_tokens"}


def _json(response: httpx.Response) -> Any:
    assert response.status_code == 200, response.text[:500]
    return response.json()


def _check_entry(entry: dict[str, Any]) -> None:
    assert entry["object"] == "model"
    assert isinstance(entry["created"], int)
    assert isinstance(entry["owned_by"], str)
    assert isinstance(entry["loaded"], bool)
    assert "n_ctx" in entry["meta"]
    if entry["loaded"]:
        assert isinstance(entry["meta"]["n_ctx"], int) and entry["meta"]["n_ctx"] > 0
    modalities = entry["architecture"]["input_modalities"]
    assert isinstance(modalities, list) and "text" in modalities
    assert isinstance(entry["runtime"], str) and entry["runtime"]
    dialect = entry["capabilities"]["dialect"]
    assert set(dialect) >= DIALECT_KEYS
    assert isinstance(dialect["enable_thinking"], bool)
    assert isinstance(dialect["reasoning_effort"], bool)
    assert isinstance(dialect["reasoning_effort_levels"], list)
    assert isinstance(dialect["fim"], bool)
    assert dialect["fim_model"] is None or isinstance(dialect["fim_model"], str)
    if not dialect["reasoning_effort"]:
        assert dialect["reasoning_effort_levels"] == []


# ---- /v1/models -------------------------------------------------------------------------------------


def test_models_lists_both_known_models(http: httpx.Client, model: str, second_model: str) -> None:
    listing = _json(http.get("/v1/models"))
    assert listing["object"] == "list"
    entries = {entry["id"]: entry for entry in listing["data"]}
    assert model in entries and second_model in entries
    assert listing["data"][0]["id"] == model  # the default model comes first
    for entry in listing["data"]:
        _check_entry(entry)
    default = entries[model]
    assert default["loaded"] is True
    assert default["meta"]["n_ctx"] == WINDOW
    assert default["runtime"] == "llamacpp"
    assert default["architecture"]["input_modalities"] == ["text"]


def test_bundled_model_dialect(http: httpx.Client, model: str) -> None:
    dialect = _json(http.get(f"/v1/models/{model}"))["capabilities"]["dialect"]
    # SmolLM2's template has no thinking switch and its vocabulary has no fill-in-the-middle tokens.
    assert dialect["enable_thinking"] is False
    assert dialect["reasoning_effort"] is False
    assert dialect["reasoning_effort_levels"] == []
    assert dialect["fim"] is False
    assert dialect["fim_model"] is None


@pytest.fixture(scope="module")
def untouched(tmp_path_factory: pytest.TempPathFactory, model: str, second_model: str) -> Iterator[httpx.Client]:
    """A server of this module's own whose second model nothing has loaded (the shared one may have); its models
    decode with flash attention on, where with one lane ``auto`` would turn it off."""
    log_path = tmp_path_factory.mktemp("untouched") / "serve.log"
    running: RunningServer = start_server([model, second_model, "--parallel", "1", "--flash-attn", "on"], log_path)
    try:
        with httpx.Client(base_url=running.base_url, timeout=120) as client:
            yield client
    finally:
        stop_server(running)


def test_window_of_a_known_model_is_never_zero_in_models(untouched: httpx.Client, second_model: str) -> None:
    """meta.n_ctx is the context window: known once loaded, else known from the GGUF or null, never 0."""
    entries = [_json(untouched.get(f"/v1/models/{second_model}")),
               *[e for e in _json(untouched.get("/v1/models"))["data"] if e["id"] == second_model]]
    assert all(entry["loaded"] is False for entry in entries)
    for entry in entries:
        meta = entry["meta"]
        for key in ("n_ctx", "n_ctx_train"):
            value = meta.get(key)
            assert value is None or value > 0, f"{second_model}: meta.{key}={value!r} (loaded={entry['loaded']})"


def test_model_by_id_matches_the_list(http: httpx.Client, model: str, second_model: str) -> None:
    listing = {entry["id"]: entry for entry in _json(http.get("/v1/models"))["data"]}
    for model_id in (model, second_model):
        one = _json(http.get(f"/v1/models/{model_id}"))
        _check_entry(one)
        assert one["id"] == model_id
        assert one["capabilities"] == listing[model_id]["capabilities"]
        assert one["runtime"] == listing[model_id]["runtime"]


def test_unknown_model_id(http: httpx.Client) -> None:
    response = http.get("/v1/models/no-such-model")
    assert response.status_code == 404
    assert response.json()["error"]["message"]


# ---- /props -----------------------------------------------------------------------------------------


def test_props_of_the_default_model(http: httpx.Client, model: str) -> None:
    props = _json(http.get("/props"))
    assert props["model"] == model
    assert props["loaded"] is True
    assert props["max_context"] == WINDOW
    settings = props["default_generation_settings"]
    assert settings["n_ctx"] == WINDOW
    params = settings["params"]
    assert isinstance(params, dict)
    for name in ("temperature", "top_p"):
        if name in params:  # a default may be omitted while unknown, never guessed
            assert isinstance(params[name], (int, float))
    assert isinstance(props["chat_template"], str) and "messages" in props["chat_template"]
    assert props["chat_template_source"] == "gguf"
    assert props["tool_format"] == "generic"  # SmolLM2's template neither reads tools nor renders calls
    kv = props["kv_cache"]
    assert set(kv) >= KV_KEYS
    assert kv["lanes"] == 4  # the session's server runs with --parallel 4
    assert 0 <= kv["busy"] <= kv["lanes"]
    assert kv["waiting"] >= 0
    assert kv["cached_tokens"] >= 0
    assert set(props["capabilities"]["dialect"]) >= DIALECT_KEYS
    # --flash-attn auto: four lanes share one KV pool here, so llama.cpp chooses (docs/performance.md, "Flash
    # attention"); test_kv_streams.py sees it off where each lane has a stream
    assert props["flash_attention"] == "auto"


def test_flash_attention_on_is_reported_and_decodes(untouched: httpx.Client, model: str) -> None:
    assert _json(untouched.get(f"/props?model={model}"))["flash_attention"] == "on"
    reply = _json(untouched.post("/v1/chat/completions", json={
        "model": model, "max_tokens": 48, "temperature": 0,
        "messages": [{"role": "user", "content": "Name three colours of the rainbow."}]}))
    assert reply["usage"]["completion_tokens"] > 0
    assert reply["choices"][0]["message"]["content"].strip()


def test_props_capabilities_match_models(http: httpx.Client, model: str) -> None:
    props = _json(http.get(f"/props?model={model}"))
    entry = _json(http.get(f"/v1/models/{model}"))
    assert props["model"] == model
    assert props["capabilities"] == entry["capabilities"]
    assert props["max_context"] == entry["meta"]["n_ctx"]


def test_props_reflects_cached_tokens_after_a_request(http: httpx.Client, model: str) -> None:
    body = {"model": model, "messages": [{"role": "user", "content": "Remember the word lighthouse."}],
            "temperature": 0, "max_tokens": 4}
    reply = _json(http.post("/v1/chat/completions", json=body))
    kv = _json(http.get("/props"))["kv_cache"]
    # the finished request's prompt stays in its lane's cache for the next one that shares the prefix
    assert kv["cached_tokens"] >= reply["usage"]["prompt_tokens"]


def test_props_unknown_model(http: httpx.Client) -> None:
    assert http.get("/props?model=no-such-model").status_code == 404
    assert http.get("/props?model=no-such-model&autoload=1").status_code == 404


def test_props_of_a_known_model_without_autoload(http: httpx.Client, second_model: str) -> None:
    props = _json(http.get(f"/props?model={second_model}"))
    assert props["model"] == second_model
    assert isinstance(props["loaded"], bool)
    assert props["chat_template_source"] == "builtin"
    assert set(props) >= {"default_generation_settings", "max_context", "chat_template", "kv_cache",
                          "capabilities"}


def test_window_of_a_known_model_is_never_zero_in_props(untouched: httpx.Client, second_model: str) -> None:
    """Before a model loads, its window is what it will be served with, or absent; 0 would be a wrong guess."""
    props = _json(untouched.get(f"/props?model={second_model}"))
    assert props["loaded"] is False
    max_context = props.get("max_context")
    assert max_context is None or max_context > 0, f"max_context={max_context!r} (loaded={props['loaded']})"
    n_ctx = props["default_generation_settings"].get("n_ctx")
    assert n_ctx is None or n_ctx > 0, f"default_generation_settings.n_ctx={n_ctx!r}"


def test_autoload_then_chat_on_the_second_model(http: httpx.Client, second_model: str) -> None:
    props = _json(http.get(f"/props?model={second_model}&autoload=1"))
    assert props["model"] == second_model
    assert props["loaded"] is True
    assert props["max_context"] == WINDOW
    # Gemma 3 270M's GGUF carries no chat template, so a built-in one serves it.
    assert props["chat_template_source"] == "builtin"
    assert "start_of_turn" in props["chat_template"]
    assert set(props["kv_cache"]) >= KV_KEYS
    assert props["kv_cache"]["busy"] == 0

    entry = _json(http.get(f"/v1/models/{second_model}"))
    assert entry["loaded"] is True
    assert entry["meta"]["n_ctx"] == WINDOW
    listed = {e["id"]: e for e in _json(http.get("/v1/models"))["data"]}
    assert listed[second_model]["loaded"] is True

    body = {"model": second_model, "messages": [{"role": "user", "content": "Say hello."}], "temperature": 0,
            "max_tokens": 6}
    reply = _json(http.post("/v1/chat/completions", json=body))
    assert reply["model"] == second_model
    assert reply["choices"][0]["message"]["role"] == "assistant"
    assert reply["choices"][0]["finish_reason"] in ("stop", "length")
    assert reply["usage"]["prompt_tokens"] > 0

    # the default model is still the default, and still served
    assert _json(http.get("/props"))["model"] != second_model


def test_gemma_template_renders_turns(http: httpx.Client, second_model: str) -> None:
    """The built-in gemma template wraps each turn in <start_of_turn>/<end_of_turn> and ends with the model's."""
    text = "Say hello."
    body = {"model": second_model, "messages": [{"role": "user", "content": text}], "temperature": 0,
            "max_tokens": 1}
    reply = _json(http.post("/v1/chat/completions", json=body))
    expected = "<start_of_turn>user\n" + text + "<end_of_turn>\n<start_of_turn>model\n"
    counted = _json(http.post("/v1/tokenize", json={"model": second_model, "content": expected}))["count"]
    # the rendered prompt is the turns plus at most a BOS token
    assert reply["usage"]["prompt_tokens"] in (counted, counted + 1)


# ---- /v1/tokenize -----------------------------------------------------------------------------------


def test_tokenize(http: httpx.Client, model: str) -> None:
    reply = _json(http.post("/v1/tokenize", json={"model": model, "content": "Hello world"}))
    assert reply["model"] == model
    tokens = reply["tokens"]
    assert isinstance(tokens, list) and tokens
    assert all(isinstance(t, int) and t >= 0 for t in tokens)
    assert reply["count"] == len(tokens)


def test_tokenize_prompt_alias_and_pieces(http: httpx.Client, model: str) -> None:
    by_content = _json(http.post("/v1/tokenize", json={"model": model, "content": "Hello world"}))
    reply = _json(http.post("/v1/tokenize", json={"model": model, "prompt": "Hello world", "with_pieces": True}))
    assert reply["tokens"] == by_content["tokens"]
    assert "".join(reply["pieces"]) == "Hello world"
    assert len(reply["pieces"]) == reply["count"]


def test_tokenize_matches_completion_prompt_tokens(http: httpx.Client, model: str) -> None:
    text = "The quick brown fox jumps over the lazy dog."
    counted = _json(http.post("/v1/tokenize", json={"model": model, "content": text, "add_special": True}))
    reply = _json(http.post("/v1/completions", json={"model": model, "prompt": text, "max_tokens": 1,
                                                      "temperature": 0}))
    assert reply["usage"]["prompt_tokens"] == counted["count"]


@pytest.mark.parametrize(
    ("body", "status"),
    [({"content": "hi"}, 400), ({"model": "no-such-model", "content": "hi"}, 404)],
    ids=["no_model", "unknown_model"],
)
def test_tokenize_errors(http: httpx.Client, body: dict[str, Any], status: int) -> None:
    response = http.post("/v1/tokenize", json=body)
    assert response.status_code == status
    assert response.json()["error"]["message"]


def test_tokenize_without_text(http: httpx.Client, model: str) -> None:
    response = http.post("/v1/tokenize", json={"model": model})
    assert response.status_code == 400
    assert response.json()["error"]["param"] == "content"


def test_where_the_model_lives_is_reported_the_same_everywhere(http: httpx.Client, model: str) -> None:
    """/v1/models' meta.offload, /props' offload and devices, /slots and Ollama's /api/ps tell one story: on a CPU
    build every layer and byte is on the CPU (docs/models.md, "GPU offload")."""
    placed = _json(http.get(f"/v1/models/{model}"))["meta"]["offload"]
    props = _json(http.get("/props"))
    slots = _json(http.get("/slots"))[0]
    ps = next(m for m in _json(http.get("/api/ps"))["models"] if m["model"] == model)
    assert props["offload"] == placed == slots["offload"]
    assert placed["n_gpu_layers"] == "auto" and isinstance(placed["layers"], int) and placed["of"] > 0
    devices = {d["name"]: d for d in placed["devices"]}
    assert devices["CPU"]["weights_bytes"] > 0 and devices["CPU"]["kv_bytes"] > 0
    assert all(d["bytes"] == d["weights_bytes"] + d["kv_bytes"] + d["compute_bytes"] for d in devices.values())
    assert ps["size"] == sum(d["bytes"] for d in devices.values())
    assert ps["size_vram"] == sum(d["bytes"] for name, d in devices.items() if name != "CPU")
    found = {d["name"]: d for d in props["devices"]}
    assert found["CPU"]["type"] == "cpu" and found["CPU"]["total_bytes"] > 0
    assert set(devices) <= set(found)
