from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.options_type_0 import OptionsType0


T = TypeVar("T", bound="EmbedRequest")


@_attrs_define
class EmbedRequest:
    """
    Attributes:
        model (str):
        input_ (list[str] | str): One text or a list of texts; empty loads the model.
        truncate (bool | None | Unset):  Default: True.
        dimensions (int | None | Unset):
        options (None | OptionsType0 | Unset): Generation options. A null option is no option. Any option not listed
            here (num_gpu, num_thread, mirostat, ...) is a 400 `unsupported option: <name>`.
        keep_alive (Any | Unset): Not served; any non-null value is a 400.
    """

    model: str
    input_: list[str] | str
    truncate: bool | None | Unset = True
    dimensions: int | None | Unset = UNSET
    options: None | OptionsType0 | Unset = UNSET
    keep_alive: Any | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.options_type_0 import OptionsType0  # noqa: PLC0415

        model = self.model

        input_: list[str] | str
        if isinstance(self.input_, list):
            input_ = self.input_

        else:
            input_ = self.input_

        truncate: bool | None | Unset
        if isinstance(self.truncate, Unset):
            truncate = UNSET
        else:
            truncate = self.truncate

        dimensions: int | None | Unset
        if isinstance(self.dimensions, Unset):
            dimensions = UNSET
        else:
            dimensions = self.dimensions

        options: dict[str, Any] | None | Unset
        if isinstance(self.options, Unset):
            options = UNSET
        elif isinstance(self.options, OptionsType0):
            options = self.options.to_dict()
        else:
            options = self.options

        keep_alive = self.keep_alive

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "model": model,
                "input": input_,
            }
        )
        if truncate is not UNSET:
            field_dict["truncate"] = truncate
        if dimensions is not UNSET:
            field_dict["dimensions"] = dimensions
        if options is not UNSET:
            field_dict["options"] = options
        if keep_alive is not UNSET:
            field_dict["keep_alive"] = keep_alive

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.options_type_0 import OptionsType0  # noqa: PLC0415

        d = dict(src_dict)
        model = d.pop("model")

        def _parse_input_(data: object) -> list[str] | str:
            try:
                if not isinstance(data, list):
                    raise TypeError()
                input_type_1 = cast(list[str], data)

                return input_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | str, data)

        input_ = _parse_input_(d.pop("input"))

        def _parse_truncate(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        truncate = _parse_truncate(d.pop("truncate", UNSET))

        def _parse_dimensions(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        dimensions = _parse_dimensions(d.pop("dimensions", UNSET))

        def _parse_options(data: object) -> None | OptionsType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_options_type_0 = OptionsType0.from_dict(data)

                return componentsschemas_options_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | OptionsType0 | Unset, data)

        options = _parse_options(d.pop("options", UNSET))

        keep_alive = d.pop("keep_alive", UNSET)

        embed_request = cls(
            model=model,
            input_=input_,
            truncate=truncate,
            dimensions=dimensions,
            options=options,
            keep_alive=keep_alive,
        )

        embed_request.additional_properties = d
        return embed_request

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
