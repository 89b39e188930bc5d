from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="TokenizeResponse")


@_attrs_define
class TokenizeResponse:
    """
    Attributes:
        model (str):
        count (int):
        tokens (list[int]):
        pieces (list[str] | Unset):
    """

    model: str
    count: int
    tokens: list[int]
    pieces: list[str] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        model = self.model

        count = self.count

        tokens = self.tokens

        pieces: list[str] | Unset = UNSET
        if not isinstance(self.pieces, Unset):
            pieces = self.pieces

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "model": model,
                "count": count,
                "tokens": tokens,
            }
        )
        if pieces is not UNSET:
            field_dict["pieces"] = pieces

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        model = d.pop("model")

        count = d.pop("count")

        tokens = cast(list[int], d.pop("tokens"))

        pieces = cast(list[str], d.pop("pieces", UNSET))

        tokenize_response = cls(
            model=model,
            count=count,
            tokens=tokens,
            pieces=pieces,
        )

        tokenize_response.additional_properties = d
        return tokenize_response

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
