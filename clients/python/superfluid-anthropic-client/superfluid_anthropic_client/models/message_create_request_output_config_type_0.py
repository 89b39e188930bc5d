from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.message_create_request_output_config_type_0_format_type_0 import (
        MessageCreateRequestOutputConfigType0FormatType0,
    )


T = TypeVar("T", bound="MessageCreateRequestOutputConfigType0")


@_attrs_define
class MessageCreateRequestOutputConfigType0:
    """
    Attributes:
        format_ (MessageCreateRequestOutputConfigType0FormatType0 | None | Unset): A JSON schema the reply's text must
            match, grammar-enforced (objects that say nothing of extra keys are closed). Beside tools, the reply is tool_use
            blocks or text that matches (docs/structured-outputs.md).
        effort (None | str | Unset): Accepted and ignored.
    """

    format_: MessageCreateRequestOutputConfigType0FormatType0 | None | Unset = UNSET
    effort: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.message_create_request_output_config_type_0_format_type_0 import (
            MessageCreateRequestOutputConfigType0FormatType0,  # noqa: PLC0415
        )

        format_: dict[str, Any] | None | Unset
        if isinstance(self.format_, Unset):
            format_ = UNSET
        elif isinstance(self.format_, MessageCreateRequestOutputConfigType0FormatType0):
            format_ = self.format_.to_dict()
        else:
            format_ = self.format_

        effort: None | str | Unset
        if isinstance(self.effort, Unset):
            effort = UNSET
        else:
            effort = self.effort

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if format_ is not UNSET:
            field_dict["format"] = format_
        if effort is not UNSET:
            field_dict["effort"] = effort

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.message_create_request_output_config_type_0_format_type_0 import (
            MessageCreateRequestOutputConfigType0FormatType0,  # noqa: PLC0415
        )

        d = dict(src_dict)

        def _parse_format_(data: object) -> MessageCreateRequestOutputConfigType0FormatType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                format_type_0 = MessageCreateRequestOutputConfigType0FormatType0.from_dict(data)

                return format_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(MessageCreateRequestOutputConfigType0FormatType0 | None | Unset, data)

        format_ = _parse_format_(d.pop("format", UNSET))

        def _parse_effort(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        effort = _parse_effort(d.pop("effort", UNSET))

        message_create_request_output_config_type_0 = cls(
            format_=format_,
            effort=effort,
        )

        message_create_request_output_config_type_0.additional_properties = d
        return message_create_request_output_config_type_0

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
