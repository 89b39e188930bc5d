"""Record golden transcripts: one request/response pair per file in conformance/golden/.

Run it by hand after a deliberate change to what the server says, then review the diff of the JSON files:

    python -m conformance.record_golden --base-url http://127.0.0.1:8453   # a server that is already up
    python -m conformance.record_golden                                    # starts its own, like the tests do

The server must be started the way conformance/conftest.py starts it (the two bundled models, --parallel 4,
--http-allow-batch-invariant): some recorded fields (total_slots, the second model's entry in the model list)
depend on that, and every exchange is sent with x-superfluid-batch-invariant (golden_harness.ALONE).

Everything that changes from run to run is replaced by a placeholder before it is written, and the replay in
test_golden.py normalizes the live answer the same way before comparing. Volatile are: completion ids and
``created`` stamps, file system paths, the build string, prefix-cache counters (``cached_tokens``,
``superfluid.warm``, ``superfluid.cached``, the ``x-superfluid-warm`` header, the KV snapshot in /props),
the Responses API's random ids (``resp_``, ``msg_``, ...), clocks and ``cache_write_tokens``, and, for models
other than the default one, the fields that change once that model has been loaded.
Generated text is never normalized: every generating request is greedy (temperature 0, fixed seed) and runs on
the lane that ticks alone, so its text must come back identical however busy the server is. Text from the
shared lanes is not compared: there a prompt may be served from KV cached beside other traffic, and on CPUs
whose kernels sum in another order for other batch shapes (AVX-512) a near tie can go the other way. The
replay sends each exchange twice more on the shared lanes, to check its status and that the second is warm.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import Any

import httpx

from conformance.golden_harness import CONFORMANCE_DIR, SPEC_DIR, Exchange, GoldenSuite
from conformance.server import DEFAULT_MODEL

# Response headers a transcript keeps; the rest (date, server, content-length) say nothing about the API.
KEPT_HEADERS = ("content-type", "cache-control", "x-superfluid-warm")

CACHED = "<cached>"
COMPLETION_ID = "<completion-id>"
CREATED = "<created>"
PATH = "<path>"
LOAD_STATE = "<load-state>"
COUNTER = "<counter>"
BUILD = "<build-info>"
PLACEMENT = "<placement>"
_MACHINE_KEYS = ("offload", "devices")
"""Where llama.cpp put a model (its layers and buffers per device) and the devices themselves: the build's and the
machine's, not the API's (conformance/test_models_props.py checks their shape)."""

# key -> placeholder, wherever the key appears.
_VOLATILE_KEYS = {
    "created": CREATED,
    "path": PATH,
    "model_path": PATH,
    "build_info": BUILD,
    "cached_tokens": CACHED,
    "warm": CACHED,
    "cached": CACHED,
    # Responses API: clocks, and prompt tokens prefilled rather than served from the cache.
    "created_at": CREATED,
    "completed_at": CREATED,
    "cache_write_tokens": CACHED,
}
# Responses API ids are random: "<prefix>_" and hex digits, under these keys.
RESPONSES_ID = "<responses-id>"
_RESPONSES_ID_KEYS = ("id", "item_id", "call_id")
_RESPONSES_ID_PREFIXES = ("resp_", "msg_", "rs_", "fc_", "fco_", "call_")
# Counters of the /props KV snapshot that move with whatever else the server is doing.
_KV_COUNTERS = ("busy", "waiting", "cached_tokens")
# Parts of the /slots entry that describe live traffic rather than the server's shape.
_SLOT_LIVE = ("lanes", "kv_pool", "waiting", "tick_plan", "rates", "totals", "is_processing", "kv_disk")
# Fields of a model entry that change when a lazily loaded model gets loaded.
_LOAD_STATE_FIELDS = ("loaded",)
_LOAD_STATE_META = ("n_ctx", "n_ctx_train")

_GREEDY = {"temperature": 0, "seed": 7}
_CHAT_MESSAGES = [{"role": "user", "content": "Name three primary colors."}]
_RESPONSES_INPUT = "Name three primary colors."


EXCHANGES: tuple[Exchange, ...] = (
    Exchange("chat_completion", "Greedy chat completion, cut by max_tokens.", "POST", "/v1/chat/completions",
             {"model": DEFAULT_MODEL, "messages": _CHAT_MESSAGES, "max_tokens": 16, **_GREEDY}),
    Exchange("chat_completion_stream", "The same chat completion as an SSE stream.", "POST",
             "/v1/chat/completions",
             {"model": DEFAULT_MODEL, "messages": _CHAT_MESSAGES, "max_tokens": 16, "stream": True, **_GREEDY}),
    Exchange("chat_completion_stop", "A stop string ends the reply and is left out of it.", "POST",
             "/v1/chat/completions",
             {"model": DEFAULT_MODEL, "messages": _CHAT_MESSAGES, "max_tokens": 16, "stop": ["Blue"],
              **_GREEDY}),
    Exchange("completion", "Greedy raw-text completion.", "POST", "/v1/completions",
             {"model": DEFAULT_MODEL, "prompt": "The capital of France is", "max_tokens": 12, **_GREEDY}),
    Exchange("completion_stream", "The same raw-text completion as an SSE stream.", "POST", "/v1/completions",
             {"model": DEFAULT_MODEL, "prompt": "The capital of France is", "max_tokens": 12, "stream": True,
              **_GREEDY}),
    Exchange("completion_echo", "echo puts the prompt in front of the completion.", "POST", "/v1/completions",
             {"model": DEFAULT_MODEL, "prompt": "One, two, three,", "max_tokens": 6, "echo": True, **_GREEDY}),
    Exchange("models_list", "Every known model, loaded or not.", "GET", "/v1/models"),
    Exchange("model_get", "One known model by id.", "GET", f"/v1/models/{DEFAULT_MODEL}"),
    Exchange("tokenize", "Token ids and their pieces, without any chat scaffold.", "POST", "/v1/tokenize",
             {"model": DEFAULT_MODEL, "content": "Hello, world!", "with_pieces": True}),
    Exchange("error_embeddings_chat_model", "Embeddings on a generation model: 400 unsupported_model.", "POST",
             "/v1/embeddings", {"model": DEFAULT_MODEL, "input": "hello"}),
    Exchange("error_rerank_chat_model", "Rerank on a generation model: 400 unsupported_model.", "POST",
             "/v1/rerank", {"model": DEFAULT_MODEL, "query": "q", "documents": ["a", "b"]}),
    Exchange("error_reranking_empty_documents", "An empty documents list is a 400 naming it.", "POST",
             "/v1/reranking", {"model": DEFAULT_MODEL, "query": "q", "documents": []}),
    Exchange("error_rerank_root_bad_document", "A document that is not a string or {text} is a 400 naming it.",
             "POST", "/rerank", {"model": DEFAULT_MODEL, "query": "q", "documents": [1]}),
    Exchange("error_transcription_not_multipart", "Audio routes take a multipart form: JSON is a 415.", "POST",
             "/v1/audio/transcriptions", {"model": DEFAULT_MODEL}),
    Exchange("error_translation_not_multipart", "Audio routes take a multipart form: JSON is a 415.", "POST",
             "/v1/audio/translations", {"model": DEFAULT_MODEL}),
    Exchange("health", "Liveness.", "GET", "/health"),
    Exchange("props", "The default model and its effective generation defaults.", "GET", "/props"),
    Exchange("slots", "One aggregate slot entry (live counters blanked).", "GET", "/slots"),
    Exchange("slot_action_retired", "llama-server's slot actions are retired: 501.", "POST", "/slots/0",
             query={"action": "save"}),
    Exchange("slot_save_retired", "Slot save is retired: 501.", "POST", "/slots/0/save"),
    Exchange("slot_restore_retired", "Slot restore is retired: 501.", "POST", "/slots/0/restore"),
    Exchange("error_unknown_model_chat", "A model id nobody knows is a 404 naming the model param.", "POST",
             "/v1/chat/completions",
             {"model": "no-such-model", "messages": _CHAT_MESSAGES, "max_tokens": 4, **_GREEDY}),
    Exchange("error_unknown_model_get", "GET on an unknown model id is a 404.", "GET", "/v1/models/no-such-model"),
    Exchange("error_missing_messages", "A chat request without messages is a 400 naming the field.", "POST",
             "/v1/chat/completions", {"model": DEFAULT_MODEL, "max_tokens": 4}),
    Exchange("error_missing_prompt", "A completion request without prompt is a 400 naming the field.", "POST",
             "/v1/completions", {"model": DEFAULT_MODEL, "max_tokens": 4}),
    Exchange("error_missing_model", "A tokenize request without model is a 400 naming the field.", "POST",
             "/v1/tokenize", {"content": "Hello"}),
    # Admin routes: answers without side effects on the shared server (test_model_lifecycle.py loads and unloads).
    Exchange("model_load_unsupported_runtime", "A runtime this server lacks is a 400 unsupported_runtime.", "POST",
             "/v1/models/load", {"model": DEFAULT_MODEL, "runtime": "mlx"}),
    Exchange("model_unload_unknown", "Unloading a model nobody knows is a 404.", "POST", "/v1/models/unload",
             {"model": "no-such-model"}),
    Exchange("model_delete_unknown", "DELETE on an unknown model id is a 404.", "DELETE",
             "/v1/models/no-such-model"),
    # LoRA (test_lora.py applies adapters on its own server; the shared one has no --lora-dir).
    Exchange("lora_list", "The default model's active LoRA adapters: none.", "GET", "/v1/lora"),
    Exchange("lora_load_no_directory", "Without --lora-dir, an adapter not named at start-up is a 400 naming "
             "path.", "POST", "/v1/lora/load", {"path": "styles/formal.gguf"}),
    Exchange("lora_unload_unknown", "Unloading an adapter the server does not know is a 400 naming path.", "POST",
             "/v1/lora/unload", {"path": "styles/formal.gguf"}),
    Exchange("metrics", "Prometheus text; the transcript keeps the metric families, not their values.", "GET",
             "/metrics"),
    Exchange("metrics_v1", "The same metrics under /v1.", "GET", "/v1/metrics"),
    # ---- Responses API ----
    Exchange("responses_create", "A greedy response, cut by max_output_tokens (status incomplete).", "POST",
             "/v1/responses", {"model": DEFAULT_MODEL, "input": _RESPONSES_INPUT, "max_output_tokens": 16,
                               **_GREEDY}),
    Exchange("responses_create_stream", "The same response as typed SSE events.", "POST", "/v1/responses",
             {"model": DEFAULT_MODEL, "input": _RESPONSES_INPUT, "max_output_tokens": 16, "stream": True,
              **_GREEDY}),
    Exchange("responses_create_items", "Input as items, with instructions.", "POST",
             "/v1/responses", {"model": DEFAULT_MODEL, "instructions": "Answer in one word.", "max_output_tokens": 32,
                               "input": [{"role": "user", "content": [{"type": "input_text", "text": "Hi!"}]}],
                               **_GREEDY}),
    Exchange("responses_error_tool_type", "A tool_choice of a hosted tool's type is a 400 naming it (the tool itself "
             "is accepted and left out of the prompt).", "POST", "/v1/responses",
             {"model": DEFAULT_MODEL, "input": "Hi", "tools": [{"type": "web_search"}],
              "tool_choice": {"type": "web_search"}}),
    Exchange("responses_error_unknown_previous", "previous_response_id naming no stored response is a 404.", "POST",
             "/v1/responses", {"model": DEFAULT_MODEL, "input": "Hi", "previous_response_id": "resp_unknown"}),
    Exchange("responses_get_unknown", "GET of a response that is not stored is a 404.", "GET",
             "/v1/responses/resp_unknown"),
    Exchange("responses_delete_unknown", "DELETE of a response that is not stored is a 404.", "DELETE",
             "/v1/responses/resp_unknown"),
    Exchange("responses_input_items_unknown", "The input items of a response that is not stored: 404.", "GET",
             "/v1/responses/resp_unknown/input_items", query={"limit": "5"}),
    Exchange("files_create_not_multipart", "An upload is a multipart form: JSON is a 415.", "POST", "/v1/files",
             {"purpose": "batch"}),
    Exchange("files_list_bad_limit", "A file page of 0 is a 400.", "GET", "/v1/files",
             query={"limit": "0"}),
    Exchange("files_get_unknown", "A file nobody uploaded is a 404.", "GET", "/v1/files/file-unknown"),
    Exchange("files_content_unknown", "The bytes of a file nobody uploaded: 404.", "GET",
             "/v1/files/file-unknown/content"),
    Exchange("files_delete_unknown", "Deleting a file nobody uploaded is a 404.", "DELETE", "/v1/files/file-unknown"),
    Exchange("batches_create_unknown_file", "A batch whose input file is unknown is a 404 naming it.", "POST",
             "/v1/batches", {"input_file_id": "file-unknown", "endpoint": "/v1/chat/completions",
                             "completion_window": "24h"}),
    Exchange("batches_list_bad_limit", "A batch page of 101 is a 400.", "GET", "/v1/batches",
             query={"limit": "101"}),
    Exchange("batches_get_unknown", "A batch nobody created is a 404.", "GET", "/v1/batches/batch_unknown"),
    Exchange("batches_cancel_unknown", "Cancelling a batch nobody created is a 404.", "POST",
             "/v1/batches/batch_unknown/cancel"),
)


# ---- normalization -------------------------------------------------------------------------------------------
def normalize(value: Any) -> Any:
    """A copy of a decoded JSON body with every run-dependent value replaced by its placeholder."""
    if isinstance(value, list):
        return [normalize(item) for item in value]
    if not isinstance(value, dict):
        return value
    out: dict[str, Any] = {}
    for key, item in value.items():
        if key in _VOLATILE_KEYS and item is not None and not isinstance(item, (dict, list)):
            out[key] = _VOLATILE_KEYS[key]
        elif key == "id" and isinstance(item, str) and item.startswith(("chatcmpl-", "cmpl-")):
            out[key] = COMPLETION_ID
        elif key in _RESPONSES_ID_KEYS and isinstance(item, str) and item.startswith(_RESPONSES_ID_PREFIXES) \
                and item != "resp_unknown":
            out[key] = RESPONSES_ID
        elif key in _MACHINE_KEYS and isinstance(item, (dict, list)):
            out[key] = PLACEMENT
        elif key == "kv_cache" and isinstance(item, dict):
            out[key] = {k: (COUNTER if k in _KV_COUNTERS else v) for k, v in item.items()}
        elif key in _SLOT_LIVE and "id_task" in value:
            out[key] = COUNTER
        else:
            out[key] = normalize(item)
    if out.get("object") == "model" and out.get("id") != DEFAULT_MODEL:
        _blank_load_state(out)
    return out


def _blank_load_state(model: dict[str, Any]) -> None:
    """A lazily loaded model reports different numbers before and after its first use, and other tests in the
    same session may or may not have used it; its entry keeps everything else."""
    for key in _LOAD_STATE_FIELDS:
        if key in model:
            model[key] = LOAD_STATE
    meta = model.get("meta")
    if isinstance(meta, dict):
        meta.pop("offload", None)  # present only while it is loaded
        for key in _LOAD_STATE_META:
            if key in meta:
                meta[key] = LOAD_STATE


def kept_headers(headers: httpx.Headers) -> dict[str, str]:
    out = {name: headers[name] for name in KEPT_HEADERS if name in headers}
    if "x-superfluid-warm" in out:
        out["x-superfluid-warm"] = CACHED
    return out


# ---- server-sent events --------------------------------------------------------------------------------------
DONE = "[DONE]"


def sse_frames(text: str) -> list[Any]:
    """The data payloads of an SSE body in order: decoded JSON objects, and the literal ``[DONE]`` marker.
    Comment lines (keep-alives) carry no data and are skipped."""
    frames: list[Any] = []
    for event in text.replace("\r\n", "\n").split("\n\n"):
        data = [line[5:].removeprefix(" ") for line in event.split("\n") if line.startswith("data:")]
        if not data:
            continue
        payload = "\n".join(data)
        frames.append(DONE if payload == DONE else json.loads(payload))
    return frames


def streamed_text(frames: Sequence[Any]) -> str:
    """The reply a client assembles from the frames: chat deltas' content, completion chunks' text, or Responses
    output_text deltas."""
    parts: list[str] = []
    for frame in frames:
        if not isinstance(frame, dict):
            continue
        if frame.get("type") == "response.output_text.delta":  # a Responses API event
            parts.append(frame["delta"])
        for choice in frame.get("choices", ()):
            if "delta" in choice:
                parts.append(choice["delta"].get("content") or "")
            else:
                parts.append(choice.get("text") or "")
    return "".join(parts)


def metric_families(text: str) -> list[str]:
    """The ``name type`` of every family a Prometheus text exposition declares, in order (values move)."""
    declared = [line[len("# TYPE "):] for line in text.splitlines() if line.startswith("# TYPE ")]
    return [family for family in declared if not family.split()[0].endswith("_created")]


# ---- one exchange ------------------------------------------------------------------------------------------
def read_body(response: httpx.Response, exchange: Exchange) -> tuple[Any, dict[str, Any]]:
    """An SSE stream's frames and the text they carry, or a JSON body; both normalized for the transcript."""
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        frames = sse_frames(response.text)
        return frames, {"frames": normalize(frames), "text": streamed_text(frames)}
    if response.headers.get("content-type", "").startswith("text/plain; version=0.0.4"):
        families = metric_families(response.text)
        return families, {"families": families}
    body = response.json()
    return body, {"body": normalize(body)}


SUITE = GoldenSuite("conformance.record_golden", CONFORMANCE_DIR / "golden", SPEC_DIR / "openai.yaml", EXCHANGES,
                    kept_headers, read_body, description=__doc__.split("\n")[0])

if __name__ == "__main__":
    sys.exit(SUITE.main())
