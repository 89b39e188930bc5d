from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.options_type_0 import OptionsType0


T = TypeVar("T", bound="EmbeddingsRequest")


@_attrs_define
class EmbeddingsRequest:
    """
    Attributes:
        model (str):
        prompt (None | str | Unset):
        options (None | OptionsType0 | Unset): Generation options. A null option is no option. Any option not listed
            here (num_gpu, num_thread, mirostat, ...) is a 400 `unsupported option: <name>`.
        keep_alive (Any | Unset): Not served; any non-null value is a 400.
    """

    model: str
    prompt: None | str | Unset = UNSET
    options: None | OptionsType0 | Unset = UNSET
    keep_alive: Any | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.options_type_0 import OptionsType0  # noqa: PLC0415

        model = self.model

        prompt: None | str | Unset
        if isinstance(self.prompt, Unset):
            prompt = UNSET
        else:
            prompt = self.prompt

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
            }
        )
        if prompt is not UNSET:
            field_dict["prompt"] = prompt
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

        def _parse_prompt(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        prompt = _parse_prompt(d.pop("prompt", UNSET))

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

        embeddings_request = cls(
            model=model,
            prompt=prompt,
            options=options,
            keep_alive=keep_alive,
        )

        embeddings_request.additional_properties = d
        return embeddings_request

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
