from __future__ import annotations

from collections.abc import Mapping
from io import BytesIO
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from .. import types
from ..models.transcription_request_response_format import TranscriptionRequestResponseFormat
from ..models.transcription_request_timestamp_granularities_item import TranscriptionRequestTimestampGranularitiesItem
from ..types import UNSET, File, Unset

T = TypeVar("T", bound="TranscriptionRequest")


@_attrs_define
class TranscriptionRequest:
    """
    Attributes:
        file (File): Audio in any container and codec ffmpeg reads.
        model (str):
        language (str | Unset): ISO-639-1 code of the spoken language; detected when absent.
        prompt (str | Unset):
        response_format (TranscriptionRequestResponseFormat | Unset):  Default: TranscriptionRequestResponseFormat.JSON.
        temperature (float | Unset):  Default: 0.0.
        timestamp_granularities (list[TranscriptionRequestTimestampGranularitiesItem] | Unset): word adds words (with
            verbose_json). The form field the SDKs and curl examples send; a single `timestamp_granularities` field is read
            too. Only the bracketed name is declared, because a generated client cannot carry two fields whose names differ
            only by the brackets.
        stream (bool | Unset):  Default: False.
    """

    file: File
    model: str
    language: str | Unset = UNSET
    prompt: str | Unset = UNSET
    response_format: TranscriptionRequestResponseFormat | Unset = TranscriptionRequestResponseFormat.JSON
    temperature: float | Unset = 0.0
    timestamp_granularities: list[TranscriptionRequestTimestampGranularitiesItem] | Unset = UNSET
    stream: bool | Unset = False
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        file = self.file.to_tuple()

        model = self.model

        language = self.language

        prompt = self.prompt

        response_format: str | Unset = UNSET
        if not isinstance(self.response_format, Unset):
            response_format = self.response_format.value

        temperature = self.temperature

        timestamp_granularities: list[str] | Unset = UNSET
        if not isinstance(self.timestamp_granularities, Unset):
            timestamp_granularities = []
            for timestamp_granularities_item_data in self.timestamp_granularities:
                timestamp_granularities_item = timestamp_granularities_item_data.value
                timestamp_granularities.append(timestamp_granularities_item)

        stream = self.stream

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "file": file,
                "model": model,
            }
        )
        if language is not UNSET:
            field_dict["language"] = language
        if prompt is not UNSET:
            field_dict["prompt"] = prompt
        if response_format is not UNSET:
            field_dict["response_format"] = response_format
        if temperature is not UNSET:
            field_dict["temperature"] = temperature
        if timestamp_granularities is not UNSET:
            field_dict["timestamp_granularities[]"] = timestamp_granularities
        if stream is not UNSET:
            field_dict["stream"] = stream

        return field_dict

    def to_multipart(self) -> types.RequestFiles:
        files: types.RequestFiles = []

        files.append(("file", self.file.to_tuple()))

        files.append(("model", (None, str(self.model).encode(), "text/plain")))

        if not isinstance(self.language, Unset):
            files.append(("language", (None, str(self.language).encode(), "text/plain")))

        if not isinstance(self.prompt, Unset):
            files.append(("prompt", (None, str(self.prompt).encode(), "text/plain")))

        if not isinstance(self.response_format, Unset):
            files.append(("response_format", (None, str(self.response_format.value).encode(), "text/plain")))

        if not isinstance(self.temperature, Unset):
            files.append(("temperature", (None, str(self.temperature).encode(), "text/plain")))

        if not isinstance(self.timestamp_granularities, Unset):
            for timestamp_granularities_item_element in self.timestamp_granularities:
                files.append(
                    (
                        "timestamp_granularities[]",
                        (None, str(timestamp_granularities_item_element.value).encode(), "text/plain"),
                    )
                )

        if not isinstance(self.stream, Unset):
            files.append(("stream", (None, str(self.stream).encode(), "text/plain")))

        for prop_name, prop in self.additional_properties.items():
            files.append((prop_name, (None, str(prop).encode(), "text/plain")))

        return files

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        file = File(payload=BytesIO(d.pop("file")))

        model = d.pop("model")

        language = d.pop("language", UNSET)

        prompt = d.pop("prompt", UNSET)

        _response_format = d.pop("response_format", UNSET)
        response_format: TranscriptionRequestResponseFormat | Unset
        if isinstance(_response_format, Unset):
            response_format = UNSET
        else:
            response_format = TranscriptionRequestResponseFormat(_response_format)

        temperature = d.pop("temperature", UNSET)

        _timestamp_granularities = d.pop("timestamp_granularities[]", UNSET)
        timestamp_granularities: list[TranscriptionRequestTimestampGranularitiesItem] | Unset = UNSET
        if _timestamp_granularities is not UNSET:
            timestamp_granularities = []
            for timestamp_granularities_item_data in _timestamp_granularities:
                timestamp_granularities_item = TranscriptionRequestTimestampGranularitiesItem(
                    timestamp_granularities_item_data
                )

                timestamp_granularities.append(timestamp_granularities_item)

        stream = d.pop("stream", UNSET)

        transcription_request = cls(
            file=file,
            model=model,
            language=language,
            prompt=prompt,
            response_format=response_format,
            temperature=temperature,
            timestamp_granularities=timestamp_granularities,
            stream=stream,
        )

        transcription_request.additional_properties = d
        return transcription_request

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
