from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..models.content_block_stop_event_type import ContentBlockStopEventType

T = TypeVar("T", bound="ContentBlockStopEvent")


@_attrs_define
class ContentBlockStopEvent:
    """
    Attributes:
        type_ (ContentBlockStopEventType):
        index (int):
    """

    type_: ContentBlockStopEventType
    index: int

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_.value

        index = self.index

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "type": type_,
                "index": index,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        type_ = ContentBlockStopEventType(d.pop("type"))

        index = d.pop("index")

        content_block_stop_event = cls(
            type_=type_,
            index=index,
        )

        return content_block_stop_event
