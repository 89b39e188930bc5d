from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

from ..models.content_block_start_event_type import ContentBlockStartEventType

if TYPE_CHECKING:
    from ..models.text_block import TextBlock
    from ..models.thinking_block import ThinkingBlock
    from ..models.tool_use_block import ToolUseBlock


T = TypeVar("T", bound="ContentBlockStartEvent")


@_attrs_define
class ContentBlockStartEvent:
    """
    Attributes:
        type_ (ContentBlockStartEventType):
        index (int):
        content_block (TextBlock | ThinkingBlock | ToolUseBlock):
    """

    type_: ContentBlockStartEventType
    index: int
    content_block: TextBlock | ThinkingBlock | ToolUseBlock

    def to_dict(self) -> dict[str, Any]:
        from ..models.text_block import TextBlock  # noqa: PLC0415
        from ..models.thinking_block import ThinkingBlock  # noqa: PLC0415

        type_ = self.type_.value

        index = self.index

        content_block: dict[str, Any]
        if isinstance(self.content_block, TextBlock):
            content_block = self.content_block.to_dict()
        elif isinstance(self.content_block, ThinkingBlock):
            content_block = self.content_block.to_dict()
        else:
            content_block = self.content_block.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "type": type_,
                "index": index,
                "content_block": content_block,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.text_block import TextBlock  # noqa: PLC0415
        from ..models.thinking_block import ThinkingBlock  # noqa: PLC0415
        from ..models.tool_use_block import ToolUseBlock  # noqa: PLC0415

        d = dict(src_dict)
        type_ = ContentBlockStartEventType(d.pop("type"))

        index = d.pop("index")

        def _parse_content_block(data: object) -> TextBlock | ThinkingBlock | ToolUseBlock:
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

        content_block = _parse_content_block(d.pop("content_block"))

        content_block_start_event = cls(
            type_=type_,
            index=index,
            content_block=content_block,
        )

        return content_block_start_event
