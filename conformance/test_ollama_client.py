"""The official ``ollama`` Python client against the real server on the bundled model.

What a user of that client sees: typed replies, streams of records it can iterate, and its ResponseError
carrying the server's status and message. Every generation is greedy and a few tokens long.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import jsonschema
import ollama
import pydantic
import pytest

from conformance.reference import validate_ollama
from conformance.server import start_server, stop_server

GREEDY: dict[str, Any] = {"temperature": 0, "seed": 7, "num_predict": 8}
WEATHER_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Get the current weather for a city",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    },
}
# With the generic tool format the bundled model may answer in words; greedy, this prompt makes it call.
CALLING_PROMPT = "Call get_weather with city Paris."


@pytest.fixture
def client(base_url: str) -> Iterator[ollama.Client]:
    sdk = ollama.Client(host=base_url, timeout=120)
    try:
        yield sdk
    finally:
        sdk.close()


def _user(text: str) -> list[dict[str, Any]]:
    return [{"role": "user", "content": text}]


def _fresh(text: str) -> str:
    return f"{text} (request {uuid.uuid4().hex[:12]})"


def _refused(error: pytest.ExceptionInfo[ollama.ResponseError], status: int) -> str:
    assert error.value.status_code == status, error.value
    return str(error.value.error)


# ---- discovery ----------------------------------------------------------------------------------------


def test_list_names_every_known_model(client: ollama.Client, http: httpx.Client, model: str,
                                      second_model: str) -> None:
    listed = client.list()
    assert [m.model for m in listed.models] == [model, second_model]
    for entry in listed.models:
        assert entry.model is not None
        assert entry.digest == hashlib.sha256(entry.model.encode()).hexdigest()
        assert entry.size == 0
        assert entry.modified_at is not None and entry.modified_at.tzinfo is not None
        assert entry.details is not None and entry.details.family is None
    validate_ollama("ListResponse", http.get("/api/tags").json())


def test_show_a_loaded_model(client: ollama.Client, http: httpx.Client, model: str) -> None:
    shown = client.show(model)
    assert shown.capabilities is not None and "completion" in shown.capabilities
    assert shown.template and "<|im_start|>" in shown.template
    assert shown.modelinfo is not None and shown.modelinfo["general.architecture"] == "llama"
    assert shown.details is not None and shown.details.format == "gguf"
    assert shown.parameters is not None and "num_ctx 8192" in shown.parameters.splitlines()
    validate_ollama("ShowResponse", http.post("/api/show", json={"model": model}).json())


def test_show_never_loads_a_cold_model(client: ollama.Client, second_model: str) -> None:
    was_loaded = second_model in {m.model for m in client.ps().models}
    shown = client.show(second_model)
    assert (second_model in {m.model for m in client.ps().models}) is was_loaded
    assert shown.modelinfo is not None and shown.modelinfo["general.architecture"] == "gemma3"
    if not was_loaded:
        assert shown.capabilities is None and shown.template is None


def test_show_accepts_latest_and_ignores_system_template_options(http: httpx.Client, model: str) -> None:
    plain = http.post("/api/show", json={"model": model}).json()
    extra = http.post("/api/show", json={"model": model + ":latest", "system": "x", "template": "{{ .Prompt }}",
                                         "options": {"num_gpu": 1}, "verbose": True}).json()
    assert extra == plain


def test_ps_lists_loaded_models_with_their_window(client: ollama.Client, http: httpx.Client, model: str) -> None:
    running = {m.model: m for m in client.ps().models}
    assert model in running
    assert running[model].context_length == http.get(f"/v1/models/{model}").json()["meta"]["n_ctx"]
    validate_ollama("PsResponse", http.get("/api/ps").json())


def test_version(http: httpx.Client) -> None:
    body = http.get("/api/version").json()
    assert body["server"] == "superfluid" and body["compatibility"] == "ollama-inference"
    assert isinstance(body["version"], str) and body["version"]
    validate_ollama("VersionResponse", body)


# ---- chat -------------------------------------------------------------------------------------------


def test_chat_non_streaming(client: ollama.Client, model: str) -> None:
    reply = client.chat(model=model, messages=_user("Name three primary colors."), options=GREEDY)
    assert reply.model == model
    assert reply.done is True and reply.done_reason in ("stop", "length")
    assert reply.message.role == "assistant" and reply.message.content
    assert reply.prompt_eval_count and reply.prompt_eval_count > 0
    assert reply.eval_count is not None and 0 < reply.eval_count <= GREEDY["num_predict"]
    assert reply.total_duration is not None and reply.total_duration > 0
    assert reply.load_duration is None and reply.prompt_eval_duration is None and reply.eval_duration is None
    assert reply.created_at is not None and reply.created_at.endswith("Z")


def test_chat_streaming_matches_non_streaming(client: ollama.Client, model: str) -> None:
    messages = _user("Name three primary colors.")
    whole = client.chat(model=model, messages=messages, options=GREEDY)
    parts = list(client.chat(model=model, messages=messages, options=GREEDY, stream=True))
    assert len(parts) >= 2
    assert all(p.done is False for p in parts[:-1])
    final = parts[-1]
    assert final.done is True and final.message.content == ""
    assert "".join(p.message.content or "" for p in parts) == whole.message.content
    assert final.done_reason == whole.done_reason
    assert final.eval_count == whole.eval_count and final.prompt_eval_count == whole.prompt_eval_count


def test_chat_keeps_history_and_latest_suffix(client: ollama.Client, model: str) -> None:
    history = [
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": "Say one word."},
        {"role": "assistant", "content": "Word."},
        {"role": "user", "content": _fresh("Another.")},
    ]
    reply = client.chat(model=model + ":latest", messages=history, options=GREEDY)
    assert reply.model == model and reply.message.content


def test_chat_preload(client: ollama.Client, model: str) -> None:
    reply = client.chat(model=model, messages=[])
    assert reply.done is True and reply.done_reason == "load"
    assert reply.message.content == ""


def test_structured_format_follows_the_schema(client: ollama.Client, model: str) -> None:
    schema = {"type": "object", "properties": {"name": {"type": "string", "maxLength": 12}},
              "required": ["name"], "additionalProperties": False}
    reply = client.chat(model=model, messages=_user("Return a planet name as JSON."), format=schema,
                        options={"temperature": 0, "num_predict": 32})
    assert reply.done_reason == "stop"
    jsonschema.validate(json.loads(reply.message.content or ""), schema)


def test_a_plain_pydantic_format_ends_in_valid_json(client: ollama.Client, model: str) -> None:
    """ollama.chat(format=Model.model_json_schema()): no additionalProperties, so the object is closed."""

    class Planet(pydantic.BaseModel):
        name: str
        moons: int

    schema = Planet.model_json_schema()
    reply = client.chat(model=model, messages=_user("Name a planet and how many moons it has, as JSON."),
                        format=schema, options={"temperature": 0, "num_predict": 200})
    assert reply.done_reason == "stop", reply.message.content
    value = json.loads(reply.message.content or "")
    jsonschema.validate(value, schema)
    assert set(value) <= {"name", "moons"}
    Planet.model_validate(value)


def test_format_json_is_a_json_object(client: ollama.Client, model: str) -> None:
    reply = client.generate(model=model, prompt="Describe a cat as JSON.", format="json",
                            options={"temperature": 0, "num_predict": 16})
    assert reply.response.startswith("{")
    if reply.done_reason == "stop":
        assert isinstance(json.loads(reply.response), dict)


def test_tool_call_arrives_whole(client: ollama.Client, model: str) -> None:
    reply = client.chat(model=model, messages=_user(CALLING_PROMPT), tools=[WEATHER_TOOL],
                        options={"temperature": 0, "num_predict": 48})
    assert reply.done_reason == "stop"
    calls = reply.message.tool_calls
    assert calls, f"expected a call, got words: {reply.message.content!r}"
    assert calls[0].function.name == "get_weather"
    assert dict(calls[0].function.arguments) == {"city": "Paris"}


def test_streamed_tool_call_is_one_record_before_the_last(client: ollama.Client, model: str) -> None:
    parts = list(client.chat(model=model, messages=_user(CALLING_PROMPT), tools=[WEATHER_TOOL],
                             options={"temperature": 0, "num_predict": 48}, stream=True))
    with_calls = [i for i, p in enumerate(parts) if p.message.tool_calls]
    assert with_calls == [len(parts) - 2], "the calls come whole on the record before the terminal one"
    record = parts[-2]
    assert record.done is False
    assert record.message.tool_calls is not None
    call = record.message.tool_calls[0]
    assert call.function.name == "get_weather"
    assert isinstance(call.function.arguments, dict) and call.function.arguments == {"city": "Paris"}
    assert parts[-1].done is True and parts[-1].done_reason == "stop"


def test_tool_results_in_history(client: ollama.Client, model: str) -> None:
    history: list[dict[str, Any]] = [
        {"role": "user", "content": "What is the weather in Paris?"},
        {"role": "assistant", "content": "",
         "tool_calls": [{"function": {"name": "get_weather", "arguments": {"city": "Paris"}}}]},
        {"role": "tool", "content": "18 degrees and sunny", "tool_name": "get_weather"},
    ]
    reply = client.chat(model=model, messages=history, tools=[WEATHER_TOOL],
                        options={"temperature": 0, "num_predict": 48})
    assert reply.done is True
    if reply.message.tool_calls:
        for call in reply.message.tool_calls:
            assert call.function.name == "get_weather" and isinstance(call.function.arguments, dict)
    else:
        assert reply.message.content


def test_logprobs(client: ollama.Client, model: str) -> None:
    reply = client.chat(model=model, messages=_user("Say hello."), options=GREEDY, logprobs=True, top_logprobs=2)
    assert reply.logprobs is not None and len(reply.logprobs) == reply.eval_count
    for entry in reply.logprobs:
        assert entry.logprob <= 0
        assert entry.top_logprobs is not None and len(entry.top_logprobs) == 2


def test_think_true_is_refused_on_a_template_without_thinking(client: ollama.Client, model: str) -> None:
    with pytest.raises(ollama.ResponseError) as error:
        client.chat(model=model, messages=_user("hi"), think=True, options=GREEDY)
    assert "think" in _refused(error, 400)


def test_think_false_is_what_the_model_does_anyway(client: ollama.Client, model: str) -> None:
    reply = client.chat(model=model, messages=_user("Say hello."), think=False, options=GREEDY)
    assert reply.message.content and reply.message.thinking is None


def test_think_level_is_refused_on_a_template_without_levels(client: ollama.Client, model: str) -> None:
    with pytest.raises(ollama.ResponseError) as error:
        client.chat(model=model, messages=_user("hi"), think="low", options=GREEDY)
    assert "think" in _refused(error, 400)


# ---- generate ---------------------------------------------------------------------------------------


def test_generate_non_streaming(client: ollama.Client, model: str) -> None:
    reply = client.generate(model=model, prompt="Why is the sky blue?", options=GREEDY)
    assert reply.model == model and reply.response
    assert reply.done is True and reply.done_reason in ("stop", "length")
    assert reply.eval_count is not None and 0 < reply.eval_count <= GREEDY["num_predict"]


def test_generate_streaming_matches_non_streaming(client: ollama.Client, model: str) -> None:
    whole = client.generate(model=model, prompt="Why is the sky blue?", system="Answer briefly.", options=GREEDY)
    parts = list(client.generate(model=model, prompt="Why is the sky blue?", system="Answer briefly.",
                                 options=GREEDY, stream=True))
    assert all(p.done is False for p in parts[:-1]) and parts[-1].done is True
    assert "".join(p.response for p in parts) == whole.response


def test_generate_raw(client: ollama.Client, model: str) -> None:
    reply = client.generate(model=model, prompt="The capital of France is", raw=True, options=GREEDY)
    assert reply.response and reply.done is True


def test_generate_preload(client: ollama.Client, model: str) -> None:
    reply = client.generate(model=model)
    assert reply.done is True and reply.done_reason == "load" and reply.response == ""


def test_generate_suffix_needs_fill_in_the_middle_tokens(client: ollama.Client, model: str) -> None:
    with pytest.raises(ollama.ResponseError) as error:
        client.generate(model=model, prompt="def add(a, b):", suffix="    return c", options=GREEDY)
    assert "fill-in-the-middle" in _refused(error, 400)


# ---- embeddings and errors --------------------------------------------------------------------------


def test_embed_is_refused_for_a_generation_model(client: ollama.Client, model: str) -> None:
    with pytest.raises(ollama.ResponseError) as error:
        client.embed(model=model, input=["first", "second"])
    assert "serves no embeddings" in _refused(error, 400)
    with pytest.raises(ollama.ResponseError) as legacy:
        client.embeddings(model=model, prompt="first")
    assert "serves no embeddings" in _refused(legacy, 400)


def test_unknown_model_is_a_404(client: ollama.Client) -> None:
    with pytest.raises(ollama.ResponseError) as error:
        client.chat(model="no-such-model", messages=_user("hi"))
    assert "no-such-model" in _refused(error, 404)


def test_model_distribution_is_not_served(client: ollama.Client, model: str) -> None:
    for call in (lambda: client.pull(model), lambda: client.delete(model), lambda: client.copy(model, "copy")):
        with pytest.raises(ollama.ResponseError) as error:
            call()
        assert "not served" in _refused(error, 501)


# ---- a model whose template thinks ------------------------------------------------------------------

# ChatML that opens a reasoning block unless enable_thinking is false, and reads reasoning_effort.
THINKING_TEMPLATE = """{%- for m in messages -%}<|im_start|>{{ m.role }}
{{ m.content }}<|im_end|>
{% endfor -%}{%- if add_generation_prompt -%}<|im_start|>assistant
{% if enable_thinking is defined and not enable_thinking %}<think>

