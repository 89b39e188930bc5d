from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="CompletionExtension")


@_attrs_define
class CompletionExtension:
    """Extension; superfluid's own figures for the reply.

    Attributes:
        cached (int): Prompt tokens served from the prefix cache.
        expired (bool): True when a completion deadline cut the reply short.
        served_by (str): The model id that produced the reply.
    """

    cached: int
    expired: bool
    served_by: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        cached = self.cached

        expired = self.expired

        served_by = self.served_by

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "cached": cached,
                "expired": expired,
                "served_by": served_by,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        cached = d.pop("cached")

        expired = d.pop("expired")

        served_by = d.pop("served_by")

        completion_extension = cls(
            cached=cached,
            expired=expired,
            served_by=served_by,
        )

        completion_extension.additional_properties = d
        return completion_extension

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
