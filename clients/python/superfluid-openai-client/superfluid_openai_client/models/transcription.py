from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.transcription_task import TranscriptionTask
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.transcription_segments_item import TranscriptionSegmentsItem
    from ..models.transcription_usage import TranscriptionUsage
    from ..models.transcription_words_item import TranscriptionWordsItem


T = TypeVar("T", bound="Transcription")


@_attrs_define
class Transcription:
    """
    Attributes:
        text (str):
        task (TranscriptionTask | Unset):
        language (str | Unset):
        duration (float | Unset):
        segments (list[TranscriptionSegmentsItem] | Unset):
        words (list[TranscriptionWordsItem] | Unset):
        usage (TranscriptionUsage | Unset):
    """

    text: str
    task: TranscriptionTask | Unset = UNSET
    language: str | Unset = UNSET
    duration: float | Unset = UNSET
    segments: list[TranscriptionSegmentsItem] | Unset = UNSET
    words: list[TranscriptionWordsItem] | Unset = UNSET
    usage: TranscriptionUsage | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        text = self.text

        task: str | Unset = UNSET
        if not isinstance(self.task, Unset):
            task = self.task.value

        language = self.language

        duration = self.duration

        segments: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.segments, Unset):
            segments = []
            for segments_item_data in self.segments:
                segments_item = segments_item_data.to_dict()
                segments.append(segments_item)

        words: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.words, Unset):
            words = []
            for words_item_data in self.words:
                words_item = words_item_data.to_dict()
                words.append(words_item)

        usage: dict[str, Any] | Unset = UNSET
        if not isinstance(self.usage, Unset):
            usage = self.usage.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "text": text,
            }
        )
        if task is not UNSET:
            field_dict["task"] = task
        if language is not UNSET:
            field_dict["language"] = language
        if duration is not UNSET:
            field_dict["duration"] = duration
        if segments is not UNSET:
            field_dict["segments"] = segments
        if words is not UNSET:
            field_dict["words"] = words
        if usage is not UNSET:
            field_dict["usage"] = usage

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.transcription_segments_item import TranscriptionSegmentsItem  # noqa: PLC0415
        from ..models.transcription_usage import TranscriptionUsage  # noqa: PLC0415
        from ..models.transcription_words_item import TranscriptionWordsItem  # noqa: PLC0415

        d = dict(src_dict)
        text = d.pop("text")

        _task = d.pop("task", UNSET)
        task: TranscriptionTask | Unset
        if isinstance(_task, Unset):
            task = UNSET
        else:
            task = TranscriptionTask(_task)

        language = d.pop("language", UNSET)

        duration = d.pop("duration", UNSET)

        _segments = d.pop("segments", UNSET)
        segments: list[TranscriptionSegmentsItem] | Unset = UNSET
        if _segments is not UNSET:
            segments = []
            for segments_item_data in _segments:
                segments_item = TranscriptionSegmentsItem.from_dict(segments_item_data)

                segments.append(segments_item)

        _words = d.pop("words", UNSET)
        words: list[TranscriptionWordsItem] | Unset = UNSET
        if _words is not UNSET:
            words = []
            for words_item_data in _words:
                words_item = TranscriptionWordsItem.from_dict(words_item_data)

                words.append(words_item)

        _usage = d.pop("usage", UNSET)
        usage: TranscriptionUsage | Unset
        if isinstance(_usage, Unset):
            usage = UNSET
        else:
            usage = TranscriptionUsage.from_dict(_usage)

        transcription = cls(
            text=text,
            task=task,
            language=language,
            duration=duration,
            segments=segments,
            words=words,
            usage=usage,
        )

        transcription.additional_properties = d
        return transcription

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