</think>

{% else %}{% if reasoning_effort is defined %}(effort: {{ reasoning_effort }}) {% endif %}<think>
{% endif %}{%- endif -%}"""


@pytest.fixture(scope="module")
def thinking(tmp_path_factory: pytest.TempPathFactory, model: str) -> Iterator[ollama.Client]:
    base = tmp_path_factory.mktemp("thinking")
    template = base / "thinking.jinja"
    template.write_text(THINKING_TEMPLATE)
    running = start_server([model, "--chat-template-file", str(template), "--parallel", "1", "--ctx-size", "2048"],
                           base / "serve.log")
    sdk = ollama.Client(host=running.base_url, timeout=120)
    try:
        yield sdk
    finally:
        sdk.close()
        stop_server(running)


def test_think_true_returns_thinking_separately(thinking: ollama.Client, model: str) -> None:
    reply = thinking.chat(model=model, messages=_user("What is 2 + 2?"), think=True, options=GREEDY)
    assert reply.message.thinking, "the reply starts inside the template's reasoning block"
    assert "<think>" not in (reply.message.content or "")
    parts = list(thinking.chat(model=model, messages=_user("What is 2 + 2?"), think=True, options=GREEDY,
                               stream=True))
    assert "".join(p.message.thinking or "" for p in parts) == reply.message.thinking


def test_think_level_and_false(thinking: ollama.Client, model: str) -> None:
    leveled = thinking.generate(model=model, prompt="What is 2 + 2?", think="low", options=GREEDY)
    assert leveled.thinking
    plain = thinking.chat(model=model, messages=_user("What is 2 + 2?"), think=False, options=GREEDY)
    assert plain.message.thinking is None and plain.message.content


def test_show_lists_thinking(thinking: ollama.Client, model: str) -> None:
    capabilities = thinking.show(model).capabilities
    assert capabilities is not None and "thinking" in capabilities
