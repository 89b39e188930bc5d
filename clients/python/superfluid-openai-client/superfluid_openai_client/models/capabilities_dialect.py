from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="CapabilitiesDialect")


@_attrs_define
class CapabilitiesDialect:
    """
    Attributes:
        enable_thinking (bool):
        reasoning_effort (bool):
        reasoning_effort_levels (list[str]):
        fim (bool):
        fim_model (None | str):
    """

    enable_thinking: bool
    reasoning_effort: bool
    reasoning_effort_levels: list[str]
    fim: bool
    fim_model: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        enable_thinking = self.enable_thinking

        reasoning_effort = self.reasoning_effort

        reasoning_effort_levels = self.reasoning_effort_levels

        fim = self.fim

        fim_model: None | str
        fim_model = self.fim_model

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "enable_thinking": enable_thinking,
                "reasoning_effort": reasoning_effort,
                "reasoning_effort_levels": reasoning_effort_levels,
                "fim": fim,
                "fim_model": fim_model,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        enable_thinking = d.pop("enable_thinking")

        reasoning_effort = d.pop("reasoning_effort")

        reasoning_effort_levels = cast(list[str], d.pop("reasoning_effort_levels"))

        fim = d.pop("fim")

        def _parse_fim_model(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        fim_model = _parse_fim_model(d.pop("fim_model"))

        capabilities_dialect = cls(
            enable_thinking=enable_thinking,
            reasoning_effort=reasoning_effort,
            reasoning_effort_levels=reasoning_effort_levels,
            fim=fim,
            fim_model=fim_model,
        )

        capabilities_dialect.additional_properties = d
        return capabilities_dialect

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
