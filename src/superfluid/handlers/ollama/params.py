"""Reading Ollama-dialect request fields into engine types (shared by the /api/* handlers).

Ollama itself ignores fields it does not know; superfluid's product document makes each of them a 400 instead,
so every route names the fields it reads and refuses anything else that is not null, by name. Options and
message keys get the same treatment one level down.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from superfluid.engine import (
    ANY_JSON_OBJECT,
    ChatMessage,
    ChatPrompt,
    ChatTemplate,
    Constraint,
    FimPrompt,
    PastCall,
    Prompt,
    SamplingParams,
    TextPrompt,
    ToolPolicy,
    ToolSpec,
)
from superfluid.errors import InvalidRequest, NotFound, UnsupportedParameter
from superfluid.handlers.conversation import reasoning_kwargs, refuse_media, refuse_thinking

CHAT_FIELDS = frozenset({"model", "messages", "tools", "stream", "format", "think", "logprobs", "top_logprobs",
                         "options", "keep_alive"})
GENERATE_FIELDS = frozenset({"model", "prompt", "system", "suffix", "images", "raw", "template", "stream",
                             "format", "think", "options", "keep_alive"})
EMBED_FIELDS = frozenset({"model", "input", "truncate", "dimensions", "options", "keep_alive"})
EMBEDDINGS_FIELDS = frozenset({"model", "prompt", "options", "keep_alive"})
SHOW_FIELDS = frozenset({"model", "verbose", "system", "template", "options"})
MESSAGE_FIELDS = frozenset({"role", "content", "images", "thinking", "tool_calls", "tool_name", "tool_call_id"})
OPTIONS = frozenset({"num_predict", "num_ctx", "temperature", "top_p", "min_p", "top_k", "seed", "repeat_penalty",
                     "presence_penalty", "frequency_penalty", "stop"})

LATEST = ":latest"
MAX_STOP_STRINGS = 4
FILL_CONTEXT = (-1, -2)


# ---- the request as a whole -------------------------------------------------------------------------------


def refuse_unknown(body: Mapping[str, Any], known: Collection[str], *, where: str = "") -> None:
    """400 ``unsupported parameter: <name>`` for the first non-null field outside ``known``. keep_alive is
    known to Ollama clients but never served: the server decides how long a model stays loaded."""
    for name, value in body.items():
        if value is None:
            continue
        if name not in known:
            raise UnsupportedParameter(f"unsupported parameter: {where}{name}", param=f"{where}{name}")
        if name == "keep_alive":
            raise UnsupportedParameter(
                "unsupported parameter: keep_alive (this server decides how long a model stays loaded)",
                param="keep_alive")


def model_id(name: str, known: Collection[str]) -> str:
    """The served model a request names: an id this server knows, optionally written ``id:latest``."""
    if name in known:
        return name
    if name.endswith(LATEST) and name[: -len(LATEST)] in known:
        return name[: -len(LATEST)]
    raise NotFound(f"model '{name}' not found; GET /api/tags lists the models this server knows", param="model")


def streams(body: Mapping[str, Any]) -> bool:
    """Ollama streams unless told not to."""
    return body.get("stream") is not False


def _present(value: Any) -> bool:
    """Null and empty strings and lists mean "none" on Ollama's wire."""
    return value is not None and value != "" and value != []


# ---- options ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Options:
    """The generation options of one request, checked; ``num_ctx`` is checked against a model later."""

    sampling: SamplingParams
    num_predict: int | None = None
    num_ctx: int | None = None
    stop: tuple[str, ...] = ()

    def max_tokens(self, n_ctx: int) -> int | None:
        """None leaves it to the server (--max-tokens, else the window); -1 and -2 fill the window."""
        if self.num_predict in FILL_CONTEXT:
            return n_ctx
        return self.num_predict

    def check_window(self, model: str, n_ctx: int) -> None:
        if self.num_ctx is not None and self.num_ctx != n_ctx:
            raise InvalidRequest(
                f"options.num_ctx must be the context window model '{model}' is served with ({n_ctx}); "
                "the window is set when the server starts (--ctx-size)", param="options.num_ctx")


