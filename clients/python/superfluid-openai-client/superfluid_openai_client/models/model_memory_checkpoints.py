from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="ModelMemoryCheckpoints")


@_attrs_define
class ModelMemoryCheckpoints:
    """Recurrent and hybrid models only (--ctx-checkpoints, --checkpoint-min-step).

    Attributes:
        max_per_lane (int | Unset):
        min_step (int | Unset):
    """

    max_per_lane: int | Unset = UNSET
    min_step: int | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        max_per_lane = self.max_per_lane

        min_step = self.min_step

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if max_per_lane is not UNSET:
            field_dict["max_per_lane"] = max_per_lane
        if min_step is not UNSET:
            field_dict["min_step"] = min_step

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        max_per_lane = d.pop("max_per_lane", UNSET)

        min_step = d.pop("min_step", UNSET)

        model_memory_checkpoints = cls(
            max_per_lane=max_per_lane,
            min_step=min_step,
        )

        model_memory_checkpoints.additional_properties = d
        return model_memory_checkpoints

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
