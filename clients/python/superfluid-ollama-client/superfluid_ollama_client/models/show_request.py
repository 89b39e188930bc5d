from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="ShowRequest")


@_attrs_define
class ShowRequest:
    """
    Attributes:
        model (str):
        verbose (bool | None | Unset):
        system (Any | Unset): Ignored.
        template (Any | Unset): Ignored.
        options (Any | Unset): Ignored.
    """

    model: str
    verbose: bool | None | Unset = UNSET
    system: Any | Unset = UNSET
    template: Any | Unset = UNSET
    options: Any | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        model = self.model

        verbose: bool | None | Unset
        if isinstance(self.verbose, Unset):
            verbose = UNSET
        else:
            verbose = self.verbose

        system = self.system

        template = self.template

        options = self.options

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "model": model,
            }
        )
        if verbose is not UNSET:
            field_dict["verbose"] = verbose
        if system is not UNSET:
            field_dict["system"] = system
        if template is not UNSET:
            field_dict["template"] = template
        if options is not UNSET:
            field_dict["options"] = options

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        model = d.pop("model")

        def _parse_verbose(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        verbose = _parse_verbose(d.pop("verbose", UNSET))

        system = d.pop("system", UNSET)

        template = d.pop("template", UNSET)

        options = d.pop("options", UNSET)

        show_request = cls(
            model=model,
            verbose=verbose,
            system=system,
            template=template,
            options=options,
        )

        show_request.additional_properties = d
        return show_request

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
