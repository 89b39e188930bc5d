from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.tool_use_block_param_type import ToolUseBlockParamType
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.cache_control_type_0 import CacheControlType0
    from ..models.tool_use_block_param_input import ToolUseBlockParamInput


T = TypeVar("T", bound="ToolUseBlockParam")


@_attrs_define
class ToolUseBlockParam:
    """
    Attributes:
        type_ (ToolUseBlockParamType):
        id (str):
        name (str):
        input_ (ToolUseBlockParamInput):
        cache_control (CacheControlType0 | None | Unset): Accepted and ignored; every prompt prefix is cached without
            being asked.
    """

    type_: ToolUseBlockParamType
    id: str
    name: str
    input_: ToolUseBlockParamInput
    cache_control: CacheControlType0 | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.cache_control_type_0 import CacheControlType0  # noqa: PLC0415

        type_ = self.type_.value

        id = self.id

        name = self.name

        input_ = self.input_.to_dict()

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
                "type": type_,
                "id": id,
                "name": name,
                "input": input_,
            }
        )
        if cache_control is not UNSET:
            field_dict["cache_control"] = cache_control

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.cache_control_type_0 import CacheControlType0  # noqa: PLC0415
        from ..models.tool_use_block_param_input import ToolUseBlockParamInput  # noqa: PLC0415

        d = dict(src_dict)
        type_ = ToolUseBlockParamType(d.pop("type"))

        id = d.pop("id")

        name = d.pop("name")

        input_ = ToolUseBlockParamInput.from_dict(d.pop("input"))

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

        tool_use_block_param = cls(
            type_=type_,
            id=id,
            name=name,
            input_=input_,
            cache_control=cache_control,
        )

        tool_use_block_param.additional_properties = d
        return tool_use_block_param

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
