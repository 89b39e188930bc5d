from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="LoadLoraAdapterBody")


@_attrs_define
class LoadLoraAdapterBody:
    """
    Attributes:
        path (str): A GGUF LoRA adapter: a path relative to --lora-dir, or an adapter named at start-up. Paths that lead
            outside the directory are refused.
        scale (float | Unset): How strongly the adapter applies; negative values subtract it. llama.cpp also multiplies
            by alpha/rank when the adapter declares adapter.lora.alpha.
             Default: 1.0.
        model (str | Unset): The model to adapt; the default model when absent.
    """

    path: str
    scale: float | Unset = 1.0
    model: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        path = self.path

        scale = self.scale

        model = self.model

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "path": path,
            }
        )
        if scale is not UNSET:
            field_dict["scale"] = scale
        if model is not UNSET:
            field_dict["model"] = model

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        path = d.pop("path")

        scale = d.pop("scale", UNSET)

        model = d.pop("model", UNSET)

        load_lora_adapter_body = cls(
            path=path,
            scale=scale,
            model=model,
        )

        load_lora_adapter_body.additional_properties = d
        return load_lora_adapter_body

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
