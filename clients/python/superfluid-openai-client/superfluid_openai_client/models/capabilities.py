from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.capabilities_pooling_type_1 import CapabilitiesPoolingType1
from ..models.capabilities_pooling_type_2_type_1 import CapabilitiesPoolingType2Type1
from ..models.capabilities_pooling_type_3_type_1 import CapabilitiesPoolingType3Type1
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.capabilities_dialect import CapabilitiesDialect
    from ..models.capabilities_modalities import CapabilitiesModalities
    from ..models.capabilities_workload import CapabilitiesWorkload


T = TypeVar("T", bound="Capabilities")


@_attrs_define
class Capabilities:
    """
    Attributes:
        workload (CapabilitiesWorkload):
        chat_template (bool):
        dialect (CapabilitiesDialect):
        modalities (CapabilitiesModalities | Unset): What the model takes as input, and the Whisper tasks it runs.
        pooling (CapabilitiesPoolingType1 | CapabilitiesPoolingType2Type1 | CapabilitiesPoolingType3Type1 | None |
            Unset): An embedding model's pooling.
        tools (bool | Unset):
    """

    workload: CapabilitiesWorkload
    chat_template: bool
    dialect: CapabilitiesDialect
    modalities: CapabilitiesModalities | Unset = UNSET
    pooling: CapabilitiesPoolingType1 | CapabilitiesPoolingType2Type1 | CapabilitiesPoolingType3Type1 | None | Unset = (
        UNSET
    )
    tools: bool | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        workload = self.workload.to_dict()

        chat_template = self.chat_template

        dialect = self.dialect.to_dict()

        modalities: dict[str, Any] | Unset = UNSET
        if not isinstance(self.modalities, Unset):
            modalities = self.modalities.to_dict()

        pooling: None | str | Unset
        if isinstance(self.pooling, Unset):
            pooling = UNSET
        elif isinstance(self.pooling, CapabilitiesPoolingType1):
            pooling = self.pooling.value
        elif isinstance(self.pooling, CapabilitiesPoolingType2Type1):
            pooling = self.pooling.value
        elif isinstance(self.pooling, CapabilitiesPoolingType3Type1):
            pooling = self.pooling.value
        else:
            pooling = self.pooling

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
        if modalities is not UNSET:
            field_dict["modalities"] = modalities
        if pooling is not UNSET:
            field_dict["pooling"] = pooling
        if tools is not UNSET:
            field_dict["tools"] = tools

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.capabilities_dialect import CapabilitiesDialect  # noqa: PLC0415
        from ..models.capabilities_modalities import CapabilitiesModalities  # noqa: PLC0415
        from ..models.capabilities_workload import CapabilitiesWorkload  # noqa: PLC0415

        d = dict(src_dict)
        workload = CapabilitiesWorkload.from_dict(d.pop("workload"))

        chat_template = d.pop("chat_template")

        dialect = CapabilitiesDialect.from_dict(d.pop("dialect"))

        _modalities = d.pop("modalities", UNSET)
        modalities: CapabilitiesModalities | Unset
        if isinstance(_modalities, Unset):
            modalities = UNSET
        else:
            modalities = CapabilitiesModalities.from_dict(_modalities)

        def _parse_pooling(
            data: object,
        ) -> CapabilitiesPoolingType1 | CapabilitiesPoolingType2Type1 | CapabilitiesPoolingType3Type1 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                pooling_type_1 = CapabilitiesPoolingType1(data)

                return pooling_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, str):
                    raise TypeError()
                pooling_type_2_type_1 = CapabilitiesPoolingType2Type1(data)

                return pooling_type_2_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, str):
                    raise TypeError()
                pooling_type_3_type_1 = CapabilitiesPoolingType3Type1(data)

                return pooling_type_3_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(
                CapabilitiesPoolingType1 | CapabilitiesPoolingType2Type1 | CapabilitiesPoolingType3Type1 | None | Unset,
                data,
            )

        pooling = _parse_pooling(d.pop("pooling", UNSET))

        tools = d.pop("tools", UNSET)

        capabilities = cls(
            workload=workload,
            chat_template=chat_template,
            dialect=dialect,
            modalities=modalities,
            pooling=pooling,
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
