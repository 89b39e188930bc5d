from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="ResponseUsageInputTokensDetails")


@_attrs_define
class ResponseUsageInputTokensDetails:
    """
    Attributes:
        cached_tokens (int): Prompt tokens served from the prefix cache.
        cache_write_tokens (int): Prompt tokens prefilled (and kept for reuse).
    """

    cached_tokens: int
    cache_write_tokens: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        cached_tokens = self.cached_tokens

        cache_write_tokens = self.cache_write_tokens

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "cached_tokens": cached_tokens,
                "cache_write_tokens": cache_write_tokens,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        cached_tokens = d.pop("cached_tokens")

        cache_write_tokens = d.pop("cache_write_tokens")

        response_usage_input_tokens_details = cls(
            cached_tokens=cached_tokens,
            cache_write_tokens=cache_write_tokens,
        )

        response_usage_input_tokens_details.additional_properties = d
        return response_usage_input_tokens_details

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
