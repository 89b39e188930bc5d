from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

from ..models.message_start_event_type import MessageStartEventType

if TYPE_CHECKING:
    from ..models.message import Message


T = TypeVar("T", bound="MessageStartEvent")


@_attrs_define
class MessageStartEvent:
    """The message with empty content, stop_reason null and output_tokens 0.

    Attributes:
        type_ (MessageStartEventType):
        message (Message):
    """

    type_: MessageStartEventType
    message: Message

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_.value

        message = self.message.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "type": type_,
                "message": message,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.message import Message  # noqa: PLC0415

        d = dict(src_dict)
        type_ = MessageStartEventType(d.pop("type"))

        message = Message.from_dict(d.pop("message"))

        message_start_event = cls(
            type_=type_,
            message=message,
        )

        return message_start_event
