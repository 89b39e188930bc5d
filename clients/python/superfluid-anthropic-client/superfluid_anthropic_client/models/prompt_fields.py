from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.message_param import MessageParam
    from ..models.text_block_param import TextBlockParam
    from ..models.thinking_config import ThinkingConfig
    from ..models.tool import Tool
    from ..models.tool_choice import ToolChoice


T = TypeVar("T", bound="PromptFields")


@_attrs_define
class PromptFields:
    """
    Attributes:
        model (str | Unset):
        system (list[TextBlockParam] | str | Unset): A string, or text blocks joined with newlines.
        messages (list[MessageParam] | Unset):
        tools (list[Tool] | Unset):
        tool_choice (ToolChoice | Unset): auto (the default): the model may call tools or answer in words; any: it must
            call one; tool: it must call the one named; none: it answers in words. disable_parallel_tool_use limits a reply
            to one call.
        thinking (ThinkingConfig | Unset): enabled or adaptive: the chat template's enable_thinking is switched on
            (ignored by a template without the switch, which answers as it always does); disabled: switched off. Absent: the
            template's own default. budget_tokens is accepted and not enforced (max_tokens bounds thinking and text
            together).
    """

    model: str | Unset = UNSET
    system: list[TextBlockParam] | str | Unset = UNSET
    messages: list[MessageParam] | Unset = UNSET
    tools: list[Tool] | Unset = UNSET
    tool_choice: ToolChoice | Unset = UNSET
    thinking: ThinkingConfig | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        model = self.model

        system: list[dict[str, Any]] | str | Unset
        if isinstance(self.system, Unset):
            system = UNSET
        elif isinstance(self.system, list):
            system = []
            for system_type_1_item_data in self.system:
                system_type_1_item = system_type_1_item_data.to_dict()
                system.append(system_type_1_item)

        else:
            system = self.system

        messages: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.messages, Unset):
            messages = []
            for messages_item_data in self.messages:
                messages_item = messages_item_data.to_dict()
                messages.append(messages_item)

        tools: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.tools, Unset):
            tools = []
            for tools_item_data in self.tools:
                tools_item = tools_item_data.to_dict()
                tools.append(tools_item)

        tool_choice: dict[str, Any] | Unset = UNSET
        if not isinstance(self.tool_choice, Unset):
            tool_choice = self.tool_choice.to_dict()

        thinking: dict[str, Any] | Unset = UNSET
        if not isinstance(self.thinking, Unset):
            thinking = self.thinking.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if model is not UNSET:
            field_dict["model"] = model
        if system is not UNSET:
            field_dict["system"] = system
        if messages is not UNSET:
            field_dict["messages"] = messages
        if tools is not UNSET:
            field_dict["tools"] = tools
        if tool_choice is not UNSET:
            field_dict["tool_choice"] = tool_choice
        if thinking is not UNSET:
            field_dict["thinking"] = thinking

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.message_param import MessageParam  # noqa: PLC0415
        from ..models.text_block_param import TextBlockParam  # noqa: PLC0415
        from ..models.thinking_config import ThinkingConfig  # noqa: PLC0415
        from ..models.tool import Tool  # noqa: PLC0415
        from ..models.tool_choice import ToolChoice  # noqa: PLC0415

        d = dict(src_dict)
        model = d.pop("model", UNSET)

        def _parse_system(data: object) -> list[TextBlockParam] | str | Unset:
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                system_type_1 = []
                _system_type_1 = data
                for system_type_1_item_data in _system_type_1:
                    system_type_1_item = TextBlockParam.from_dict(system_type_1_item_data)

                    system_type_1.append(system_type_1_item)

                return system_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[TextBlockParam] | str | Unset, data)

        system = _parse_system(d.pop("system", UNSET))

        _messages = d.pop("messages", UNSET)
        messages: list[MessageParam] | Unset = UNSET
        if _messages is not UNSET:
            messages = []
            for messages_item_data in _messages:
                messages_item = MessageParam.from_dict(messages_item_data)

                messages.append(messages_item)

        _tools = d.pop("tools", UNSET)
        tools: list[Tool] | Unset = UNSET
        if _tools is not UNSET:
            tools = []
            for tools_item_data in _tools:
                tools_item = Tool.from_dict(tools_item_data)

                tools.append(tools_item)

        _tool_choice = d.pop("tool_choice", UNSET)
        tool_choice: ToolChoice | Unset
        if isinstance(_tool_choice, Unset):
            tool_choice = UNSET
        else:
            tool_choice = ToolChoice.from_dict(_tool_choice)

        _thinking = d.pop("thinking", UNSET)
        thinking: ThinkingConfig | Unset
        if isinstance(_thinking, Unset):
            thinking = UNSET
        else:
            thinking = ThinkingConfig.from_dict(_thinking)

        prompt_fields = cls(
            model=model,
            system=system,
            messages=messages,
            tools=tools,
            tool_choice=tool_choice,
            thinking=thinking,
        )

        prompt_fields.additional_properties = d
        return prompt_fields

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
