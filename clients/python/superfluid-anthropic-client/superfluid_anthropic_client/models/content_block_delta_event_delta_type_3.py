from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..models.content_block_delta_event_delta_type_3_type import ContentBlockDeltaEventDeltaType3Type

T = TypeVar("T", bound="ContentBlockDeltaEventDeltaType3")


@_attrs_define
class ContentBlockDeltaEventDeltaType3:
    """
    Attributes:
        type_ (ContentBlockDeltaEventDeltaType3Type):
        partial_json (str):
    """

    type_: ContentBlockDeltaEventDeltaType3Type
    partial_json: str

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_.value

        partial_json = self.partial_json

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "type": type_,
                "partial_json": partial_json,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        type_ = ContentBlockDeltaEventDeltaType3Type(d.pop("type"))

        partial_json = d.pop("partial_json")

        content_block_delta_event_delta_type_3 = cls(
            type_=type_,
            partial_json=partial_json,
        )

        return content_block_delta_event_delta_type_3