def _stop_strings(raw: Any) -> tuple[str, ...]:
    values = [raw] if isinstance(raw, str) else list(raw)
    if len(values) > MAX_STOP_STRINGS:
        raise InvalidRequest(f"options.stop takes up to {MAX_STOP_STRINGS} strings; got {len(values)}",
                             param="options.stop")
    if any(not isinstance(s, str) or not s for s in values):
        raise InvalidRequest("options.stop strings must be non-empty", param="options.stop")
    return tuple(values)


def _number(options: Mapping[str, Any], name: str) -> float | None:
    value = options.get(name)
    return None if value is None else float(value)


def read_options(raw: Mapping[str, Any] | None) -> Options:
    """Ollama ``options`` -> sampling, token budget and stop strings. Ranges are the schema's; this checks
    what a schema cannot say (unknown names, num_predict's special values, stop strings)."""
    given = {name: value for name, value in (raw or {}).items() if value is not None}
    for name in given:
        if name not in OPTIONS:
            raise UnsupportedParameter(f"unsupported option: {name}", param=f"options.{name}")
    num_predict = given.get("num_predict")
    if num_predict is not None and num_predict <= 0 and num_predict not in FILL_CONTEXT:
        raise InvalidRequest("options.num_predict must be positive, or -1 or -2 to fill the context",
                             param="options.num_predict")
    seed = given.get("seed")
    top_k = given.get("top_k")
    repeat = given.get("repeat_penalty")
    sampling = SamplingParams(
        temperature=_number(given, "temperature"),
        top_p=_number(given, "top_p"),
        top_k=None if top_k is None else int(top_k),
        min_p=_number(given, "min_p"),
        seed=None if seed is None or seed == -1 else int(seed),
        presence_penalty=_number(given, "presence_penalty") or 0.0,
        frequency_penalty=_number(given, "frequency_penalty") or 0.0,
        repeat_penalty=1.0 if repeat is None else float(repeat),
    )
    return Options(
        sampling=sampling,
        num_predict=None if num_predict is None else int(num_predict),
        num_ctx=None if given.get("num_ctx") is None else int(given["num_ctx"]),
        stop=_stop_strings(given["stop"]) if "stop" in given else (),
    )


# ---- output shaping ---------------------------------------------------------------------------------------


def think_kwargs(think: bool | str | None, template: ChatTemplate) -> dict[str, Any]:
    """``think`` -> chat template variables: a boolean switches thinking, a level ("low", "medium", "high") sets
    the effort as the template takes it (``reasoning_effort``, or Kimi K3's ``thinking_effort``; see
    :func:`superfluid.handlers.conversation.reasoning_kwargs`)."""
    if think is None:
        return {}
    if isinstance(think, bool):
        return {"enable_thinking": think}
    return reasoning_kwargs(think, template)


def refuse_unsupported_think(think: bool | str | None, model: str, dialect: Mapping[str, Any]) -> None:
    """A request to think on a model whose template cannot is a 400 naming ``think``; ``false`` always passes
    (not thinking is what such a model does anyway)."""
    if think is True:
        refuse_thinking(model, dialect, param="think")
    if isinstance(think, str) and not dialect.get("reasoning_effort"):
        raise UnsupportedParameter(f"model '{model}' takes no reasoning effort: its chat template reads no "
                                   f"reasoning level (think: \"{think}\")", param="think")


def format_constraint(raw: str | dict[str, Any] | None) -> Constraint | None:
    """``format``: "json" for any JSON object, or a JSON schema; "" or null for free text."""
    if raw is None or raw == "":
        return None
    if raw == "json":
        return Constraint.for_schema(ANY_JSON_OBJECT, param="format")
    if isinstance(raw, dict):
        return Constraint.for_schema(raw, param="format")
    raise InvalidRequest(f"format must be \"json\" or a JSON schema object; got {json.dumps(raw)}", param="format")


