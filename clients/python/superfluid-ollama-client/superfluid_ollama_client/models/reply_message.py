from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.reply_message_role import ReplyMessageRole
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.reply_message_tool_calls_item import ReplyMessageToolCallsItem


T = TypeVar("T", bound="ReplyMessage")


@_attrs_define
class ReplyMessage:
    """
    Attributes:
        role (ReplyMessageRole):
        content (str):
        thinking (str | Unset):
        tool_calls (list[ReplyMessageToolCallsItem] | Unset):
    """

    role: ReplyMessageRole
    content: str
    thinking: str | Unset = UNSET
    tool_calls: list[ReplyMessageToolCallsItem] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        role = self.role.value

        content = self.content

        thinking = self.thinking

        tool_calls: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.tool_calls, Unset):
            tool_calls = []
            for tool_calls_item_data in self.tool_calls:
                tool_calls_item = tool_calls_item_data.to_dict()
                tool_calls.append(tool_calls_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "role": role,
                "content": content,
            }
        )
        if thinking is not UNSET:
            field_dict["thinking"] = thinking
        if tool_calls is not UNSET:
            field_dict["tool_calls"] = tool_calls

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.reply_message_tool_calls_item import ReplyMessageToolCallsItem  # noqa: PLC0415

        d = dict(src_dict)
        role = ReplyMessageRole(d.pop("role"))

        content = d.pop("content")

        thinking = d.pop("thinking", UNSET)

        _tool_calls = d.pop("tool_calls", UNSET)
        tool_calls: list[ReplyMessageToolCallsItem] | Unset = UNSET
        if _tool_calls is not UNSET:
            tool_calls = []
            for tool_calls_item_data in _tool_calls:
                tool_calls_item = ReplyMessageToolCallsItem.from_dict(tool_calls_item_data)

                tool_calls.append(tool_calls_item)

        reply_message = cls(
            role=role,
            content=content,
            thinking=thinking,
            tool_calls=tool_calls,
        )

        reply_message.additional_properties = d
        return reply_message

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
