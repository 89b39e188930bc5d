from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.message_param_role import MessageParamRole

if TYPE_CHECKING:
    from ..models.document_block_param import DocumentBlockParam
    from ..models.image_block_param import ImageBlockParam
    from ..models.redacted_thinking_block_param import RedactedThinkingBlockParam
    from ..models.text_block_param import TextBlockParam
    from ..models.thinking_block_param import ThinkingBlockParam
    from ..models.tool_result_block_param import ToolResultBlockParam
    from ..models.tool_use_block_param import ToolUseBlockParam


T = TypeVar("T", bound="MessageParam")


@_attrs_define
class MessageParam:
    """
    Attributes:
        role (MessageParamRole): system (sent by some agents inside messages) joins the top-level system prompt, in
            order: its text goes where the template puts system text.
        content (list[DocumentBlockParam | ImageBlockParam | RedactedThinkingBlockParam | TextBlockParam |
            ThinkingBlockParam | ToolResultBlockParam | ToolUseBlockParam] | str):
    """

    role: MessageParamRole
    content: (
        list[
            DocumentBlockParam
            | ImageBlockParam
            | RedactedThinkingBlockParam
            | TextBlockParam
            | ThinkingBlockParam
            | ToolResultBlockParam
            | ToolUseBlockParam
        ]
        | str
    )
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.document_block_param import DocumentBlockParam  # noqa: PLC0415
        from ..models.image_block_param import ImageBlockParam  # noqa: PLC0415
        from ..models.text_block_param import TextBlockParam  # noqa: PLC0415
        from ..models.thinking_block_param import ThinkingBlockParam  # noqa: PLC0415
        from ..models.tool_result_block_param import ToolResultBlockParam  # noqa: PLC0415
        from ..models.tool_use_block_param import ToolUseBlockParam  # noqa: PLC0415

        role = self.role.value

        content: list[dict[str, Any]] | str
        if isinstance(self.content, list):
            content = []
            for content_type_1_item_data in self.content:
                content_type_1_item: dict[str, Any]
                if isinstance(content_type_1_item_data, TextBlockParam):
                    content_type_1_item = content_type_1_item_data.to_dict()
                elif isinstance(content_type_1_item_data, ImageBlockParam):
                    content_type_1_item = content_type_1_item_data.to_dict()
                elif isinstance(content_type_1_item_data, DocumentBlockParam):
                    content_type_1_item = content_type_1_item_data.to_dict()
                elif isinstance(content_type_1_item_data, ToolUseBlockParam):
                    content_type_1_item = content_type_1_item_data.to_dict()
                elif isinstance(content_type_1_item_data, ToolResultBlockParam):
                    content_type_1_item = content_type_1_item_data.to_dict()
                elif isinstance(content_type_1_item_data, ThinkingBlockParam):
                    content_type_1_item = content_type_1_item_data.to_dict()
                else:
                    content_type_1_item = content_type_1_item_data.to_dict()

                content.append(content_type_1_item)

        else:
            content = self.content

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "role": role,
                "content": content,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.document_block_param import DocumentBlockParam  # noqa: PLC0415
        from ..models.image_block_param import ImageBlockParam  # noqa: PLC0415
        from ..models.redacted_thinking_block_param import RedactedThinkingBlockParam  # noqa: PLC0415
        from ..models.text_block_param import TextBlockParam  # noqa: PLC0415
        from ..models.thinking_block_param import ThinkingBlockParam  # noqa: PLC0415
        from ..models.tool_result_block_param import ToolResultBlockParam  # noqa: PLC0415
        from ..models.tool_use_block_param import ToolUseBlockParam  # noqa: PLC0415

        d = dict(src_dict)
        role = MessageParamRole(d.pop("role"))

        def _parse_content(
            data: object,
        ) -> (
            list[
                DocumentBlockParam
                | ImageBlockParam
                | RedactedThinkingBlockParam
                | TextBlockParam
                | ThinkingBlockParam
                | ToolResultBlockParam
                | ToolUseBlockParam
            ]
            | str
        ):
            try:
                if not isinstance(data, list):
                    raise TypeError()
                content_type_1 = []
                _content_type_1 = data
                for content_type_1_item_data in _content_type_1:

                    def _parse_content_type_1_item(
                        data: object,
                    ) -> (
                        DocumentBlockParam
                        | ImageBlockParam
                        | RedactedThinkingBlockParam
                        | TextBlockParam
                        | ThinkingBlockParam
                        | ToolResultBlockParam
                        | ToolUseBlockParam
                    ):
                        try:
                            if not isinstance(data, dict):
                                raise TypeError()
                            componentsschemas_content_block_param_type_0 = TextBlockParam.from_dict(data)

                            return componentsschemas_content_block_param_type_0
                        except (TypeError, ValueError, AttributeError, KeyError):
                            pass
                        try:
                            if not isinstance(data, dict):
                                raise TypeError()
                            componentsschemas_content_block_param_type_1 = ImageBlockParam.from_dict(data)

                            return componentsschemas_content_block_param_type_1
                        except (TypeError, ValueError, AttributeError, KeyError):
                            pass
                        try:
                            if not isinstance(data, dict):
                                raise TypeError()
                            componentsschemas_content_block_param_type_2 = DocumentBlockParam.from_dict(data)

                            return componentsschemas_content_block_param_type_2
                        except (TypeError, ValueError, AttributeError, KeyError):
                            pass
                        try:
                            if not isinstance(data, dict):
                                raise TypeError()
                            componentsschemas_content_block_param_type_3 = ToolUseBlockParam.from_dict(data)

                            return componentsschemas_content_block_param_type_3
                        except (TypeError, ValueError, AttributeError, KeyError):
                            pass
                        try:
                            if not isinstance(data, dict):
                                raise TypeError()
                            componentsschemas_content_block_param_type_4 = ToolResultBlockParam.from_dict(data)

                            return componentsschemas_content_block_param_type_4
                        except (TypeError, ValueError, AttributeError, KeyError):
                            pass
                        try:
                            if not isinstance(data, dict):
                                raise TypeError()
                            componentsschemas_content_block_param_type_5 = ThinkingBlockParam.from_dict(data)

                            return componentsschemas_content_block_param_type_5
                        except (TypeError, ValueError, AttributeError, KeyError):
                            pass
                        if not isinstance(data, dict):
                            raise TypeError()
                        componentsschemas_content_block_param_type_6 = RedactedThinkingBlockParam.from_dict(data)

                        return componentsschemas_content_block_param_type_6

                    content_type_1_item = _parse_content_type_1_item(content_type_1_item_data)

                    content_type_1.append(content_type_1_item)

                return content_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(
                list[
                    DocumentBlockParam
                    | ImageBlockParam
                    | RedactedThinkingBlockParam
                    | TextBlockParam
                    | ThinkingBlockParam
                    | ToolResultBlockParam
                    | ToolUseBlockParam
                ]
                | str,
                data,
            )

        content = _parse_content(d.pop("content"))

        message_param = cls(
            role=role,
            content=content,
        )

        message_param.additional_properties = d
        return message_param

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
