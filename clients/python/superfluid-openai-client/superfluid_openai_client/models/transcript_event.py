from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.transcript_event_type import TranscriptEventType
from ..types import UNSET, Unset

T = TypeVar("T", bound="TranscriptEvent")


@_attrs_define
class TranscriptEvent:
    """One SSE event's JSON. `transcript.text.delta` carries the text of one decoded segment in `delta`;
    `transcript.text.done` the whole text in `text`. An error after the stream began is one error frame.

        Attributes:
            type_ (TranscriptEventType):
            delta (str | Unset):
            text (str | Unset):
    """

    type_: TranscriptEventType
    delta: str | Unset = UNSET
    text: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_.value

        delta = self.delta

        text = self.text

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "type": type_,
            }
        )
        if delta is not UNSET:
            field_dict["delta"] = delta
        if text is not UNSET:
            field_dict["text"] = text

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        type_ = TranscriptEventType(d.pop("type"))

        delta = d.pop("delta", UNSET)

        text = d.pop("text", UNSET)

        transcript_event = cls(
            type_=type_,
            delta=delta,
            text=text,
        )

        transcript_event.additional_properties = d
        return transcript_event

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
