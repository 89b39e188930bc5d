from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..models.content_block_delta_event_delta_type_2_type import ContentBlockDeltaEventDeltaType2Type

T = TypeVar("T", bound="ContentBlockDeltaEventDeltaType2")


@_attrs_define
class ContentBlockDeltaEventDeltaType2:
    """Sent once, just before a thinking block's content_block_stop.

    Attributes:
        type_ (ContentBlockDeltaEventDeltaType2Type):
        signature (str):
    """

    type_: ContentBlockDeltaEventDeltaType2Type
    signature: str

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_.value

        signature = self.signature

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "type": type_,
                "signature": signature,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        type_ = ContentBlockDeltaEventDeltaType2Type(d.pop("type"))

        signature = d.pop("signature")

        content_block_delta_event_delta_type_2 = cls(
            type_=type_,
            signature=signature,
        )

        return content_block_delta_event_delta_type_2
