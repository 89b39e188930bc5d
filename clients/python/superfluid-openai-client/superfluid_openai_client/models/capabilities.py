from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.capabilities_dialect import CapabilitiesDialect
    from ..models.capabilities_workload import CapabilitiesWorkload


T = TypeVar("T", bound="Capabilities")


@_attrs_define
class Capabilities:
    """
    Attributes:
        workload (CapabilitiesWorkload):
        chat_template (bool):
        dialect (CapabilitiesDialect):
        tools (bool | Unset):
    """

    workload: CapabilitiesWorkload
    chat_template: bool
    dialect: CapabilitiesDialect
    tools: bool | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        workload = self.workload.to_dict()

        chat_template = self.chat_template

        dialect = self.dialect.to_dict()

        tools = self.tools

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "workload": workload,
                "chat_template": chat_template,
                "dialect": dialect,
            }
        )
        if tools is not UNSET:
            field_dict["tools"] = tools

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.capabilities_dialect import CapabilitiesDialect  # noqa: PLC0415
        from ..models.capabilities_workload import CapabilitiesWorkload  # noqa: PLC0415

        d = dict(src_dict)
        workload = CapabilitiesWorkload.from_dict(d.pop("workload"))

        chat_template = d.pop("chat_template")

        dialect = CapabilitiesDialect.from_dict(d.pop("dialect"))

        tools = d.pop("tools", UNSET)

        capabilities = cls(
            workload=workload,
            chat_template=chat_template,
            dialect=dialect,
            tools=tools,
        )

        capabilities.additional_properties = d
        return capabilities

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
