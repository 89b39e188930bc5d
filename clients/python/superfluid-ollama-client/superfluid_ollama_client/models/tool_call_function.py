from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.tool_call_function_arguments_type_0 import ToolCallFunctionArgumentsType0


T = TypeVar("T", bound="ToolCallFunction")


@_attrs_define
class ToolCallFunction:
    """
    Attributes:
        name (str):
        index (int | None | Unset):
        arguments (None | ToolCallFunctionArgumentsType0 | Unset):
    """

    name: str
    index: int | None | Unset = UNSET
    arguments: None | ToolCallFunctionArgumentsType0 | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.tool_call_function_arguments_type_0 import ToolCallFunctionArgumentsType0  # noqa: PLC0415

        name = self.name

        index: int | None | Unset
        if isinstance(self.index, Unset):
            index = UNSET
        else:
            index = self.index

        arguments: dict[str, Any] | None | Unset
        if isinstance(self.arguments, Unset):
            arguments = UNSET
        elif isinstance(self.arguments, ToolCallFunctionArgumentsType0):
            arguments = self.arguments.to_dict()
        else:
            arguments = self.arguments

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "name": name,
            }
        )
        if index is not UNSET:
            field_dict["index"] = index
        if arguments is not UNSET:
            field_dict["arguments"] = arguments

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.tool_call_function_arguments_type_0 import ToolCallFunctionArgumentsType0  # noqa: PLC0415

        d = dict(src_dict)
        name = d.pop("name")

        def _parse_index(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        index = _parse_index(d.pop("index", UNSET))

        def _parse_arguments(data: object) -> None | ToolCallFunctionArgumentsType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                arguments_type_0 = ToolCallFunctionArgumentsType0.from_dict(data)

                return arguments_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ToolCallFunctionArgumentsType0 | Unset, data)

        arguments = _parse_arguments(d.pop("arguments", UNSET))

        tool_call_function = cls(
            name=name,
            index=index,
            arguments=arguments,
        )

        tool_call_function.additional_properties = d
        return tool_call_function

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
