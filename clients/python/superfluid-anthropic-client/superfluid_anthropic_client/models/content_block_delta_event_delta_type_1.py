from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..models.content_block_delta_event_delta_type_1_type import ContentBlockDeltaEventDeltaType1Type

T = TypeVar("T", bound="ContentBlockDeltaEventDeltaType1")


@_attrs_define
class ContentBlockDeltaEventDeltaType1:
    """
    Attributes:
        type_ (ContentBlockDeltaEventDeltaType1Type):
        thinking (str):
    """

    type_: ContentBlockDeltaEventDeltaType1Type
    thinking: str

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_.value

        thinking = self.thinking

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "type": type_,
                "thinking": thinking,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        type_ = ContentBlockDeltaEventDeltaType1Type(d.pop("type"))

        thinking = d.pop("thinking")

        content_block_delta_event_delta_type_1 = cls(
            type_=type_,
            thinking=thinking,
        )

        return content_block_delta_event_delta_type_1
