"""Reading OpenAI-dialect request fields into engine types (shared by chat and completions)."""

from __future__ import annotations

from typing import Any

from superfluid.engine import SamplingParams, ToolChoice, ToolPolicy, ToolSpec
from superfluid.errors import InvalidRequest
from superfluid.handlers.conversation import choose_tools


def _number(body: dict[str, Any], name: str) -> float | None:
    value = body.get(name)
    return None if value is None else float(value)


def logit_bias(raw: dict[str, Any] | None, n_vocab: int) -> dict[int, float]:
    out: dict[int, float] = {}
    for key, bias in (raw or {}).items():
        try:
            token = int(key)
        except ValueError:
            raise InvalidRequest(f"logit_bias keys must be token ids; got '{key}'", param="logit_bias") from None
        if not 0 <= token < n_vocab:
            raise InvalidRequest(f"logit_bias token {token} is outside the vocabulary (0-{n_vocab - 1})",
                                 param="logit_bias")
        out[token] = float(bias)
    return out


def sampling(body: dict[str, Any], *, n_vocab: int, read_bias: bool = True) -> SamplingParams:
    repeat = body.get("repeat_penalty")
    if repeat is None:
        repeat = body.get("repetition_penalty")
    top_k = body.get("top_k")
    seed = body.get("seed")
    return SamplingParams(
        temperature=_number(body, "temperature"),
        top_p=_number(body, "top_p"),
        top_k=None if top_k is None else int(top_k),
        min_p=_number(body, "min_p"),
        seed=None if not seed else int(seed),
        presence_penalty=_number(body, "presence_penalty") or 0.0,
        frequency_penalty=_number(body, "frequency_penalty") or 0.0,
        repeat_penalty=1.0 if repeat is None else float(repeat),
        logit_bias=logit_bias(body.get("logit_bias"), n_vocab) if read_bias else {},
        ignore_eos=bool(body.get("ignore_eos")),
    )


def stop_strings(raw: str | list[str] | None) -> tuple[str, ...]:
    if raw is None:
        return ()
    if isinstance(raw, str):
        return (raw,) if raw else ()
    return tuple(s for s in raw if s)


def usage_body(prompt: int, completion: int, cached: int) -> dict[str, Any]:
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "prompt_tokens_details": {"cached_tokens": cached},
    }


def tool_policy(tools: list[dict[str, Any]] | None, choice: Any, parallel: bool | None) -> ToolPolicy:
    """OpenAI ``tools`` / ``tool_choice`` / ``parallel_tool_calls`` -> a ToolPolicy (400 on a bad choice)."""
    specs = []
    for i, tool in enumerate(tools or []):
        fn = tool.get("function") if isinstance(tool, dict) else None
        if tool.get("type", "function") != "function" or not isinstance(fn, dict) or not fn.get("name"):
            raise InvalidRequest("each tool must be {\"type\": \"function\", \"function\": {\"name\", ...}}",
                                 param=f"tools[{i}]")
        specs.append(ToolSpec(name=str(fn["name"]), description=str(fn.get("description") or ""),
                              parameters=fn.get("parameters") or {"type": "object", "properties": {}}))
    if choice is None:
        picked: ToolChoice = "auto"
        named = False
    elif isinstance(choice, str):
        if choice not in ("auto", "none", "required"):
            raise InvalidRequest(f"tool_choice must be auto, none, required or a function; got '{choice}'",
                                 param="tool_choice")
        picked, named = choice, False
    else:
        name = (choice.get("function") or {}).get("name") if isinstance(choice, dict) else None
        if not name:
            raise InvalidRequest('tool_choice must name a function: {"type": "function", "function": {"name"}}',
                                 param="tool_choice")
        picked, named = str(name), True
    # As llama-server does, one call per reply unless the client asks for parallel calls.
    return choose_tools(specs, picked, parallel=parallel is True, named=named, param="tool_choice")
