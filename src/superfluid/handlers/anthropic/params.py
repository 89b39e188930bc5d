"""Reading Anthropic Messages requests into engine types (shared by /v1/messages and its count_tokens).

An Anthropic conversation becomes the same chat messages the OpenAI handler builds, in the shape chat templates
read: a ``tool_use`` block is an assistant tool call (arguments as JSON text), each ``tool_result`` block a
``tool`` message naming its call, a ``thinking`` block the assistant's ``reasoning_content``. The document
(openapi/anthropic.yaml) has already checked every block's shape; this module decides what each one means.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from superfluid.engine import (
    ChatMessage,
    ChatPrompt,
    Constraint,
    PastCall,
    ServedModel,
    ToolChoice,
    ToolPolicy,
    ToolSpec,
    can_switch_thinking,
)
from superfluid.errors import InvalidRequest
from superfluid.handlers.conversation import choose_tools, refuse_media
from superfluid.handlers.openai import params as openai_params

MEDIA_BLOCKS = {"image": "images", "document": "documents"}
"""Block types that carry media, and how a refusal names what they carry."""

ASSISTANT_ONLY = frozenset({"tool_use", "thinking", "redacted_thinking"})
USER_ONLY = frozenset({"tool_result"})

TOOL_ERROR_PREFIX = "Error: "
"""What a tool_result with ``is_error`` is shown to the model after: templates have no error flag."""


def _misplaced(kind: str, role: str, param: str) -> InvalidRequest:
    return InvalidRequest(f"a '{kind}' block cannot be part of a{'n' if role == 'assistant' else ''} {role} turn",
                          param=param)


def _text(blocks: list[Mapping[str, Any]], model: str, where: str) -> str:
    """Text blocks joined with newlines; media refused naming the block."""
    texts = []
    for j, block in enumerate(blocks):
        kind = block.get("type")
        if kind in MEDIA_BLOCKS:
            refuse_media(model, MEDIA_BLOCKS[kind], f"{where}[{j}]")
        texts.append(str(block.get("text", "")))
    return "\n".join(texts)


def system_text(raw: str | list[Mapping[str, Any]] | None, model: str, where: str = "system") -> str:
    if raw is None or isinstance(raw, str):
        return raw or ""
    return _text(raw, model, where)


def _all_system_text(body: Mapping[str, Any], model: str) -> str:
    """``system``, then the text of every ``system`` message in ``messages`` (Claude Code sends some), in order:
    one system prompt, where the template puts system text (docs/anthropic.md)."""
    parts = [system_text(body.get("system"), model)]
    parts += [system_text(m["content"], model, f"messages[{i}].content")
              for i, m in enumerate(body["messages"]) if m["role"] == "system"]
    return "\n\n".join(part for part in parts if part)


def _tool_call(block: Mapping[str, Any]) -> PastCall:
    return PastCall(block["name"], json.dumps(block.get("input") or {}), block["id"])


def _assistant(blocks: list[Mapping[str, Any]], model: str, where: str) -> ChatMessage:
    texts, thoughts, calls = [], [], []
    for j, block in enumerate(blocks):
        kind = block.get("type")
        if kind == "text":
            texts.append(str(block.get("text", "")))
        elif kind == "thinking":
            thoughts.append(str(block.get("thinking", "")))
        elif kind == "tool_use":
            calls.append(_tool_call(block))
        elif kind in MEDIA_BLOCKS:
            refuse_media(model, MEDIA_BLOCKS[kind], f"{where}[{j}]")
        elif kind in USER_ONLY:
            raise _misplaced(kind, "assistant", f"{where}[{j}]")
        # redacted_thinking carries nothing this server can read: left out.
    return ChatMessage(role="assistant", content="\n".join(texts), tool_calls=tuple(calls),
                       reasoning_content="\n".join(thoughts) if thoughts else None)


def _result_text(block: Mapping[str, Any], model: str, where: str) -> str:
    content = block.get("content")
    if content is None:
        text = ""
    elif isinstance(content, str):
        text = content
    else:
        text = _text(content, model, f"{where}.content")
    return TOOL_ERROR_PREFIX + text if block.get("is_error") else text


def _user(blocks: list[Mapping[str, Any]], model: str, where: str,
          call_names: Mapping[str, str]) -> list[ChatMessage]:
    """A user turn: its tool results become ``tool`` messages, its text one user message, in block order."""
    out: list[ChatMessage] = []
    texts: list[str] = []

    def flush() -> None:
        if texts:
            out.append(ChatMessage(role="user", content="\n".join(texts)))
            texts.clear()

    for j, block in enumerate(blocks):
        kind = block.get("type")
        if kind == "tool_result":
            flush()
            call_id = str(block["tool_use_id"])
            out.append(ChatMessage(role="tool", content=_result_text(block, model, f"{where}[{j}]"),
                                   tool_call_id=call_id, name=call_names.get(call_id)))
        elif kind in MEDIA_BLOCKS:
            refuse_media(model, MEDIA_BLOCKS[kind], f"{where}[{j}]")
        elif kind in ASSISTANT_ONLY:
            raise _misplaced(kind, "user", f"{where}[{j}]")
        else:
            texts.append(str(block.get("text", "")))
    flush()
    return out or [ChatMessage(role="user", content="")]


def convert_messages(body: Mapping[str, Any], model: str) -> tuple[ChatMessage, ...]:
    """system + messages -> engine messages."""
    if all(message["role"] == "system" for message in body["messages"]):
        raise InvalidRequest("messages needs a user or assistant turn besides system messages", param="messages")
    out: list[ChatMessage] = []
    system = _all_system_text(body, model)
    if system:
        out.append(ChatMessage(role="system", content=system))
    call_names: dict[str, str] = {}
    for i, message in enumerate(body["messages"]):
        content = message["content"]
        role = message["role"]
        if role == "system":
            continue
        if isinstance(content, str):
            out.append(ChatMessage(role=role, content=content))
            continue
        where = f"messages[{i}].content"
        if role == "assistant":
            turn = _assistant(content, model, where)
            for call in turn.tool_calls:
                call_names[str(call.id)] = str(call.name)
            out.append(turn)
        else:
            out.extend(_user(content, model, where, call_names))
    return tuple(out)


def tool_policy(tools: list[Mapping[str, Any]] | None, choice: Mapping[str, Any] | None) -> ToolPolicy | None:
    """tools + tool_choice -> a ToolPolicy. Anthropic lets a reply make several calls unless
    ``disable_parallel_tool_use`` says otherwise."""
    if not tools and choice is None:
        return None
    specs = [_client_tool(tool, i) for i, tool in enumerate(tools or ()) if tool.get("type") in (None, "custom")]
    kind = (choice or {}).get("type", "auto")
    picked: ToolChoice = {"auto": "auto", "any": "required", "none": "none"}.get(kind, "")
    named = kind == "tool"
    if named:
        picked = str((choice or {}).get("name") or "")
    parallel = not (choice or {}).get("disable_parallel_tool_use", False)
    return choose_tools(specs, picked, parallel=parallel, named=named, param="tool_choice")


def _client_tool(tool: Mapping[str, Any], i: int) -> ToolSpec:
    """A tool the client runs. Tools of other types (Anthropic's server tools) never reach here: this server
    cannot run them, so they are left out of the prompt (docs/anthropic.md)."""
    if not isinstance(tool.get("input_schema"), Mapping):
        raise InvalidRequest("a client tool needs an input_schema object", param=f"tools[{i}].input_schema")
    return ToolSpec(name=str(tool["name"]), description=str(tool.get("description") or ""),
                    parameters=dict(tool["input_schema"]))


def thinking_kwargs(raw: Mapping[str, Any] | None, model: ServedModel) -> dict[str, Any]:
    """thinking -> the chat template's thinking switch as ``enable_thinking`` (enabled and adaptive: on; disabled:
    off), which a template reading ``thinking`` (Kimi K3, Granite 3.3) gets under that name; absent leaves the
    template's own default. A template without a switch ignores it, as chat's reasoning_effort (docs/api.md,
    "Reasoning settings")."""
    if raw is None:
        return {}
    if raw["type"] == "disabled":
        return {"enable_thinking": False}
    return {"enable_thinking": True} if can_switch_thinking(model.template) else {}


def shows_thinking(body: Mapping[str, Any]) -> bool:
    """``thinking.display: omitted`` keeps thinking blocks but empties their text."""
    return (body.get("thinking") or {}).get("display") != "omitted"


def output_constraint(raw: Mapping[str, Any] | None) -> Constraint | None:
    """output_config.format (json_schema) -> a grammar constraint; objects that say nothing of extra keys are
    closed, as on every schema route."""
    spec = (raw or {}).get("format")
    if not spec:
        return None
    return Constraint.for_schema(dict(spec["schema"]), param="output_config.format")


def prefill(messages: tuple[ChatMessage, ...]) -> tuple[tuple[ChatMessage, ...], str]:
    """A conversation that ends with an assistant turn of plain text asks the reply to continue that text (the
    hosted API's prefill): the turn leaves the history and becomes the prompt's prefill."""
    last = messages[-1] if messages else None
    if last is None or last.role != "assistant" or not last.plain or not last.content:
        return messages, ""
    return messages[:-1], last.content


def prompt(body: Mapping[str, Any], model: ServedModel) -> ChatPrompt:
    history, text = prefill(convert_messages(body, model.id))
    return ChatPrompt(messages=history, template_kwargs=thinking_kwargs(body.get("thinking"), model), prefill=text)


def request_fields(body: Mapping[str, Any], model: ServedModel) -> dict[str, Any]:
    """The engine request's fields (handlers/context.py's ``generation_request`` adds the rest). Sampling fields
    read as on chat completions (top_k is Anthropic's own; superfluid's extensions such as min_p, seed or
    ignore_eos are read the same way)."""
    return dict(
        prompt=prompt(body, model),
        sampling=openai_params.sampling(dict(body), n_vocab=model.n_vocab),
        max_tokens=int(body["max_tokens"]),
        stop=tuple(s for s in body.get("stop_sequences") or () if s),
        tools=tool_policy(body.get("tools"), body.get("tool_choice")),
        constraint=output_constraint(body.get("output_config")),
    )
