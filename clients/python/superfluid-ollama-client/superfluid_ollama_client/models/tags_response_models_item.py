from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.tags_response_models_item_capabilities_item import TagsResponseModelsItemCapabilitiesItem
from ..types import UNSET, Unset

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
        capabilities (list[TagsResponseModelsItemCapabilitiesItem] | Unset): What the model serves (an extension), read
            from its metadata without loading it.
    """

    name: str
    model: str
    modified_at: datetime.datetime
    size: int
    digest: str
    details: ModelDetails
    capabilities: list[TagsResponseModelsItemCapabilitiesItem] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        model = self.model

        modified_at = self.modified_at.isoformat()

        size = self.size

        digest = self.digest

        details = self.details.to_dict()

        capabilities: list[str] | Unset = UNSET
        if not isinstance(self.capabilities, Unset):
            capabilities = []
            for capabilities_item_data in self.capabilities:
                capabilities_item = capabilities_item_data.value
                capabilities.append(capabilities_item)

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
        if capabilities is not UNSET:
            field_dict["capabilities"] = capabilities

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

        _capabilities = d.pop("capabilities", UNSET)
        capabilities: list[TagsResponseModelsItemCapabilitiesItem] | Unset = UNSET
        if _capabilities is not UNSET:
            capabilities = []
            for capabilities_item_data in _capabilities:
                capabilities_item = TagsResponseModelsItemCapabilitiesItem(capabilities_item_data)

                capabilities.append(capabilities_item)

        tags_response_models_item = cls(
            name=name,
            model=model,
            modified_at=modified_at,
            size=size,
            digest=digest,
            details=details,
            capabilities=capabilities,
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
