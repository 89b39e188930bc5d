from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.chat_delta_tool_calls_item_type import ChatDeltaToolCallsItemType
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.chat_delta_tool_calls_item_function import ChatDeltaToolCallsItemFunction


T = TypeVar("T", bound="ChatDeltaToolCallsItem")


@_attrs_define
class ChatDeltaToolCallsItem:
    """The opening entry has id, type and function.name; later ones add argument text.

    Attributes:
        index (int):
        id (str | Unset):
        type_ (ChatDeltaToolCallsItemType | Unset):
        function (ChatDeltaToolCallsItemFunction | Unset):
    """

    index: int
    id: str | Unset = UNSET
    type_: ChatDeltaToolCallsItemType | Unset = UNSET
    function: ChatDeltaToolCallsItemFunction | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        index = self.index

        id = self.id

        type_: str | Unset = UNSET
        if not isinstance(self.type_, Unset):
            type_ = self.type_.value

        function: dict[str, Any] | Unset = UNSET
        if not isinstance(self.function, Unset):
            function = self.function.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "index": index,
            }
        )
        if id is not UNSET:
            field_dict["id"] = id
        if type_ is not UNSET:
            field_dict["type"] = type_
        if function is not UNSET:
            field_dict["function"] = function

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.chat_delta_tool_calls_item_function import ChatDeltaToolCallsItemFunction  # noqa: PLC0415

        d = dict(src_dict)
        index = d.pop("index")

        id = d.pop("id", UNSET)

        _type_ = d.pop("type", UNSET)
        type_: ChatDeltaToolCallsItemType | Unset
        if isinstance(_type_, Unset):
            type_ = UNSET
        else:
            type_ = ChatDeltaToolCallsItemType(_type_)

        _function = d.pop("function", UNSET)
        function: ChatDeltaToolCallsItemFunction | Unset
        if isinstance(_function, Unset):
            function = UNSET
        else:
            function = ChatDeltaToolCallsItemFunction.from_dict(_function)

        chat_delta_tool_calls_item = cls(
            index=index,
            id=id,
            type_=type_,
            function=function,
        )

        chat_delta_tool_calls_item.additional_properties = d
        return chat_delta_tool_calls_item

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
