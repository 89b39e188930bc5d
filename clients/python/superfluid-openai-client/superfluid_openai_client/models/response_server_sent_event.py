from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.response_server_sent_event_event import ResponseServerSentEventEvent
from ..types import UNSET, Unset

T = TypeVar("T", bound="ResponseServerSentEvent")


@_attrs_define
class ResponseServerSentEvent:
    """One SSE event of a streamed response: `event` names its type and `data` holds one ResponseStreamEvent (the same
    type, with a sequence_number counting from 0). Comment lines (`: keep-alive`) carry no event.

        Attributes:
            event (ResponseServerSentEventEvent):
            data (str): JSON: a ResponseStreamEvent.
            id (str | Unset):
    """

    event: ResponseServerSentEventEvent
    data: str
    id: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        event = self.event.value

        data = self.data

        id = self.id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "event": event,
                "data": data,
            }
        )
        if id is not UNSET:
            field_dict["id"] = id

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        event = ResponseServerSentEventEvent(d.pop("event"))

        data = d.pop("data")

        id = d.pop("id", UNSET)

        response_server_sent_event = cls(
            event=event,
            data=data,
            id=id,
        )

        response_server_sent_event.additional_properties = d
        return response_server_sent_event

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
