"""POST /v1/chat/completions."""

from __future__ import annotations

from typing import Any

from starlette.responses import Response

from superfluid.engine import (
    ANY_JSON_OBJECT,
    ChatMessage,
    ChatPrompt,
    ChatTemplate,
    ChoiceResult,
    Constraint,
    Finished,
    GenerationResult,
    GenerationStream,
    PastCall,
    TextDelta,
)
from superfluid.errors import InvalidRequest
from superfluid.handlers.context import generation_request, now, request_body, request_class, services
from superfluid.handlers.conversation import reasoning_kwargs, refuse_media
from superfluid.handlers.generation import StreamRenderer, start_generation, stream_reply, whole_reply
from superfluid.handlers.openai import params, shapes
from superfluid.http.dialect import Dialect
from superfluid.http.streams import Frame, dumps, sse_data

_TEXT_PARTS = frozenset({"text", "input_text"})


def content_text(content: str | list[dict[str, Any]] | None, model_id: str, param: str) -> str:
    """A message's content as the engine's text: text parts joined with newlines; a media part needs a model
    that takes it (400 naming ``param[j]``). Shared by chat messages and Responses items."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    texts = []
    for j, part in enumerate(content):
        if part.get("type") in _TEXT_PARTS:
            texts.append(str(part.get("text", "")))
        else:
            refuse_media(model_id, f"a '{part.get('type')}' part", f"{param}[{j}]")
    return "\n".join(texts)


def convert_messages(raw: list[dict[str, Any]], model_id: str) -> tuple[ChatMessage, ...]:
    """OpenAI messages -> engine messages. Text parts are joined; media parts need a model that takes them."""
    out = []
    for i, message in enumerate(raw):
        role = "system" if message["role"] == "developer" else message["role"]
        text = message.get("content")
        if not isinstance(text, str):  # the usual string needs no work (a body of 20,000 messages adds up)
            text = content_text(text, model_id, f"messages[{i}].content")
        # An OpenAI call is in the shape templates read: its arguments stay the JSON text the client sent.
        calls = tuple(PastCall.from_template_dict(call) for call in message.get("tool_calls") or ())
        out.append(ChatMessage(role=role, content=text, name=message.get("name"),
                               tool_call_id=message.get("tool_call_id"), tool_calls=calls,
                               reasoning_content=message.get("reasoning_content")))
    return tuple(out)


def template_kwargs(body: dict[str, Any], template: ChatTemplate, *, effort: str | None = None) -> dict[str, Any]:
    """The template's variables: the reasoning level (``effort``, else chat's ``reasoning_effort``) as the
    template can take it, then the ``enable_thinking`` shorthand, then ``chat_template_kwargs``, which wins. The
    two explicit forms are passed as given: a variable the template does not read is a 400 naming it."""
    kwargs = reasoning_kwargs(effort if effort is not None else body.get("reasoning_effort"), template)
    if body.get("enable_thinking") is not None:
        kwargs["enable_thinking"] = body["enable_thinking"]
    kwargs.update(body.get("chat_template_kwargs") or {})
    return kwargs


def response_constraint(raw: dict[str, Any] | None) -> Constraint | None:
    """OpenAI response_format -> a grammar constraint (None for text)."""
    if not raw or raw.get("type") == "text":
        return None
    spec = raw.get("json_schema")
    if raw.get("type") == "json_schema" and not isinstance(spec, dict):
        raise InvalidRequest("response_format json_schema needs {\"name\", \"schema\": {...}}",
                             param="response_format.json_schema")
    return format_constraint(str(raw.get("type")), spec, param="response_format.json_schema")


def format_constraint(kind: str, spec: dict[str, Any] | None, *, param: str) -> Constraint | None:
    """A structured-output request -> its grammar: ``text`` none, ``json_object`` any object, ``json_schema``
    the schema in ``spec["schema"]`` (chat's response_format and the Responses API's text.format alike)."""
    if kind == "text":
        return None
    if kind == "json_object":
        return Constraint.for_schema(ANY_JSON_OBJECT)
    schema = (spec or {}).get("schema")
    if schema is not None and not isinstance(schema, dict):
        raise InvalidRequest(f"{param} needs a \"schema\" object", param=param)
    # strict or not, objects that do not say otherwise are closed (Constraint.for_schema).
    return Constraint.for_schema(schema or ANY_JSON_OBJECT, param=param)


def logprobs_request(body: dict[str, Any]) -> int | None:
    if not body.get("logprobs"):
        if body.get("top_logprobs"):
            raise InvalidRequest("top_logprobs needs logprobs: true", param="top_logprobs")
        return None
    return int(body.get("top_logprobs") or 0)


def _extension(warm: int, spec: dict[str, float] | None) -> dict[str, Any]:
    """The reply's ``superfluid`` object: cached prefix tokens, and drafting figures when drafting ran."""
    out: dict[str, Any] = {"warm": warm}
    if spec:
        out["spec"] = spec
    return out


