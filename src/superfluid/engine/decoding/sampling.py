"""Per-lane sampler chains built from a request's sampling parameters."""

from __future__ import annotations

import ctypes
import secrets
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import llama_cpp
import numpy as np
import numpy.typing as npt

from superfluid.engine.types import SamplingParams

# llama.cpp's own defaults, used when neither the request nor the GGUF says otherwise.
LLAMA_DEFAULTS: dict[str, float] = {"temperature": 0.8, "top_k": 40, "top_p": 0.95, "min_p": 0.05}


@dataclass(frozen=True)
class EffectiveSampling:
    """The sampling a lane really runs with, after defaults are filled in."""

    temperature: float
    top_k: int
    top_p: float
    min_p: float
    seed: int
    presence_penalty: float
    frequency_penalty: float
    repeat_penalty: float
    repeat_last_n: int
    logit_bias: tuple[tuple[int, float], ...]


def model_defaults(declared: Mapping[str, float]) -> dict[str, float]:
    """A model's sampling defaults: what its GGUF declares over llama.cpp's."""
    return {**LLAMA_DEFAULTS, **declared}


def resolve(params: SamplingParams, defaults: Mapping[str, float], *, seed_offset: int = 0,
            banned: Iterable[int] = ()) -> EffectiveSampling:
    seed = params.seed if params.seed is not None else secrets.randbits(31)
    bias = dict(params.logit_bias)
    for token in banned:
        bias[token] = float("-inf")
    return EffectiveSampling(
        temperature=params.temperature if params.temperature is not None else defaults["temperature"],
        top_k=params.top_k if params.top_k is not None else int(defaults["top_k"]),
        top_p=params.top_p if params.top_p is not None else defaults["top_p"],
        min_p=params.min_p if params.min_p is not None else defaults["min_p"],
        # 0xFFFFFFFF means "random" to llama.cpp, so seeds live in 0..0xFFFFFFFE.
        seed=(seed + seed_offset) % 0xFFFFFFFF,
        presence_penalty=params.presence_penalty,
        frequency_penalty=params.frequency_penalty,
        repeat_penalty=params.repeat_penalty,
        repeat_last_n=params.repeat_last_n,
        logit_bias=tuple(sorted(bias.items())),
    )


def _address_of_logits() -> Any:
    """llama_get_logits_ith answering a plain address: the binding's own wrapper builds a ctypes pointer object."""
    entry = ctypes.cast(llama_cpp.llama_cpp._lib.llama_get_logits_ith, ctypes.c_void_p).value
    assert entry is not None
    return ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int32)(entry)


_logits_address = _address_of_logits()


class LogitRows:
    """numpy views of llama.cpp's logits rows, made once per row address and then reused.

    Right after a decode every code path the engine thread runs is cold; building ctypes pointer, array and
    buffer objects for each sample cost ~40 us there, where a dict lookup on the row's address costs ~1 us. A
    view only ever covers memory llama.cpp has just said holds that row.
    """

    LIMIT = 4096

    def __init__(self, n_vocab: int) -> None:
        self._row_type = ctypes.c_float * n_vocab
        self._views: dict[int, npt.NDArray[np.float32]] = {}

    def row(self, ctx: llama_cpp.llama_context_p, batch_index: int) -> npt.NDArray[np.float32]:
        """The logits of one output of the last decode (writable: biases are added in place)."""
        address = _logits_address(ctx, batch_index)
        if not address:
            raise RuntimeError(f"llama.cpp has no logits for batch row {batch_index}")
        view = self._views.get(address)
        if view is None:
            if len(self._views) >= self.LIMIT:  # the output buffer moved often: start over
                self._views.clear()
            buffer = memoryview(self._row_type.from_address(address))
            view = self._views[address] = np.frombuffer(buffer, dtype=np.float32)
        return view


class SamplerChain:
    """A llama.cpp sampler chain owned by one lane; free it when the lane's job ends.

    Greedy decoding without penalties is stateless, so it skips the chain: the logit biases are added to the
    logits row and numpy's argmax picks the token (the first of equal maxima, as llama.cpp's greedy sampler
    does). That takes ~11 us where the chain, which copies the whole vocabulary into candidate records first,
    takes ~87 us on the bundled model's 49k vocabulary — about 1% of a decode.
    """

    def __init__(self, sampling: EffectiveSampling, n_vocab: int, rows: LogitRows | None = None) -> None:
        penalties = sampling.repeat_penalty != 1.0 or sampling.presence_penalty or sampling.frequency_penalty
        self._argmax = sampling.temperature <= 0 and not penalties
        self._rows = rows or LogitRows(n_vocab)
        # Bans (-inf) are checked after the argmax instead of written into the row first: when the pick is not
        # banned it is the first maximum of the banned row too, since a ban only lowers other entries.
        shifts = [(t, b) for t, b in sampling.logit_bias if b != float("-inf")]
        self._bans = frozenset(t for t, b in sampling.logit_bias if b == float("-inf"))
        self._ban_ids = np.array(sorted(self._bans), dtype=np.intp)
        self._bias_ids = np.array([t for t, _ in shifts], dtype=np.intp)
        self._bias_values = np.array([b for _, b in shifts], dtype=np.float32)
        chain = llama_cpp.llama_sampler_chain_init(llama_cpp.llama_sampler_chain_default_params())
        self._chain = chain
        add = llama_cpp.llama_sampler_chain_add
        if sampling.logit_bias:
            arr = (llama_cpp.llama_logit_bias * len(sampling.logit_bias))()
            for i, (token, bias) in enumerate(sampling.logit_bias):
                arr[i] = llama_cpp.llama_logit_bias(token, bias)
            add(chain, llama_cpp.llama_sampler_init_logit_bias(n_vocab, len(sampling.logit_bias), arr))
        if sampling.repeat_penalty != 1.0 or sampling.presence_penalty or sampling.frequency_penalty:
            add(chain, llama_cpp.llama_sampler_init_penalties(
                n_vocab, sampling.repeat_last_n, sampling.repeat_penalty,
                sampling.frequency_penalty, sampling.presence_penalty))
        if sampling.temperature <= 0:
            add(chain, llama_cpp.llama_sampler_init_greedy())
            return
        if sampling.top_k > 0:
            add(chain, llama_cpp.llama_sampler_init_top_k(sampling.top_k))
        if sampling.top_p < 1.0:
            add(chain, llama_cpp.llama_sampler_init_top_p(sampling.top_p, 1))
        if sampling.min_p > 0.0:
            add(chain, llama_cpp.llama_sampler_init_min_p(sampling.min_p, 1))
        add(chain, llama_cpp.llama_sampler_init_temp(sampling.temperature))
        add(chain, llama_cpp.llama_sampler_init_dist(sampling.seed))

    def sample(self, ctx: llama_cpp.llama_context_p, batch_index: int) -> int:
        if self._argmax:
            row = self._rows.row(ctx, batch_index)
            if len(self._bias_ids):
                row[self._bias_ids] += self._bias_values
            token = int(row.argmax())
            if token in self._bans:
                row[self._ban_ids] = -np.inf
                token = int(row.argmax())
            return token
        return int(llama_cpp.llama_sampler_sample(self._chain, ctx, batch_index))

    def close(self) -> None:
        if self._chain:
            llama_cpp.llama_sampler_free(self._chain)
            self._chain = None
