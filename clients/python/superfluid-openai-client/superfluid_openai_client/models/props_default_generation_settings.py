from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.props_default_generation_settings_params import PropsDefaultGenerationSettingsParams


T = TypeVar("T", bound="PropsDefaultGenerationSettings")


@_attrs_define
class PropsDefaultGenerationSettings:
    """
    Attributes:
        n_ctx (int | Unset):
        params (PropsDefaultGenerationSettingsParams | Unset):
    """

    n_ctx: int | Unset = UNSET
    params: PropsDefaultGenerationSettingsParams | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        n_ctx = self.n_ctx

        params: dict[str, Any] | Unset = UNSET
        if not isinstance(self.params, Unset):
            params = self.params.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if n_ctx is not UNSET:
            field_dict["n_ctx"] = n_ctx
        if params is not UNSET:
            field_dict["params"] = params

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.props_default_generation_settings_params import PropsDefaultGenerationSettingsParams  # noqa: PLC0415

        d = dict(src_dict)
        n_ctx = d.pop("n_ctx", UNSET)

        _params = d.pop("params", UNSET)
        params: PropsDefaultGenerationSettingsParams | Unset
        if isinstance(_params, Unset):
            params = UNSET
        else:
            params = PropsDefaultGenerationSettingsParams.from_dict(_params)

        props_default_generation_settings = cls(
            n_ctx=n_ctx,
            params=params,
        )

        props_default_generation_settings.additional_properties = d
        return props_default_generation_settings

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
