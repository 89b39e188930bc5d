from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="CapabilitiesModalities")


@_attrs_define
class CapabilitiesModalities:
    """What the model takes as input, and the Whisper tasks it runs.

    Attributes:
        text (bool | Unset):
        image (bool | Unset):
        audio (bool | Unset):
        whisper_transcription (bool | Unset):
        whisper_translation (bool | Unset):
    """

    text: bool | Unset = UNSET
    image: bool | Unset = UNSET
    audio: bool | Unset = UNSET
    whisper_transcription: bool | Unset = UNSET
    whisper_translation: bool | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        text = self.text

        image = self.image

        audio = self.audio

        whisper_transcription = self.whisper_transcription

        whisper_translation = self.whisper_translation

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if text is not UNSET:
            field_dict["text"] = text
        if image is not UNSET:
            field_dict["image"] = image
        if audio is not UNSET:
            field_dict["audio"] = audio
        if whisper_transcription is not UNSET:
            field_dict["whisper_transcription"] = whisper_transcription
        if whisper_translation is not UNSET:
            field_dict["whisper_translation"] = whisper_translation

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        text = d.pop("text", UNSET)

        image = d.pop("image", UNSET)

        audio = d.pop("audio", UNSET)

        whisper_transcription = d.pop("whisper_transcription", UNSET)

        whisper_translation = d.pop("whisper_translation", UNSET)

        capabilities_modalities = cls(
            text=text,
            image=image,
            audio=audio,
            whisper_transcription=whisper_transcription,
            whisper_translation=whisper_translation,
        )

        capabilities_modalities.additional_properties = d
        return capabilities_modalities

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