def tool_policy(raw: list[dict[str, Any]] | None) -> ToolPolicy | None:
    """Ollama function tools. Ollama has no tool_choice: the model may call any tool (several at once) or
    answer in words."""
    if not raw:
        return None
    specs = []
    for i, tool in enumerate(raw):
        fn = tool.get("function")
        if tool.get("type") not in (None, "function") or not isinstance(fn, dict) or not fn.get("name"):
            raise InvalidRequest('each tool must be {"type": "function", "function": {"name", ...}}',
                                 param=f"tools[{i}]")
        parameters = fn.get("parameters") or {"type": "object", "properties": {}}
        if parameters.get("type", "object") != "object":
            raise InvalidRequest("a tool's parameters must describe an object: Ollama passes arguments as one",
                                 param=f"tools[{i}].function.parameters")
        specs.append(ToolSpec(name=str(fn["name"]), description=str(fn.get("description") or ""),
                              parameters=parameters))
    return ToolPolicy(tools=tuple(specs), choice="auto", parallel=True)


def logprobs_request(body: Mapping[str, Any]) -> int | None:
    """None: off; k: the chosen token's log probability and the k most likely alternatives."""
    if not body.get("logprobs"):
        if body.get("top_logprobs"):
            raise InvalidRequest("top_logprobs needs logprobs: true", param="top_logprobs")
        return None
    return int(body.get("top_logprobs") or 0)


# ---- prompts ----------------------------------------------------------------------------------------------


def _past_call(call: Mapping[str, Any]) -> PastCall:
    """An Ollama tool call in a message (arguments as an object; an id only where the client kept one)."""
    fn = call.get("function") or {}
    return PastCall(fn.get("name"), fn.get("arguments") or {}, call.get("id") or None)


def convert_messages(raw: list[dict[str, Any]], model: str) -> tuple[ChatMessage, ...]:
    """Ollama messages -> engine messages; thinking, tool calls and tool results keep their meaning."""
    out = []
    for i, message in enumerate(raw):
        refuse_unknown(message, MESSAGE_FIELDS, where=f"messages[{i}].")
        if _present(message.get("images")):
            refuse_media(model, "images", f"messages[{i}].images")
        out.append(ChatMessage(role=message["role"], content=message.get("content") or "",
                               name=message.get("tool_name") or None,
                               tool_call_id=message.get("tool_call_id") or None,
                               tool_calls=tuple(_past_call(c) for c in message.get("tool_calls") or ()),
                               reasoning_content=message.get("thinking") or None))
    return tuple(out)


def refuse_with_plain_prompt(body: Mapping[str, Any]) -> None:
    """raw and suffix requests skip the chat template, so nothing that needs it may come along."""
    if body.get("raw"):
        mode = "raw"
    elif _present(body.get("suffix")):
        mode = "suffix (fill-in-the-middle)"
    else:
        return
    for name in ("system", "images", "format", "think"):
        if _present(body.get(name)):
            raise UnsupportedParameter(f"'{name}' cannot be used with {mode}", param=name)
    if _present((body.get("options") or {}).get("stop")):
        raise UnsupportedParameter(f"'options.stop' cannot be used with {mode}", param="options.stop")


def refuse_template(template: str | None) -> None:
    if template:
        raise UnsupportedParameter("template must be empty: this server renders prompts with the model's own "
                                   "chat template", param="template")


def is_generate_preload(body: Mapping[str, Any]) -> bool:
    """An empty prompt with no system, suffix or images only loads the model."""
    return not any(_present(body.get(name)) for name in ("prompt", "system", "suffix", "images"))


def generate_prompt(body: Mapping[str, Any], model: str) -> Prompt:
    """/api/generate's prompt: fill-in-the-middle with a suffix, plain text when raw, else templated."""
    prompt = body.get("prompt") or ""
    suffix = body.get("suffix") or ""
    if suffix:
        return FimPrompt(prefix=prompt, suffix=suffix)
    if body.get("raw"):
        return TextPrompt(prompt)
    if _present(body.get("images")):
        refuse_media(model, "images", "images")
    messages = []
    if body.get("system"):
        messages.append(ChatMessage(role="system", content=body["system"]))
    messages.append(ChatMessage(role="user", content=prompt))
    return ChatPrompt(messages=tuple(messages))
