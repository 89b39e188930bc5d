from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.cache_control_type_0 import CacheControlType0
    from ..models.tool_input_schema import ToolInputSchema


T = TypeVar("T", bound="Tool")


@_attrs_define
class Tool:
    """A client tool (no type, or custom) needs input_schema. A tool of any other type (Anthropic's server tools: web
    search, code execution, ...) is accepted and left out of the prompt: this server cannot run it.

        Attributes:
            name (str):
            type_ (None | str | Unset): custom or absent for client tools; any other type is left out of the prompt.
            description (str | Unset):
            input_schema (ToolInputSchema | Unset):
            cache_control (CacheControlType0 | None | Unset): Accepted and ignored; every prompt prefix is cached without
                being asked.
    """

    name: str
    type_: None | str | Unset = UNSET
    description: str | Unset = UNSET
    input_schema: ToolInputSchema | Unset = UNSET
    cache_control: CacheControlType0 | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.cache_control_type_0 import CacheControlType0  # noqa: PLC0415

        name = self.name

        type_: None | str | Unset
        if isinstance(self.type_, Unset):
            type_ = UNSET
        else:
            type_ = self.type_

        description = self.description

        input_schema: dict[str, Any] | Unset = UNSET
        if not isinstance(self.input_schema, Unset):
            input_schema = self.input_schema.to_dict()

        cache_control: dict[str, Any] | None | Unset
        if isinstance(self.cache_control, Unset):
            cache_control = UNSET
        elif isinstance(self.cache_control, CacheControlType0):
            cache_control = self.cache_control.to_dict()
        else:
            cache_control = self.cache_control

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "name": name,
            }
        )
        if type_ is not UNSET:
            field_dict["type"] = type_
        if description is not UNSET:
            field_dict["description"] = description
        if input_schema is not UNSET:
            field_dict["input_schema"] = input_schema
        if cache_control is not UNSET:
            field_dict["cache_control"] = cache_control

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.cache_control_type_0 import CacheControlType0  # noqa: PLC0415
        from ..models.tool_input_schema import ToolInputSchema  # noqa: PLC0415

        d = dict(src_dict)
        name = d.pop("name")

        def _parse_type_(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        type_ = _parse_type_(d.pop("type", UNSET))

        description = d.pop("description", UNSET)

        _input_schema = d.pop("input_schema", UNSET)
        input_schema: ToolInputSchema | Unset
        if isinstance(_input_schema, Unset):
            input_schema = UNSET
        else:
            input_schema = ToolInputSchema.from_dict(_input_schema)

        def _parse_cache_control(data: object) -> CacheControlType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_cache_control_type_0 = CacheControlType0.from_dict(data)

                return componentsschemas_cache_control_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CacheControlType0 | None | Unset, data)

        cache_control = _parse_cache_control(d.pop("cache_control", UNSET))

        tool = cls(
            name=name,
            type_=type_,
            description=description,
            input_schema=input_schema,
            cache_control=cache_control,
        )

        tool.additional_properties = d
        return tool

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
