from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..models.thinking_block_type import ThinkingBlockType

T = TypeVar("T", bound="ThinkingBlock")


@_attrs_define
class ThinkingBlock:
    """
    Attributes:
        type_ (ThinkingBlockType):
        thinking (str):
        signature (str): A digest of the block's text (base64 SHA-256), not a cryptographic signature; empty in
            content_block_start.
    """

    type_: ThinkingBlockType
    thinking: str
    signature: str

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_.value

        thinking = self.thinking

        signature = self.signature

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "type": type_,
                "thinking": thinking,
                "signature": signature,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        type_ = ThinkingBlockType(d.pop("type"))

        thinking = d.pop("thinking")

        signature = d.pop("signature")

        thinking_block = cls(
            type_=type_,
            thinking=thinking,
            signature=signature,
        )

        return thinking_block
