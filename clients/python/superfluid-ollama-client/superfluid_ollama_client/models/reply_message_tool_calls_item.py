from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.reply_message_tool_calls_item_function import ReplyMessageToolCallsItemFunction


T = TypeVar("T", bound="ReplyMessageToolCallsItem")


@_attrs_define
class ReplyMessageToolCallsItem:
    """
    Attributes:
        function (ReplyMessageToolCallsItemFunction):
        id (str | Unset):
    """

    function: ReplyMessageToolCallsItemFunction
    id: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        function = self.function.to_dict()

        id = self.id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "function": function,
            }
        )
        if id is not UNSET:
            field_dict["id"] = id

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.reply_message_tool_calls_item_function import ReplyMessageToolCallsItemFunction  # noqa: PLC0415

        d = dict(src_dict)
        function = ReplyMessageToolCallsItemFunction.from_dict(d.pop("function"))

        id = d.pop("id", UNSET)

        reply_message_tool_calls_item = cls(
            function=function,
            id=id,
        )

        reply_message_tool_calls_item.additional_properties = d
        return reply_message_tool_calls_item

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
