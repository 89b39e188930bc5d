from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.message_create_request_output_config_type_0_format_type_0_type import (
    MessageCreateRequestOutputConfigType0FormatType0Type,
)

if TYPE_CHECKING:
    from ..models.message_create_request_output_config_type_0_format_type_0_schema import (
        MessageCreateRequestOutputConfigType0FormatType0Schema,
    )


T = TypeVar("T", bound="MessageCreateRequestOutputConfigType0FormatType0")


@_attrs_define
class MessageCreateRequestOutputConfigType0FormatType0:
    """A JSON schema the reply's text must match, grammar-enforced (objects that say nothing of extra keys are closed).
    Beside tools, the reply is tool_use blocks or text that matches (docs/structured-outputs.md).

        Attributes:
            type_ (MessageCreateRequestOutputConfigType0FormatType0Type):
            schema (MessageCreateRequestOutputConfigType0FormatType0Schema):
    """

    type_: MessageCreateRequestOutputConfigType0FormatType0Type
    schema: MessageCreateRequestOutputConfigType0FormatType0Schema
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_.value

        schema = self.schema.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "type": type_,
                "schema": schema,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.message_create_request_output_config_type_0_format_type_0_schema import (
            MessageCreateRequestOutputConfigType0FormatType0Schema,  # noqa: PLC0415
        )

        d = dict(src_dict)
        type_ = MessageCreateRequestOutputConfigType0FormatType0Type(d.pop("type"))

        schema = MessageCreateRequestOutputConfigType0FormatType0Schema.from_dict(d.pop("schema"))

        message_create_request_output_config_type_0_format_type_0 = cls(
            type_=type_,
            schema=schema,
        )

        message_create_request_output_config_type_0_format_type_0.additional_properties = d
        return message_create_request_output_config_type_0_format_type_0

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
