"""Per-lane sampler chains built from a request's sampling parameters."""

from __future__ import annotations

import ctypes
import secrets
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import llama_cpp
import numpy as np
import numpy.typing as npt

from superfluid.engine.models.native import logits_address
from superfluid.engine.types import SamplingParams

# llama.cpp's own defaults, used when neither the request nor the GGUF says otherwise.
LLAMA_DEFAULTS: dict[str, float] = {"temperature": 0.8, "top_k": 40, "top_p": 0.95, "min_p": 0.05}
OPERATOR_FIELDS = tuple(LLAMA_DEFAULTS)
"""What the operator's sampling flags (--temp, --top-k, --top-p, --min-p) set over a model's defaults."""


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


def model_defaults(declared: Mapping[str, float], operator: Mapping[str, float] | None = None) -> dict[str, float]:
    """A model's sampling defaults: what its GGUF declares over llama.cpp's, and the operator's flags over both."""
    return {**LLAMA_DEFAULTS, **declared, **(operator or {})}


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


class LogitRows:
    """numpy views of llama.cpp's logits rows, made once per row address and then reused.

    Right after a decode every code path the engine thread runs is cold; building ctypes pointer, array and
    buffer objects for each sample cost ~40 us there, where a dict lookup on the row's address costs ~1 us. A
    view only ever covers memory llama.cpp has just said holds that row.
    """

    LIMIT = 4096

    def __init__(self, n_vocab: int) -> None:
        self._n_vocab = n_vocab
        self._row_type = ctypes.c_float * n_vocab
        self._views: dict[int, npt.NDArray[np.float32]] = {}
        self._blocks: dict[tuple[int, int], npt.NDArray[np.float32]] = {}

    def block(self, ctx: llama_cpp.llama_context_p, batch_indexes: list[int]) -> npt.NDArray[np.float32] | None:
        """One (rows x vocabulary) view over the logits of these outputs, when llama.cpp holds them one after
        the other (it keeps outputs in batch order); None otherwise."""
        first = logits_address(ctx, batch_indexes[0])
        stride = self._n_vocab * ctypes.sizeof(ctypes.c_float)
        for at, index in enumerate(batch_indexes):
            if not first or logits_address(ctx, index) != first + at * stride:
                return None
        key = (first, len(batch_indexes))
        view = self._blocks.get(key)
        if view is None:
            if len(self._blocks) >= self.LIMIT:
                self._blocks.clear()
            buffer = memoryview((ctypes.c_float * (self._n_vocab * len(batch_indexes))).from_address(first))
            view = self._blocks[key] = np.frombuffer(buffer, dtype=np.float32).reshape(len(batch_indexes), -1)
        return view

    def row(self, ctx: llama_cpp.llama_context_p, batch_index: int) -> npt.NDArray[np.float32]:
        """The logits of one output of the last decode (writable: biases are added in place)."""
        address = logits_address(ctx, batch_index)  # GIL held: see models/native.py
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
    """llama.cpp's own sampler chain for one lane's settings: the reference the engine's numpy sampler
    (lane_sampler.LaneSampler) is held against in tests and benchmarks/sampling.py. Free it with ``close``.

    The engine no longer samples through it: the chain copies the whole vocabulary into candidate records
    and sorts them for every token, several times the cost of the numpy path on the bundled model's 49k vocabulary.
    """

    def __init__(self, sampling: EffectiveSampling, n_vocab: int) -> None:
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
        """Sample one output of the last decode (and accept it, which feeds the penalty window)."""
        return int(llama_cpp.llama_sampler_sample(self._chain, ctx, batch_index))

    def sample_row(self, row: npt.NDArray[np.float32]) -> int:
        """Run the chain on a logits row of one's own (tests, benchmarks), then accept the pick."""
        records = np.zeros(len(row), dtype=_TOKEN_DATA)
        records["id"] = np.arange(len(row))
        records["logit"] = row
        array = llama_cpp.llama_token_data_array(
            data=ctypes.cast(records.ctypes.data, llama_cpp.llama_token_data_p), size=len(row), selected=-1,
            sorted=False)
        llama_cpp.llama_sampler_apply(self._chain, ctypes.byref(array))
        token = int(array.data[array.selected].id)  # a stage may point data elsewhere
        llama_cpp.llama_sampler_accept(self._chain, token)
        return token

    def close(self) -> None:
        if self._chain:
            llama_cpp.llama_sampler_free(self._chain)
            self._chain = None


_TOKEN_DATA = np.dtype([("id", np.int32), ("logit", np.float32), ("p", np.float32)])
"""llama_token_data as a numpy record."""
