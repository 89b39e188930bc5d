from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.tool_type import ToolType
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.tool_function import ToolFunction


T = TypeVar("T", bound="Tool")


@_attrs_define
class Tool:
    """
    Attributes:
        function (ToolFunction):
        type_ (ToolType | Unset):
    """

    function: ToolFunction
    type_: ToolType | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        function = self.function.to_dict()

        type_: str | Unset = UNSET
        if not isinstance(self.type_, Unset):
            type_ = self.type_.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "function": function,
            }
        )
        if type_ is not UNSET:
            field_dict["type"] = type_

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.tool_function import ToolFunction  # noqa: PLC0415

        d = dict(src_dict)
        function = ToolFunction.from_dict(d.pop("function"))

        _type_ = d.pop("type", UNSET)
        type_: ToolType | Unset
        if isinstance(_type_, Unset):
            type_ = UNSET
        else:
            type_ = ToolType(_type_)

        tool = cls(
            function=function,
            type_=type_,
        )

        tool.additional_properties = d
        return tool

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
