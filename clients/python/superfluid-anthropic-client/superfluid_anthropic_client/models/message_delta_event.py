from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

from ..models.message_delta_event_type import MessageDeltaEventType

if TYPE_CHECKING:
    from ..models.message_delta_event_delta import MessageDeltaEventDelta
    from ..models.usage import Usage


T = TypeVar("T", bound="MessageDeltaEvent")


@_attrs_define
class MessageDeltaEvent:
    """
    Attributes:
        type_ (MessageDeltaEventType):
        delta (MessageDeltaEventDelta):
        usage (Usage):
    """

    type_: MessageDeltaEventType
    delta: MessageDeltaEventDelta
    usage: Usage

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_.value

        delta = self.delta.to_dict()

        usage = self.usage.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "type": type_,
                "delta": delta,
                "usage": usage,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.message_delta_event_delta import MessageDeltaEventDelta  # noqa: PLC0415
        from ..models.usage import Usage  # noqa: PLC0415

        d = dict(src_dict)
        type_ = MessageDeltaEventType(d.pop("type"))

        delta = MessageDeltaEventDelta.from_dict(d.pop("delta"))

        usage = Usage.from_dict(d.pop("usage"))

        message_delta_event = cls(
            type_=type_,
            delta=delta,
            usage=usage,
        )

        return message_delta_event
