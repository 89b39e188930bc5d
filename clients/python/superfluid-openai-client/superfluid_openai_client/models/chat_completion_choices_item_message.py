from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.chat_completion_choices_item_message_role import ChatCompletionChoicesItemMessageRole
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.tool_call import ToolCall


T = TypeVar("T", bound="ChatCompletionChoicesItemMessage")


@_attrs_define
class ChatCompletionChoicesItemMessage:
    """
    Attributes:
        role (ChatCompletionChoicesItemMessageRole):
        content (None | str):
        reasoning_content (str | Unset):
        refusal (None | str | Unset):
        tool_calls (list[ToolCall] | Unset):
    """

    role: ChatCompletionChoicesItemMessageRole
    content: None | str
    reasoning_content: str | Unset = UNSET
    refusal: None | str | Unset = UNSET
    tool_calls: list[ToolCall] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        role = self.role.value

        content: None | str
        content = self.content

        reasoning_content = self.reasoning_content

        refusal: None | str | Unset
        if isinstance(self.refusal, Unset):
            refusal = UNSET
        else:
            refusal = self.refusal

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
        if reasoning_content is not UNSET:
            field_dict["reasoning_content"] = reasoning_content
        if refusal is not UNSET:
            field_dict["refusal"] = refusal
        if tool_calls is not UNSET:
            field_dict["tool_calls"] = tool_calls

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.tool_call import ToolCall  # noqa: PLC0415

        d = dict(src_dict)
        role = ChatCompletionChoicesItemMessageRole(d.pop("role"))

        def _parse_content(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        content = _parse_content(d.pop("content"))

        reasoning_content = d.pop("reasoning_content", UNSET)

        def _parse_refusal(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        refusal = _parse_refusal(d.pop("refusal", UNSET))

        _tool_calls = d.pop("tool_calls", UNSET)
        tool_calls: list[ToolCall] | Unset = UNSET
        if _tool_calls is not UNSET:
            tool_calls = []
            for tool_calls_item_data in _tool_calls:
                tool_calls_item = ToolCall.from_dict(tool_calls_item_data)

                tool_calls.append(tool_calls_item)

        chat_completion_choices_item_message = cls(
            role=role,
            content=content,
            reasoning_content=reasoning_content,
            refusal=refusal,
            tool_calls=tool_calls,
        )

        chat_completion_choices_item_message.additional_properties = d
        return chat_completion_choices_item_message

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
