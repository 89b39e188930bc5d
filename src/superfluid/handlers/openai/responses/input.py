"""Responses API requests -> the engine's GenerationRequest.

``input`` becomes a list of *items* in the shape they are stored and listed in (each with an id), and the items
(those of the previous response's conversation first) become the chat messages every dialect renders through the
model's template: messages keep their role (``developer`` reads as ``system``), ``function_call`` items join the
assistant message before them as its tool calls, ``function_call_output`` items are ``tool`` messages, and a
``reasoning`` item passed back is the next assistant message's ``reasoning_content``. Tools, ``text.format``,
``reasoning.effort`` and the sampling fields go through the same readers as chat's.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from typing import Any

from superfluid.engine import ChatMessage, ChatTemplate, Constraint, PastCall, ToolPolicy
from superfluid.errors import InvalidRequest, UnsupportedParameter
from superfluid.handlers.openai import chat
from superfluid.handlers.openai import params as openai_params

ROLES = frozenset({"user", "assistant", "system", "developer"})
_ITEM_PREFIX = {"message": "msg", "function_call": "fc", "function_call_output": "fco", "reasoning": "rs"}
_OUTPUT_PARTS = frozenset({"output_text", "refusal"})
LOGPROBS_INCLUDE = "message.output_text.logprobs"


def new_id(prefix: str) -> str:
    """An OpenAI-style id: ``resp_``, ``msg_``, ``fc_`` ... and 48 random hex digits (unique across restarts)."""
    return f"{prefix}_{secrets.token_hex(24)}"


# ---- input -> stored items -------------------------------------------------------------------------------
def input_items(raw: str | list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    """The request's ``input`` as items with ids, in the shapes GET .../input_items lists."""
    if raw is None:
        return []
    if isinstance(raw, str):
        return [_message("user", raw, None)]
    return [_item(item, f"input[{i}]") for i, item in enumerate(raw)]


def _item(item: dict[str, Any], param: str) -> dict[str, Any]:
    kind = item.get("type") or ("message" if "role" in item else None)
    if kind == "message":
        role = item.get("role")
        if role not in ROLES:
            raise InvalidRequest(f"a message's role is one of {', '.join(sorted(ROLES))}; got {role!r}",
                                 param=f"{param}.role")
        return _message(str(role), item.get("content"), item.get("id"), param)
    if kind == "function_call":
        _require(item, ("call_id", "name", "arguments"), param)
        return {"type": "function_call", "id": item.get("id") or new_id("fc"), "call_id": str(item["call_id"]),
                "name": str(item["name"]), "arguments": str(item["arguments"]), "status": "completed"}
    if kind == "function_call_output":
        # Codex also sends outputs that answer no call: its agent events, named (and namespaced) instead.
        _require(item, ("output",) if item.get("name") is not None else ("call_id", "output"), param)
        out = {"type": "function_call_output", "id": item.get("id") or new_id("fco"), "output": item["output"],
               "status": "completed"}
        out.update({key: str(item[key]) for key in ("call_id", "name", "namespace") if item.get(key) is not None})
        return out
    if kind == "reasoning":
        out = {"type": "reasoning", "id": item.get("id") or new_id("rs"), "summary": list(item.get("summary") or [])}
        if item.get("content"):
            out["content"] = list(item["content"])
        return out
    raise UnsupportedParameter(f"input items of type '{kind}' are not supported; send messages, function_call, "
                               "function_call_output and reasoning items", param=f"{param}.type")


def _require(item: dict[str, Any], keys: Sequence[str], param: str) -> None:
    for key in keys:
        if item.get(key) is None:
            raise InvalidRequest(f"a {item.get('type')} item needs '{key}'", param=f"{param}.{key}")


def _message(role: str, content: Any, item_id: str | None, param: str = "input") -> dict[str, Any]:
    if role == "assistant":
        parts = [_output_part(part) for part in _parts(content, "output_text", param)]
    else:
        parts = _parts(content, "input_text", param)
    return {"type": "message", "id": item_id or new_id("msg"), "role": role, "status": "completed",
            "content": parts}


