from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.model_details import ModelDetails


T = TypeVar("T", bound="TagsResponseModelsItem")


@_attrs_define
class TagsResponseModelsItem:
    """
    Attributes:
        name (str):
        model (str):
        modified_at (datetime.datetime):
        size (int): Always 0.
        digest (str): SHA-256 of the model id (hex).
        details (ModelDetails):
    """

    name: str
    model: str
    modified_at: datetime.datetime
    size: int
    digest: str
    details: ModelDetails
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        model = self.model

        modified_at = self.modified_at.isoformat()

        size = self.size

        digest = self.digest

        details = self.details.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "name": name,
                "model": model,
                "modified_at": modified_at,
                "size": size,
                "digest": digest,
                "details": details,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.model_details import ModelDetails  # noqa: PLC0415

        d = dict(src_dict)
        name = d.pop("name")

        model = d.pop("model")

        modified_at = datetime.datetime.fromisoformat(d.pop("modified_at"))

        size = d.pop("size")

        digest = d.pop("digest")

        details = ModelDetails.from_dict(d.pop("details"))

        tags_response_models_item = cls(
            name=name,
            model=model,
            modified_at=modified_at,
            size=size,
            digest=digest,
            details=details,
        )

        tags_response_models_item.additional_properties = d
        return tags_response_models_item

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
