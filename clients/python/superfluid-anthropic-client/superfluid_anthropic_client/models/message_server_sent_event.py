from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.message_server_sent_event_event import MessageServerSentEventEvent

T = TypeVar("T", bound="MessageServerSentEvent")


@_attrs_define
class MessageServerSentEvent:
    """One SSE event: an `event:` line naming the type and one `data:` line holding a MessageStreamEvent of that type. No
    `[DONE]` marker: the stream ends after message_stop (or error).

        Attributes:
            event (MessageServerSentEventEvent):
            data (str): One MessageStreamEvent as JSON.
    """

    event: MessageServerSentEventEvent
    data: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        event = self.event.value

        data = self.data

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "event": event,
                "data": data,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        event = MessageServerSentEventEvent(d.pop("event"))

        data = d.pop("data")

        message_server_sent_event = cls(
            event=event,
            data=data,
        )

        message_server_sent_event.additional_properties = d
        return message_server_sent_event

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