def _parts(content: Any, text_type: str, param: str) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": text_type, "text": content}]
    if not isinstance(content, list) or not all(isinstance(p, dict) for p in content):
        raise InvalidRequest("a message's content is a string or a list of content parts", param=f"{param}.content")
    return [dict(part) for part in content]


def _output_part(part: dict[str, Any]) -> dict[str, Any]:
    """An assistant message's part as an output part: text of any kind is output_text."""
    if part.get("type") == "refusal":
        return {"type": "refusal", "refusal": str(part.get("refusal") or "")}
    if part.get("type") in ("output_text", "input_text", "text"):
        return {"type": "output_text", "text": str(part.get("text") or ""),
                "annotations": list(part.get("annotations") or []), "logprobs": list(part.get("logprobs") or [])}
    return part  # a media part: the conversion refuses it, naming it


def check_unique_ids(history: Sequence[dict[str, Any]], items: Sequence[dict[str, Any]]) -> None:
    """Item ids are unique within a conversation (``after`` cursors name them); 400 naming the duplicate."""
    seen = {str(item["id"]) for item in history}
    for i, item in enumerate(items):
        if item["id"] in seen:
            raise InvalidRequest(f"duplicate item id '{item['id']}': the conversation already holds it",
                                 param=f"input[{i}].id")
        seen.add(str(item["id"]))


# ---- items -> chat messages ------------------------------------------------------------------------------
def chat_messages(items: Sequence[dict[str, Any]], *, instructions: str | None, model_id: str,
                  history: int = 0) -> tuple[ChatMessage, ...]:
    """Items (the first ``history`` of them from the previous response) -> the engine's chat messages."""
    out: list[dict[str, Any]] = []  # ChatMessage's fields, its calls in a list while a turn gathers them
    if instructions:
        out.append({"role": "system", "content": instructions})
    reasoning = ""
    previous_kind = ""
    for i, item in enumerate(items):
        param = "previous_response_id" if i < history else f"input[{i - history}]"
        kind = item["type"]
        if kind == "reasoning":
            reasoning += _reasoning_text(item)
        elif kind == "message":
            role = "system" if item["role"] == "developer" else item["role"]
            text = chat.content_text(_text_parts(item["content"]), model_id, f"{param}.content")
            thought = {"reasoning_content": reasoning} if role == "assistant" and reasoning else {}
            reasoning = "" if role == "assistant" else reasoning
            out.append({"role": role, "content": text, **thought})
        elif kind == "function_call":
            call = PastCall(item["name"], item["arguments"], item["call_id"])
            joins = previous_kind in ("assistant", "function_call") and out and out[-1]["role"] == "assistant"
            if not joins:
                thought = {"reasoning_content": reasoning} if reasoning else {}
                out.append({"role": "assistant", "content": "", **thought})
                reasoning = ""
            out[-1]["tool_calls"] = [*out[-1].get("tool_calls", ()), call]
        elif kind == "function_call_output":
            text = _output_text(item["output"], model_id, f"{param}.output")
            named = ".".join(str(item[key]) for key in ("namespace", "name") if item.get(key))
            answers = {"tool_call_id": item["call_id"]} if "call_id" in item else {"name": named}
            out.append({"role": "tool", "content": text, **answers})
        previous_kind = item.get("role", kind) if kind == "message" else kind
    return tuple(ChatMessage(**{**m, "tool_calls": tuple(m.get("tool_calls", ()))}) for m in out)