def _message(choice: ChoiceResult) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": choice.content, "refusal": None}
    if choice.reasoning:
        message["reasoning_content"] = choice.reasoning
    if choice.tool_calls:
        message["tool_calls"] = shapes.tool_calls_message(choice.tool_calls)
        message["content"] = choice.content or None
    return message


async def create_chat_completion() -> Response:
    body = request_body()
    svc = services()
    model = await svc.models.get(body["model"])
    of = request_class()
    stream = bool(body.get("stream"))
    request = await generation_request(model.id, of, lambda: dict(
        prompt=ChatPrompt(messages=convert_messages(body["messages"], model.id),
                          template_kwargs=template_kwargs(body, model.template)),
        sampling=params.sampling(body, n_vocab=model.n_vocab),
        max_tokens=body.get("max_completion_tokens") or body.get("max_tokens"),
        stop=params.stop_strings(body.get("stop")),
        n=1 if stream else int(body.get("n") or 1),
        constraint=response_constraint(body.get("response_format")),
        tools=params.tool_policy(body.get("tools"), body.get("tool_choice"), body.get("parallel_tool_calls")),
        logprobs=logprobs_request(body),
    ))
    completion_id = svc.next_id("chatcmpl")
    created = now()
    if stream:
        options = body.get("stream_options") or {}
        renderer = ChatStream(completion_id, created, model.id, logprobs=request.logprobs is not None,
                              continuous_usage=bool(options.get("continuous_usage_stats")))
        return await stream_reply(model, request, renderer)

    def reply(result: GenerationResult) -> dict[str, Any]:
        return {
            "id": completion_id,
            "object": "chat.completion",
            "created": created,
            "model": model.id,
            "choices": [
                {"index": c.index, "message": _message(c),
                 "logprobs": shapes.chat_logprobs(c.logprobs) if request.logprobs is not None else None,
                 "finish_reason": c.finish_reason}
                for c in result.choices
            ],
            "usage": params.usage_body(result.prompt_tokens, result.completion_tokens, result.cached_tokens),
            "superfluid": _extension(result.cached_tokens, result.choices[0].spec),
        }

    return await whole_reply(await start_generation(model, request, whole=True), reply)


class ChatStream(StreamRenderer):
    """One streamed chat completion: its chunks as SSE messages (a StreamRenderer).

    The product document's first chunk carries the role alone, no empty content for clients to trip over.
    Continuous usage figures need the cached count the loop learns at admission, so those streams are not
    direct."""

    dialect = Dialect.OPENAI

    def __init__(self, completion_id: str, created: int, model_id: str, *, logprobs: bool,
                 continuous_usage: bool = False) -> None:
        self.completion_id, self.created, self.model_id = completion_id, created, model_id
        self.logprobs = logprobs
        self.continuous_usage = continuous_usage
        self.direct = not continuous_usage
        self._generation: GenerationStream | None = None
        # The hot path, a plain content delta, is written as text around the encoded content.
        self._head, self._tail = dumps(self.chunk({"content": "\u0000"})).split('"\\u0000"')

    def chunk(self, delta: dict[str, Any], finish: str | None = None) -> Frame:
        return {"id": self.completion_id, "object": "chat.completion.chunk", "created": self.created,
                "model": self.model_id,
                "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]}

    def lead(self, generation: GenerationStream, warm: int) -> bytes:
        self._generation = generation
        return sse_data(self.chunk({"role": "assistant"}))

    def delta(self, event: TextDelta) -> bytes | None:
        """The chunk of one TextDelta, None when it carries nothing a client would see (no delta is ever
        empty); without continuous usage, safe on any thread."""
        if not self.logprobs and event.content and not event.reasoning and not event.tool_calls \
                and not self.continuous_usage:
            return b"data: " + (self._head + dumps(event.content) + self._tail).encode() + b"\n\n"
        if not (event.content or event.reasoning or event.tool_calls or (self.logprobs and event.logprobs)):
            return None
        frame = self._delta_frame(event)
        if self.continuous_usage and self._generation is not None:
            generation = self._generation
            frame["usage"] = params.usage_body(generation.prompt_tokens, event.completion_tokens,
                                               generation.cached_tokens or 0)
        return sse_data(frame)

    def _delta_frame(self, event: TextDelta) -> Frame:
        delta: dict[str, Any] = {}
        if event.reasoning:
            delta["reasoning_content"] = event.reasoning
        if event.content:
            delta["content"] = event.content
        if event.tool_calls:
            delta["tool_calls"] = shapes.tool_call_deltas(event.tool_calls)
        frame = self.chunk(delta)
        if self.logprobs:
            frame["choices"][0]["logprobs"] = shapes.chat_logprobs(event.logprobs)
        return frame

    async def finish(self, finished: Finished) -> bytes:
        usage = finished.usage
        final = self.chunk({}, finished.finish_reason)
        final["usage"] = params.usage_body(usage.prompt_tokens, usage.completion_tokens, usage.cached_tokens)
        final["superfluid"] = _extension(usage.cached_tokens, finished.spec)
        return sse_data(final)
