from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..models.ping_event_type import PingEventType

T = TypeVar("T", bound="PingEvent")


@_attrs_define
class PingEvent:
    """
    Attributes:
        type_ (PingEventType):
    """

    type_: PingEventType

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
        type_ = PingEventType(d.pop("type"))

        ping_event = cls(
            type_=type_,
        )

        return ping_event
