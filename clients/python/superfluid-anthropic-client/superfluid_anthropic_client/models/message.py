from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.message_role import MessageRole
from ..models.message_stop_reason import MessageStopReason
from ..models.message_type import MessageType

if TYPE_CHECKING:
    from ..models.text_block import TextBlock
    from ..models.thinking_block import ThinkingBlock
    from ..models.tool_use_block import ToolUseBlock
    from ..models.usage import Usage


T = TypeVar("T", bound="Message")


@_attrs_define
class Message:
    """
    Attributes:
        id (str):
        type_ (MessageType):
        role (MessageRole):
        model (str):
        content (list[TextBlock | ThinkingBlock | ToolUseBlock]):
        stop_reason (MessageStopReason): Null only in message_start.
        stop_sequence (None | str): The stop sequence that ended the reply, when one did.
        usage (Usage):
    """

    id: str
    type_: MessageType
    role: MessageRole
    model: str
    content: list[TextBlock | ThinkingBlock | ToolUseBlock]
    stop_reason: MessageStopReason
    stop_sequence: None | str
    usage: Usage

    def to_dict(self) -> dict[str, Any]:
        from ..models.text_block import TextBlock  # noqa: PLC0415
        from ..models.thinking_block import ThinkingBlock  # noqa: PLC0415

        id = self.id

        type_ = self.type_.value

        role = self.role.value

        model = self.model

        content = []
        for content_item_data in self.content:
            content_item: dict[str, Any]
            if isinstance(content_item_data, TextBlock):
                content_item = content_item_data.to_dict()
            elif isinstance(content_item_data, ThinkingBlock):
                content_item = content_item_data.to_dict()
            else:
                content_item = content_item_data.to_dict()

            content.append(content_item)

        stop_reason = self.stop_reason.value

        stop_sequence: None | str
        stop_sequence = self.stop_sequence

        usage = self.usage.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "id": id,
                "type": type_,
                "role": role,
                "model": model,
                "content": content,
                "stop_reason": stop_reason,
                "stop_sequence": stop_sequence,
                "usage": usage,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.text_block import TextBlock  # noqa: PLC0415
        from ..models.thinking_block import ThinkingBlock  # noqa: PLC0415
        from ..models.tool_use_block import ToolUseBlock  # noqa: PLC0415
        from ..models.usage import Usage  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        type_ = MessageType(d.pop("type"))

        role = MessageRole(d.pop("role"))

        model = d.pop("model")

        content = []
        _content = d.pop("content")
        for content_item_data in _content:

            def _parse_content_item(data: object) -> TextBlock | ThinkingBlock | ToolUseBlock:
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_content_block_type_0 = TextBlock.from_dict(data)

                    return componentsschemas_content_block_type_0
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_content_block_type_1 = ThinkingBlock.from_dict(data)

                    return componentsschemas_content_block_type_1
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_content_block_type_2 = ToolUseBlock.from_dict(data)

                return componentsschemas_content_block_type_2

            content_item = _parse_content_item(content_item_data)

            content.append(content_item)

        stop_reason = MessageStopReason(d.pop("stop_reason"))

        def _parse_stop_sequence(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        stop_sequence = _parse_stop_sequence(d.pop("stop_sequence"))

        usage = Usage.from_dict(d.pop("usage"))

        message = cls(
            id=id,
            type_=type_,
            role=role,
            model=model,
            content=content,
            stop_reason=stop_reason,
            stop_sequence=stop_sequence,
            usage=usage,
        )

        return message
