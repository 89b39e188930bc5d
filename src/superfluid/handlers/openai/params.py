"""Reading OpenAI-dialect request fields into engine types (shared by chat and completions)."""

from __future__ import annotations

from typing import Any

from superfluid.engine import SamplingParams
from superfluid.errors import InvalidRequest


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
