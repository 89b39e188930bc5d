from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.model_details import ModelDetails


T = TypeVar("T", bound="PsResponseModelsItem")


@_attrs_define
class PsResponseModelsItem:
    """
    Attributes:
        name (str):
        model (str):
        size (int):
        digest (str):
        details (ModelDetails):
        size_vram (int):
        context_length (int):
    """

    name: str
    model: str
    size: int
    digest: str
    details: ModelDetails
    size_vram: int
    context_length: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        model = self.model

        size = self.size

        digest = self.digest

        details = self.details.to_dict()

        size_vram = self.size_vram

        context_length = self.context_length

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "name": name,
                "model": model,
                "size": size,
                "digest": digest,
                "details": details,
                "size_vram": size_vram,
                "context_length": context_length,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.model_details import ModelDetails  # noqa: PLC0415

        d = dict(src_dict)
        name = d.pop("name")

        model = d.pop("model")

        size = d.pop("size")

        digest = d.pop("digest")

        details = ModelDetails.from_dict(d.pop("details"))

        size_vram = d.pop("size_vram")

        context_length = d.pop("context_length")

        ps_response_models_item = cls(
            name=name,
            model=model,
            size=size,
            digest=digest,
            details=details,
            size_vram=size_vram,
            context_length=context_length,
        )

        ps_response_models_item.additional_properties = d
        return ps_response_models_item

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
