from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.completion_request_fim_mode import CompletionRequestFimMode
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.sampling_fields_stream_options_type_0 import SamplingFieldsStreamOptionsType0


T = TypeVar("T", bound="CompletionRequest")


@_attrs_define
class CompletionRequest:
    """
    Attributes:
        model (str):
        prompt (str): A single string; arrays and token ids are refused.
        temperature (float | None | Unset):
        top_p (float | None | Unset):
        top_k (int | None | Unset):
        min_p (float | None | Unset):
        seed (int | None | Unset): 0 or absent draws a fresh seed per request.
        presence_penalty (float | None | Unset):
        frequency_penalty (float | None | Unset):
        repeat_penalty (float | None | Unset):
        repetition_penalty (float | None | Unset):
        ignore_eos (bool | None | Unset):
        stream (bool | None | Unset):
        stream_options (None | SamplingFieldsStreamOptionsType0 | Unset):
        suffix (None | str | Unset): Text after the cursor; its presence makes the request fill-in-the-middle.
        fim_mode (CompletionRequestFimMode | Unset):
        echo (bool | None | Unset):
        max_tokens (int | None | Unset):
        logprobs (int | None | Unset):
    """

    model: str
    prompt: str
    temperature: float | None | Unset = UNSET
    top_p: float | None | Unset = UNSET
    top_k: int | None | Unset = UNSET
    min_p: float | None | Unset = UNSET
    seed: int | None | Unset = UNSET
    presence_penalty: float | None | Unset = UNSET
    frequency_penalty: float | None | Unset = UNSET
    repeat_penalty: float | None | Unset = UNSET
    repetition_penalty: float | None | Unset = UNSET
    ignore_eos: bool | None | Unset = UNSET
    stream: bool | None | Unset = UNSET
    stream_options: None | SamplingFieldsStreamOptionsType0 | Unset = UNSET
    suffix: None | str | Unset = UNSET
    fim_mode: CompletionRequestFimMode | Unset = UNSET
    echo: bool | None | Unset = UNSET
    max_tokens: int | None | Unset = UNSET
    logprobs: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.sampling_fields_stream_options_type_0 import SamplingFieldsStreamOptionsType0  # noqa: PLC0415

        model = self.model

        prompt = self.prompt

        temperature: float | None | Unset
        if isinstance(self.temperature, Unset):
            temperature = UNSET
        else:
            temperature = self.temperature

        top_p: float | None | Unset
        if isinstance(self.top_p, Unset):
            top_p = UNSET
        else:
            top_p = self.top_p

        top_k: int | None | Unset
        if isinstance(self.top_k, Unset):
            top_k = UNSET
        else:
            top_k = self.top_k

        min_p: float | None | Unset
        if isinstance(self.min_p, Unset):
            min_p = UNSET
        else:
            min_p = self.min_p

        seed: int | None | Unset
        if isinstance(self.seed, Unset):
            seed = UNSET
        else:
            seed = self.seed

        presence_penalty: float | None | Unset
        if isinstance(self.presence_penalty, Unset):
            presence_penalty = UNSET
        else:
            presence_penalty = self.presence_penalty

        frequency_penalty: float | None | Unset
        if isinstance(self.frequency_penalty, Unset):
            frequency_penalty = UNSET
        else:
            frequency_penalty = self.frequency_penalty

        repeat_penalty: float | None | Unset
        if isinstance(self.repeat_penalty, Unset):
            repeat_penalty = UNSET
        else:
            repeat_penalty = self.repeat_penalty

        repetition_penalty: float | None | Unset
        if isinstance(self.repetition_penalty, Unset):
            repetition_penalty = UNSET
        else:
            repetition_penalty = self.repetition_penalty

        ignore_eos: bool | None | Unset
        if isinstance(self.ignore_eos, Unset):
            ignore_eos = UNSET
        else:
            ignore_eos = self.ignore_eos

        stream: bool | None | Unset
        if isinstance(self.stream, Unset):
            stream = UNSET
        else:
            stream = self.stream

        stream_options: dict[str, Any] | None | Unset
        if isinstance(self.stream_options, Unset):
            stream_options = UNSET
        elif isinstance(self.stream_options, SamplingFieldsStreamOptionsType0):
            stream_options = self.stream_options.to_dict()
        else:
            stream_options = self.stream_options

        suffix: None | str | Unset
        if isinstance(self.suffix, Unset):
            suffix = UNSET
        else:
            suffix = self.suffix

        fim_mode: str | Unset = UNSET
        if not isinstance(self.fim_mode, Unset):
            fim_mode = self.fim_mode.value

        echo: bool | None | Unset
        if isinstance(self.echo, Unset):
            echo = UNSET
        else:
            echo = self.echo

        max_tokens: int | None | Unset
        if isinstance(self.max_tokens, Unset):
            max_tokens = UNSET
        else:
            max_tokens = self.max_tokens

        logprobs: int | None | Unset
        if isinstance(self.logprobs, Unset):
            logprobs = UNSET
        else:
            logprobs = self.logprobs

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "model": model,
                "prompt": prompt,
            }
        )
        if temperature is not UNSET:
            field_dict["temperature"] = temperature
        if top_p is not UNSET:
            field_dict["top_p"] = top_p
        if top_k is not UNSET:
            field_dict["top_k"] = top_k
        if min_p is not UNSET:
            field_dict["min_p"] = min_p
        if seed is not UNSET:
            field_dict["seed"] = seed
        if presence_penalty is not UNSET:
            field_dict["presence_penalty"] = presence_penalty
        if frequency_penalty is not UNSET:
            field_dict["frequency_penalty"] = frequency_penalty
        if repeat_penalty is not UNSET:
            field_dict["repeat_penalty"] = repeat_penalty
        if repetition_penalty is not UNSET:
            field_dict["repetition_penalty"] = repetition_penalty
        if ignore_eos is not UNSET:
            field_dict["ignore_eos"] = ignore_eos
        if stream is not UNSET:
            field_dict["stream"] = stream
        if stream_options is not UNSET:
            field_dict["stream_options"] = stream_options
        if suffix is not UNSET:
            field_dict["suffix"] = suffix
        if fim_mode is not UNSET:
            field_dict["fim_mode"] = fim_mode
        if echo is not UNSET:
            field_dict["echo"] = echo
        if max_tokens is not UNSET:
            field_dict["max_tokens"] = max_tokens
        if logprobs is not UNSET:
            field_dict["logprobs"] = logprobs

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.sampling_fields_stream_options_type_0 import SamplingFieldsStreamOptionsType0  # noqa: PLC0415

        d = dict(src_dict)
        model = d.pop("model")

        prompt = d.pop("prompt")

        def _parse_temperature(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        temperature = _parse_temperature(d.pop("temperature", UNSET))

        def _parse_top_p(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        top_p = _parse_top_p(d.pop("top_p", UNSET))

        def _parse_top_k(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        top_k = _parse_top_k(d.pop("top_k", UNSET))

        def _parse_min_p(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        min_p = _parse_min_p(d.pop("min_p", UNSET))

        def _parse_seed(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        seed = _parse_seed(d.pop("seed", UNSET))

        def _parse_presence_penalty(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        presence_penalty = _parse_presence_penalty(d.pop("presence_penalty", UNSET))

        def _parse_frequency_penalty(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        frequency_penalty = _parse_frequency_penalty(d.pop("frequency_penalty", UNSET))

        def _parse_repeat_penalty(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        repeat_penalty = _parse_repeat_penalty(d.pop("repeat_penalty", UNSET))

        def _parse_repetition_penalty(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        repetition_penalty = _parse_repetition_penalty(d.pop("repetition_penalty", UNSET))

        def _parse_ignore_eos(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        ignore_eos = _parse_ignore_eos(d.pop("ignore_eos", UNSET))

        def _parse_stream(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        stream = _parse_stream(d.pop("stream", UNSET))

        def _parse_stream_options(data: object) -> None | SamplingFieldsStreamOptionsType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                stream_options_type_0 = SamplingFieldsStreamOptionsType0.from_dict(data)

                return stream_options_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SamplingFieldsStreamOptionsType0 | Unset, data)

        stream_options = _parse_stream_options(d.pop("stream_options", UNSET))

        def _parse_suffix(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        suffix = _parse_suffix(d.pop("suffix", UNSET))

        _fim_mode = d.pop("fim_mode", UNSET)
        fim_mode: CompletionRequestFimMode | Unset
        if isinstance(_fim_mode, Unset):
            fim_mode = UNSET
        else:
            fim_mode = CompletionRequestFimMode(_fim_mode)

        def _parse_echo(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        echo = _parse_echo(d.pop("echo", UNSET))

        def _parse_max_tokens(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_tokens = _parse_max_tokens(d.pop("max_tokens", UNSET))

        def _parse_logprobs(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        logprobs = _parse_logprobs(d.pop("logprobs", UNSET))

        completion_request = cls(
            model=model,
            prompt=prompt,
            temperature=temperature,
            top_p=top_p,
            top_k=top_k,
            min_p=min_p,
            seed=seed,
            presence_penalty=presence_penalty,
            frequency_penalty=frequency_penalty,
            repeat_penalty=repeat_penalty,
            repetition_penalty=repetition_penalty,
            ignore_eos=ignore_eos,
            stream=stream,
            stream_options=stream_options,
            suffix=suffix,
            fim_mode=fim_mode,
            echo=echo,
            max_tokens=max_tokens,
            logprobs=logprobs,
        )

        completion_request.additional_properties = d
        return completion_request

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
