from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="TranscriptionSegmentsItem")


@_attrs_define
class TranscriptionSegmentsItem:
    """
    Attributes:
        id (int):
        start (float):
        end (float):
        text (str):
        seek (int | Unset):
        tokens (list[int] | Unset):
        temperature (float | Unset):
        avg_logprob (float | Unset):
        compression_ratio (float | Unset):
        no_speech_prob (float | Unset):
    """

    id: int
    start: float
    end: float
    text: str
    seek: int | Unset = UNSET
    tokens: list[int] | Unset = UNSET
    temperature: float | Unset = UNSET
    avg_logprob: float | Unset = UNSET
    compression_ratio: float | Unset = UNSET
    no_speech_prob: float | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        start = self.start

        end = self.end

        text = self.text

        seek = self.seek

        tokens: list[int] | Unset = UNSET
        if not isinstance(self.tokens, Unset):
            tokens = self.tokens

        temperature = self.temperature

        avg_logprob = self.avg_logprob

        compression_ratio = self.compression_ratio

        no_speech_prob = self.no_speech_prob

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "start": start,
                "end": end,
                "text": text,
            }
        )
        if seek is not UNSET:
            field_dict["seek"] = seek
        if tokens is not UNSET:
            field_dict["tokens"] = tokens
        if temperature is not UNSET:
            field_dict["temperature"] = temperature
        if avg_logprob is not UNSET:
            field_dict["avg_logprob"] = avg_logprob
        if compression_ratio is not UNSET:
            field_dict["compression_ratio"] = compression_ratio
        if no_speech_prob is not UNSET:
            field_dict["no_speech_prob"] = no_speech_prob

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        start = d.pop("start")

        end = d.pop("end")

        text = d.pop("text")

        seek = d.pop("seek", UNSET)

        tokens = cast(list[int], d.pop("tokens", UNSET))

        temperature = d.pop("temperature", UNSET)

        avg_logprob = d.pop("avg_logprob", UNSET)

        compression_ratio = d.pop("compression_ratio", UNSET)

        no_speech_prob = d.pop("no_speech_prob", UNSET)

        transcription_segments_item = cls(
            id=id,
            start=start,
            end=end,
            text=text,
            seek=seek,
            tokens=tokens,
            temperature=temperature,
            avg_logprob=avg_logprob,
            compression_ratio=compression_ratio,
            no_speech_prob=no_speech_prob,
        )

        transcription_segments_item.additional_properties = d
        return transcription_segments_item

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
