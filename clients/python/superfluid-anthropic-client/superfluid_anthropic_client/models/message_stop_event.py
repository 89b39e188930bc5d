from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..models.message_stop_event_type import MessageStopEventType

T = TypeVar("T", bound="MessageStopEvent")


@_attrs_define
class MessageStopEvent:
    """
    Attributes:
        type_ (MessageStopEventType):
    """

    type_: MessageStopEventType

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_.value

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "type": type_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        type_ = MessageStopEventType(d.pop("type"))

        message_stop_event = cls(
            type_=type_,
        )

        return message_stop_event
