from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.reply_message_tool_calls_item_function_arguments import ReplyMessageToolCallsItemFunctionArguments


T = TypeVar("T", bound="ReplyMessageToolCallsItemFunction")


@_attrs_define
class ReplyMessageToolCallsItemFunction:
    """
    Attributes:
        index (int):
        name (str):
        arguments (ReplyMessageToolCallsItemFunctionArguments):
    """

    index: int
    name: str
    arguments: ReplyMessageToolCallsItemFunctionArguments
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        index = self.index

        name = self.name

        arguments = self.arguments.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "index": index,
                "name": name,
                "arguments": arguments,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.reply_message_tool_calls_item_function_arguments import ReplyMessageToolCallsItemFunctionArguments  # noqa: PLC0415

        d = dict(src_dict)
        index = d.pop("index")

        name = d.pop("name")

        arguments = ReplyMessageToolCallsItemFunctionArguments.from_dict(d.pop("arguments"))

        reply_message_tool_calls_item_function = cls(
            index=index,
            name=name,
            arguments=arguments,
        )

        reply_message_tool_calls_item_function.additional_properties = d
        return reply_message_tool_calls_item_function

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
