from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.list_lora_adapters_response_200_data_item_object import ListLoraAdaptersResponse200DataItemObject
from ..models.list_lora_adapters_response_200_data_item_origin import ListLoraAdaptersResponse200DataItemOrigin

T = TypeVar("T", bound="ListLoraAdaptersResponse200DataItem")


@_attrs_define
class ListLoraAdaptersResponse200DataItem:
    """
    Attributes:
        object_ (ListLoraAdaptersResponse200DataItemObject):
        id (str): The name requests use: the path relative to --lora-dir, or the name given to --lora or --lora-scaled
            at start-up.
        path (str): The adapter file (absolute, symlinks resolved).
        scale (float):
        origin (ListLoraAdaptersResponse200DataItemOrigin):
    """

    object_: ListLoraAdaptersResponse200DataItemObject
    id: str
    path: str
    scale: float
    origin: ListLoraAdaptersResponse200DataItemOrigin
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        object_ = self.object_.value

        id = self.id

        path = self.path

        scale = self.scale

        origin = self.origin.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "object": object_,
                "id": id,
                "path": path,
                "scale": scale,
                "origin": origin,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        object_ = ListLoraAdaptersResponse200DataItemObject(d.pop("object"))

        id = d.pop("id")

        path = d.pop("path")

        scale = d.pop("scale")

        origin = ListLoraAdaptersResponse200DataItemOrigin(d.pop("origin"))

        list_lora_adapters_response_200_data_item = cls(
            object_=object_,
            id=id,
            path=path,
            scale=scale,
            origin=origin,
        )

        list_lora_adapters_response_200_data_item.additional_properties = d
        return list_lora_adapters_response_200_data_item

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
