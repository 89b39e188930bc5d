"""Record golden transcripts of the Ollama surface: one request/response pair per file in conformance/golden_ollama/.

Run it by hand after a deliberate change to what the server says on /api/*, then review the diff:

    python -m conformance.record_golden_ollama --base-url http://127.0.0.1:8453   # a server that is already up
    python -m conformance.record_golden_ollama                                    # starts its own

The server must be started as conformance/conftest.py starts it (the two bundled models, --parallel 4).

Values that change from run to run are replaced by placeholders before writing, and test_golden_ollama.py
normalizes the live answer the same way: ``created_at`` and ``modified_at`` stamps, ``total_duration``,
``prompt_eval_cached_count`` (it depends on what the prefix cache holds), log probability values, tool-call
ids, in /api/ps the entries of models other than the default one (whether they are loaded depends on what ran
before), and keep-alive records (a stream quiet for --keepalive seconds sends them). Generated text is never
normalized: every generating request is greedy, so its text must come
back identical.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import Any

import httpx

from conformance.golden_harness import CONFORMANCE_DIR, SPEC_DIR, Exchange, GoldenSuite
from conformance.server import DEFAULT_MODEL

KEPT_HEADERS = ("content-type",)
NDJSON = "application/x-ndjson"

STAMP = "<timestamp>"
DURATION = "<duration>"
CACHED = "<cached>"
CALL_ID = "<call-id>"
LOGPROB = "<logprob>"
BYTES = "<bytes>"

# Log probabilities are kept out of the comparison: a prompt decoded cold or from the prefix cache is batched
# differently, which can move them in the last digits (never the greedy choice). Their tokens stay.

_VOLATILE_KEYS = {"created_at": STAMP, "modified_at": STAMP, "total_duration": DURATION,
                  "prompt_eval_cached_count": CACHED, "logprob": LOGPROB}

_GREEDY = {"temperature": 0, "seed": 7}
_COLORS = [{"role": "user", "content": "Name three primary colors."}]
_WEATHER_TOOL = {"type": "function", "function": {
    "name": "get_weather", "description": "Get the current weather for a city",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}
_PLANET = {"type": "object", "properties": {"name": {"type": "string", "maxLength": 12}}, "required": ["name"],
           "additionalProperties": False}


def _chat(stream: bool, **extra: Any) -> dict[str, Any]:
    options = {**_GREEDY, "num_predict": 12, **extra.pop("options", {})}
    return {"model": DEFAULT_MODEL, "messages": _COLORS, "stream": stream, "options": options, **extra}


def _generate(stream: bool, **extra: Any) -> dict[str, Any]:
    options = {**_GREEDY, "num_predict": 12, **extra.pop("options", {})}
    return {"model": DEFAULT_MODEL, "prompt": "Why is the sky blue?", "stream": stream, "options": options,
            **extra}


_TOOLS = {"messages": [{"role": "user", "content": "Call get_weather with city Paris."}], "tools": [_WEATHER_TOOL],
          "options": {"num_predict": 48}}

EXCHANGES: tuple[Exchange, ...] = (
    Exchange("root", "GET / answers in plain text.", "GET", "/"),
    Exchange("version", "The server's version and compatibility.", "GET", "/api/version"),
    Exchange("tags", "Every known model id, with a digest of the id.", "GET", "/api/tags"),
    Exchange("ps", "The loaded models and their context window.", "GET", "/api/ps"),
    Exchange("show", "A loaded model: details, parameters, capabilities and template.", "POST", "/api/show",
             {"model": DEFAULT_MODEL}),
    Exchange("chat", "Greedy chat, cut by num_predict.", "POST", "/api/chat", _chat(False)),
    Exchange("chat_stream", "The same chat as an NDJSON stream.", "POST", "/api/chat", _chat(True)),
    Exchange("chat_stop", "A stop string ends the reply and is left out of it.", "POST", "/api/chat",
             _chat(False, options={"stop": ["Red"]})),
    Exchange("chat_format", "A JSON schema in format constrains the reply.", "POST", "/api/chat",
             _chat(False, messages=[{"role": "user", "content": "Return a planet name as JSON."}], format=_PLANET,
                   options={"num_predict": 32})),
    Exchange("chat_tools", "A tool call comes back whole, its arguments an object.", "POST", "/api/chat",
             _chat(False, **_TOOLS)),
    Exchange("chat_tools_stream", "Streamed, the call is one record just before the terminal one.", "POST",
             "/api/chat", _chat(True, **_TOOLS)),
    Exchange("chat_logprobs", "Log probabilities with two alternatives per token.", "POST", "/api/chat",
             _chat(False, logprobs=True, top_logprobs=2, options={"num_predict": 4})),
    Exchange("chat_preload", "Empty messages only load the model.", "POST", "/api/chat",
             {"model": DEFAULT_MODEL, "messages": []}),
    Exchange("generate", "Greedy templated generate with a system prompt.", "POST", "/api/generate",
             _generate(False, system="Answer briefly.")),
    Exchange("generate_stream", "The same generate as an NDJSON stream.", "POST", "/api/generate",
             _generate(True, system="Answer briefly.")),
    Exchange("generate_raw", "raw: the prompt as it is, no template.", "POST", "/api/generate",
             _generate(False, prompt="The capital of France is", raw=True)),
    Exchange("generate_preload", "An empty prompt only loads the model.", "POST", "/api/generate",
             {"model": DEFAULT_MODEL, "stream": False}),
    Exchange("error_unknown_model", "An unknown model is a 404.", "POST", "/api/chat",
             {**_chat(False), "model": "no-such-model"}),
    Exchange("error_unknown_field", "An unknown non-null field is a 400 naming it.", "POST", "/api/chat",
             _chat(False, context=[1, 2, 3])),
    Exchange("error_unsupported_option", "An option outside the document is a 400 naming it.", "POST",
             "/api/generate", _generate(False, options={"mirostat": 2})),
    Exchange("error_keep_alive", "keep_alive is never served.", "POST", "/api/generate",
             _generate(False, keep_alive="5m")),
    Exchange("error_fim", "The bundled model has no fill-in-the-middle tokens.", "POST", "/api/generate",
             _generate(False, suffix="    return c")),
    Exchange("error_embed", "The bundled model computes no embeddings.", "POST", "/api/embed",
             {"model": DEFAULT_MODEL, "input": ["first", "second"]}),
    Exchange("error_embeddings", "Nor through the legacy route.", "POST", "/api/embeddings",
             {"model": DEFAULT_MODEL, "prompt": "first"}),
    Exchange("error_pull", "Model distribution is not served.", "POST", "/api/pull", {"model": DEFAULT_MODEL}),
)


# ---- normalization -------------------------------------------------------------------------------------------
def normalize(value: Any, path: str = "") -> Any:
    """A copy of a decoded body with every run-dependent value replaced by its placeholder."""
    if isinstance(value, list):
        return [normalize(item, path) for item in value]
    if not isinstance(value, dict):
        return value
    out: dict[str, Any] = {}
    for key, item in value.items():
        if key in _VOLATILE_KEYS and not isinstance(item, (dict, list)):
            out[key] = _VOLATILE_KEYS[key]
        elif key == "id" and isinstance(item, str) and item.startswith("call_"):
            out[key] = CALL_ID
        else:
            out[key] = normalize(item, path)
    if path == "/api/ps" and isinstance(out.get("models"), list):
        # What a loaded model holds in memory depends on the build, the devices and the settings: checked live.
        out["models"] = [{**m, **{k: BYTES for k in ("size", "size_vram") if k in m}}
                         for m in out["models"] if m.get("model") == DEFAULT_MODEL]
    return out


def kept_headers(headers: httpx.Headers) -> dict[str, str]:
    return {name: headers[name] for name in KEPT_HEADERS if name in headers}


def ndjson_lines(text: str) -> list[Any]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def is_keepalive(record: Any) -> bool:
    """A record a quiet stream sends to stay alive: not done, and carrying nothing. How many a stream holds
    depends on timing, so transcripts leave them out."""
    if not isinstance(record, dict) or record.get("done") is not False:
        return False
    if "message" in record:
        carried, text = set(record) | set(record["message"]), record["message"].get("content")
    else:
        carried, text = set(record), record.get("response")
    return carried <= {"model", "created_at", "done", "message", "role", "content", "response"} and text == ""


def streamed_text(lines: Sequence[Any]) -> str:
    """What a client assembles from the lines: chat message content, or generate response text."""
    parts = []
    for line in lines:
        if isinstance(line, dict):
            parts.append((line.get("message") or {}).get("content") or line.get("response") or "")
    return "".join(parts)


def read_body(response: httpx.Response, exchange: Exchange) -> tuple[Any, dict[str, Any]]:
    """An NDJSON stream's records (keep-alives left out) and the text they carry, a JSON body, or plain text."""
    content_type = response.headers.get("content-type", "")
    if content_type.startswith(NDJSON):
        lines = ndjson_lines(response.text)
        kept = [line for line in lines if not is_keepalive(line)]
        return lines, {"lines": normalize(kept, exchange.path), "text": streamed_text(lines)}
    if content_type.startswith("application/json"):
        body = response.json()
        return body, {"body": normalize(body, exchange.path)}
    return response.text, {"text": response.text}


SUITE = GoldenSuite("conformance.record_golden_ollama", CONFORMANCE_DIR / "golden_ollama", SPEC_DIR / "ollama.yaml",
                    EXCHANGES, kept_headers, read_body, description=__doc__.split("\n")[0])

if __name__ == "__main__":
    sys.exit(SUITE.main())
