from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..models.content_block_delta_event_delta_type_0_type import ContentBlockDeltaEventDeltaType0Type

T = TypeVar("T", bound="ContentBlockDeltaEventDeltaType0")


@_attrs_define
class ContentBlockDeltaEventDeltaType0:
    """
    Attributes:
        type_ (ContentBlockDeltaEventDeltaType0Type):
        text (str):
    """

    type_: ContentBlockDeltaEventDeltaType0Type
    text: str

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_.value

        text = self.text

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "type": type_,
                "text": text,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        type_ = ContentBlockDeltaEventDeltaType0Type(d.pop("type"))

        text = d.pop("text")

        content_block_delta_event_delta_type_0 = cls(
            type_=type_,
            text=text,
        )

        return content_block_delta_event_delta_type_0
