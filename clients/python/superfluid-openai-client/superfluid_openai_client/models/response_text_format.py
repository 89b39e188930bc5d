from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.response_text_format_type import ResponseTextFormatType
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.response_text_format_schema import ResponseTextFormatSchema


T = TypeVar("T", bound="ResponseTextFormat")


@_attrs_define
class ResponseTextFormat:
    """text, json_object (any JSON object) or json_schema ({name, schema, strict}), grammar-enforced.

    Attributes:
        type_ (ResponseTextFormatType):
        name (str | Unset):
        schema (ResponseTextFormatSchema | Unset):
        strict (bool | None | Unset):
        description (str | Unset):
    """

    type_: ResponseTextFormatType
    name: str | Unset = UNSET
    schema: ResponseTextFormatSchema | Unset = UNSET
    strict: bool | None | Unset = UNSET
    description: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_.value

        name = self.name

        schema: dict[str, Any] | Unset = UNSET
        if not isinstance(self.schema, Unset):
            schema = self.schema.to_dict()

        strict: bool | None | Unset
        if isinstance(self.strict, Unset):
            strict = UNSET
        else:
            strict = self.strict

        description = self.description

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "type": type_,
            }
        )
        if name is not UNSET:
            field_dict["name"] = name
        if schema is not UNSET:
            field_dict["schema"] = schema
        if strict is not UNSET:
            field_dict["strict"] = strict
        if description is not UNSET:
            field_dict["description"] = description

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.response_text_format_schema import ResponseTextFormatSchema  # noqa: PLC0415

        d = dict(src_dict)
        type_ = ResponseTextFormatType(d.pop("type"))

        name = d.pop("name", UNSET)

        _schema = d.pop("schema", UNSET)
        schema: ResponseTextFormatSchema | Unset
        if isinstance(_schema, Unset):
            schema = UNSET
        else:
            schema = ResponseTextFormatSchema.from_dict(_schema)

        def _parse_strict(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        strict = _parse_strict(d.pop("strict", UNSET))

        description = d.pop("description", UNSET)

        response_text_format = cls(
            type_=type_,
            name=name,
            schema=schema,
            strict=strict,
            description=description,
        )

        response_text_format.additional_properties = d
        return response_text_format

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
