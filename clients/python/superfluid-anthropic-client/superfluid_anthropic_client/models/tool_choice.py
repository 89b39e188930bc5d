from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.tool_choice_type import ToolChoiceType
from ..types import UNSET, Unset

T = TypeVar("T", bound="ToolChoice")


@_attrs_define
class ToolChoice:
    """auto (the default): the model may call tools or answer in words; any: it must call one; tool: it must call the one
    named; none: it answers in words. disable_parallel_tool_use limits a reply to one call.

        Attributes:
            type_ (ToolChoiceType):
            name (str | Unset): The tool to call (type: tool).
            disable_parallel_tool_use (bool | Unset):
    """

    type_: ToolChoiceType
    name: str | Unset = UNSET
    disable_parallel_tool_use: bool | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_.value

        name = self.name

        disable_parallel_tool_use = self.disable_parallel_tool_use

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "type": type_,
            }
        )
        if name is not UNSET:
            field_dict["name"] = name
        if disable_parallel_tool_use is not UNSET:
            field_dict["disable_parallel_tool_use"] = disable_parallel_tool_use

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        type_ = ToolChoiceType(d.pop("type"))

        name = d.pop("name", UNSET)

        disable_parallel_tool_use = d.pop("disable_parallel_tool_use", UNSET)

        tool_choice = cls(
            type_=type_,
            name=name,
            disable_parallel_tool_use=disable_parallel_tool_use,
        )

        tool_choice.additional_properties = d
        return tool_choice

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