def _text_parts(parts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Responses text parts as the text parts chat's conversion reads; anything else passes to be refused."""
    out = []
    for part in parts:
        if part.get("type") == "refusal":
            out.append({"type": "text", "text": str(part.get("refusal") or "")})
        elif part.get("type") in ("input_text", "output_text"):
            out.append({"type": "text", "text": str(part.get("text") or "")})
        else:
            out.append(part)
    return out


def _output_text(output: Any, model_id: str, param: str) -> str:
    if isinstance(output, str):
        return output
    if isinstance(output, list):
        return chat.content_text(_text_parts([p for p in output if isinstance(p, dict)]), model_id, param)
    raise InvalidRequest("a function_call_output's output is a string or a list of content parts", param=param)


def _reasoning_text(item: dict[str, Any]) -> str:
    parts = [*(item.get("summary") or []), *(item.get("content") or [])]
    return "\n".join(str(p.get("text") or "") for p in parts if isinstance(p, dict))


# ---- the other fields ------------------------------------------------------------------------------------
def function_tools(body: dict[str, Any]) -> list[tuple[str, dict[str, Any], str | None]]:
    """The function tools a request declares, each with where it stands and its namespace: flat ones, and
    those inside a ``namespace`` tool (Codex sends its tools so), flattened. Tools of every other type (hosted
    ones the server cannot run: ``web_search``, ``file_search``, ``local_shell``, ``mcp``, ``custom`` ...) are
    left out of the prompt and never fail the request (docs/responses.md, "Tools")."""
    found: list[tuple[str, dict[str, Any], str | None]] = []
    for i, tool in enumerate(body.get("tools") or []):
        if tool.get("type") == "function":
            found.append((f"tools[{i}]", tool, None))
        elif tool.get("type") == "namespace":
            namespace = str(tool.get("name") or "")
            found += [(f"tools[{i}].tools[{j}]", inner, namespace) for j, inner in enumerate(tool.get("tools") or [])
                      if isinstance(inner, dict) and inner.get("type") == "function"]
    return found


def tool_namespaces(body: dict[str, Any]) -> dict[str, str]:
    """Function name -> its namespace, for the functions declared inside ``namespace`` tools: their calls name it."""
    return {str(tool.get("name")): namespace for _, tool, namespace in function_tools(body) if namespace}


def tool_policy(body: dict[str, Any]) -> ToolPolicy:
    """Function tools (flat, as the Responses API writes them, or in namespaces) and tool_choice -> chat's tool
    policy; tools of other types are left out (``function_tools``). parallel_tool_calls defaults to true here, as
    the Responses API says."""
    tools: list[dict[str, Any]] = []
    seen: set[str] = set()
    for where, tool, _ in function_tools(body):
        name = tool.get("name")
        if not name or not isinstance(name, str):
            raise InvalidRequest("a function tool needs a name", param=f"{where}.name")
        # A namespace's tools are not typed by the document: check what the top level's schema would.
        if tool.get("parameters") is not None and not isinstance(tool["parameters"], dict):
            raise InvalidRequest("a function tool's parameters must be a JSON schema object",
                                 param=f"{where}.parameters")
        if name in seen:
            raise InvalidRequest(f"two function tools are named '{name}' (namespaces are flattened: their "
                                 "functions share one set of names)", param=f"{where}.name")
        seen.add(name)
        tools.append({"type": "function", "function": {
            "name": name, "description": str(tool.get("description") or ""), "parameters": tool.get("parameters")}})
    choice = body.get("tool_choice")
    if isinstance(choice, dict):
        if choice.get("type") != "function":
            raise UnsupportedParameter(f"tool_choice of type '{choice.get('type')}' is not supported; use auto, "
                                       "none, required or {\"type\": \"function\", \"name\"}", param="tool_choice.type")
        choice = {"type": "function", "function": {"name": choice.get("name")}}
    parallel = body.get("parallel_tool_calls")
    return openai_params.tool_policy(tools, choice, True if parallel is None else bool(parallel))


def text_constraint(body: dict[str, Any]) -> Constraint | None:
    """``text.format`` (text, json_object, json_schema) -> a grammar, as chat's response_format."""
    fmt = (body.get("text") or {}).get("format")
    if not fmt:
        return None
    return chat.format_constraint(str(fmt.get("type")), fmt, param="text.format")


def template_kwargs(body: dict[str, Any], template: ChatTemplate) -> dict[str, Any]:
    """reasoning.effort as the model's template can take it (ignored by one that cannot think), then
    superfluid's own extensions (``enable_thinking``, ``chat_template_kwargs``; those win), as chat reads them."""
    return chat.template_kwargs({k: body.get(k) for k in ("enable_thinking", "chat_template_kwargs")}, template,
                                effort=(body.get("reasoning") or {}).get("effort"))


def logprobs_request(body: dict[str, Any]) -> int | None:
    """Log probabilities are on when ``include`` asks for them or ``top_logprobs`` is set."""
    top = body.get("top_logprobs")
    if top is None and LOGPROBS_INCLUDE not in (body.get("include") or ()):
        return None
    return int(top or 0)
