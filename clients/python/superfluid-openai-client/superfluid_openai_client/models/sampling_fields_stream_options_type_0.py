from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="SamplingFieldsStreamOptionsType0")


@_attrs_define
class SamplingFieldsStreamOptionsType0:
    """
    Attributes:
        include_usage (bool | None | Unset):
        continuous_usage_stats (bool | None | Unset):
    """

    include_usage: bool | None | Unset = UNSET
    continuous_usage_stats: bool | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        include_usage: bool | None | Unset
        if isinstance(self.include_usage, Unset):
            include_usage = UNSET
        else:
            include_usage = self.include_usage

        continuous_usage_stats: bool | None | Unset
        if isinstance(self.continuous_usage_stats, Unset):
            continuous_usage_stats = UNSET
        else:
            continuous_usage_stats = self.continuous_usage_stats

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if include_usage is not UNSET:
            field_dict["include_usage"] = include_usage
        if continuous_usage_stats is not UNSET:
            field_dict["continuous_usage_stats"] = continuous_usage_stats

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_include_usage(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        include_usage = _parse_include_usage(d.pop("include_usage", UNSET))

        def _parse_continuous_usage_stats(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        continuous_usage_stats = _parse_continuous_usage_stats(d.pop("continuous_usage_stats", UNSET))

        sampling_fields_stream_options_type_0 = cls(
            include_usage=include_usage,
            continuous_usage_stats=continuous_usage_stats,
        )

        sampling_fields_stream_options_type_0.additional_properties = d
        return sampling_fields_stream_options_type_0

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
