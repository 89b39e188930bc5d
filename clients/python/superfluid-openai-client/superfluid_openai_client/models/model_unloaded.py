from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.model_unloaded_object import ModelUnloadedObject
from ..types import UNSET, Unset

T = TypeVar("T", bound="ModelUnloaded")


@_attrs_define
class ModelUnloaded:
    """
    Attributes:
        id (str):
        object_ (ModelUnloadedObject):
        loaded (bool):
        deleted (bool | Unset): DELETE only (OpenAI's deleted-model shape); the model stays known.
    """

    id: str
    object_: ModelUnloadedObject
    loaded: bool
    deleted: bool | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        object_ = self.object_.value

        loaded = self.loaded

        deleted = self.deleted

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "object": object_,
                "loaded": loaded,
            }
        )
        if deleted is not UNSET:
            field_dict["deleted"] = deleted

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        object_ = ModelUnloadedObject(d.pop("object"))

        loaded = d.pop("loaded")

        deleted = d.pop("deleted", UNSET)

        model_unloaded = cls(
            id=id,
            object_=object_,
            loaded=loaded,
            deleted=deleted,
        )

        model_unloaded.additional_properties = d
        return model_unloaded

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
