from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

from ..models.tool_use_block_type import ToolUseBlockType

if TYPE_CHECKING:
    from ..models.tool_use_block_input import ToolUseBlockInput


T = TypeVar("T", bound="ToolUseBlock")


@_attrs_define
class ToolUseBlock:
    """
    Attributes:
        type_ (ToolUseBlockType):
        id (str):
        name (str):
        input_ (ToolUseBlockInput): The call's arguments; empty in content_block_start (they follow as
            input_json_delta).
    """

    type_: ToolUseBlockType
    id: str
    name: str
    input_: ToolUseBlockInput

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_.value

        id = self.id

        name = self.name

        input_ = self.input_.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "type": type_,
                "id": id,
                "name": name,
                "input": input_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.tool_use_block_input import ToolUseBlockInput  # noqa: PLC0415

        d = dict(src_dict)
        type_ = ToolUseBlockType(d.pop("type"))

        id = d.pop("id")

        name = d.pop("name")

        input_ = ToolUseBlockInput.from_dict(d.pop("input"))

        tool_use_block = cls(
            type_=type_,
            id=id,
            name=name,
            input_=input_,
        )

        return tool_use_block
