from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..models.text_block_type import TextBlockType

T = TypeVar("T", bound="TextBlock")


@_attrs_define
class TextBlock:
    """
    Attributes:
        type_ (TextBlockType):
        text (str):
    """

    type_: TextBlockType
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
        type_ = TextBlockType(d.pop("type"))

        text = d.pop("text")

        text_block = cls(
            type_=type_,
            text=text,
        )

        return text_block
