from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.redacted_thinking_block_param_type import RedactedThinkingBlockParamType
from ..types import UNSET, Unset

T = TypeVar("T", bound="RedactedThinkingBlockParam")


@_attrs_define
class RedactedThinkingBlockParam:
    """Accepted and left out of the prompt (it carries no text this server can read).

    Attributes:
        type_ (RedactedThinkingBlockParamType):
        data (str | Unset):
    """

    type_: RedactedThinkingBlockParamType
    data: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_.value

        data = self.data

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "type": type_,
            }
        )
        if data is not UNSET:
            field_dict["data"] = data

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        type_ = RedactedThinkingBlockParamType(d.pop("type"))

        data = d.pop("data", UNSET)

        redacted_thinking_block_param = cls(
            type_=type_,
            data=data,
        )

        redacted_thinking_block_param.additional_properties = d
        return redacted_thinking_block_param

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
