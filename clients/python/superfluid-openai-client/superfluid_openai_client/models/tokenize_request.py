from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="TokenizeRequest")


@_attrs_define
class TokenizeRequest:
    """
    Attributes:
        model (str):
        content (str | Unset): The text to tokenize (llama-server's name).
        prompt (str | Unset): Alias of content.
        add_special (bool | None | Unset):
        with_pieces (bool | None | Unset):
    """

    model: str
    content: str | Unset = UNSET
    prompt: str | Unset = UNSET
    add_special: bool | None | Unset = UNSET
    with_pieces: bool | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        model = self.model

        content = self.content

        prompt = self.prompt

        add_special: bool | None | Unset
        if isinstance(self.add_special, Unset):
            add_special = UNSET
        else:
            add_special = self.add_special

        with_pieces: bool | None | Unset
        if isinstance(self.with_pieces, Unset):
            with_pieces = UNSET
        else:
            with_pieces = self.with_pieces

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "model": model,
            }
        )
        if content is not UNSET:
            field_dict["content"] = content
        if prompt is not UNSET:
            field_dict["prompt"] = prompt
        if add_special is not UNSET:
            field_dict["add_special"] = add_special
        if with_pieces is not UNSET:
            field_dict["with_pieces"] = with_pieces

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        model = d.pop("model")

        content = d.pop("content", UNSET)

        prompt = d.pop("prompt", UNSET)

        def _parse_add_special(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        add_special = _parse_add_special(d.pop("add_special", UNSET))

        def _parse_with_pieces(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        with_pieces = _parse_with_pieces(d.pop("with_pieces", UNSET))

        tokenize_request = cls(
            model=model,
            content=content,
            prompt=prompt,
            add_special=add_special,
            with_pieces=with_pieces,
        )

        tokenize_request.additional_properties = d
        return tokenize_request

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
