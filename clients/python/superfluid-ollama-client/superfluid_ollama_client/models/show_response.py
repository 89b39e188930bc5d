from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.show_response_capabilities_item import ShowResponseCapabilitiesItem
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.model_details import ModelDetails
    from ..models.show_response_model_info import ShowResponseModelInfo


T = TypeVar("T", bound="ShowResponse")


@_attrs_define
class ShowResponse:
    """
    Attributes:
        modified_at (datetime.datetime):
        details (ModelDetails):
        model_info (ShowResponseModelInfo):
        parameters (str):
        template (str | Unset): The chat template; only for a loaded model.
        capabilities (list[ShowResponseCapabilitiesItem] | Unset): Only for a loaded model.
    """

    modified_at: datetime.datetime
    details: ModelDetails
    model_info: ShowResponseModelInfo
    parameters: str
    template: str | Unset = UNSET
    capabilities: list[ShowResponseCapabilitiesItem] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        modified_at = self.modified_at.isoformat()

        details = self.details.to_dict()

        model_info = self.model_info.to_dict()

        parameters = self.parameters

        template = self.template

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
                "modified_at": modified_at,
                "details": details,
                "model_info": model_info,
                "parameters": parameters,
            }
        )
        if template is not UNSET:
            field_dict["template"] = template
        if capabilities is not UNSET:
            field_dict["capabilities"] = capabilities

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.model_details import ModelDetails  # noqa: PLC0415
        from ..models.show_response_model_info import ShowResponseModelInfo  # noqa: PLC0415

        d = dict(src_dict)
        modified_at = datetime.datetime.fromisoformat(d.pop("modified_at"))

        details = ModelDetails.from_dict(d.pop("details"))

        model_info = ShowResponseModelInfo.from_dict(d.pop("model_info"))

        parameters = d.pop("parameters")

        template = d.pop("template", UNSET)

        _capabilities = d.pop("capabilities", UNSET)
        capabilities: list[ShowResponseCapabilitiesItem] | Unset = UNSET
        if _capabilities is not UNSET:
            capabilities = []
            for capabilities_item_data in _capabilities:
                capabilities_item = ShowResponseCapabilitiesItem(capabilities_item_data)

                capabilities.append(capabilities_item)

        show_response = cls(
            modified_at=modified_at,
            details=details,
            model_info=model_info,
            parameters=parameters,
            template=template,
            capabilities=capabilities,
        )

        show_response.additional_properties = d
        return show_response

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
