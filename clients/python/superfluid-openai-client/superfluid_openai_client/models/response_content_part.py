from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="ResponseContentPart")


@_attrs_define
class ResponseContentPart:
    """input_text / output_text ({text}), refusal ({refusal}), summary_text ({text}); input_image and input_file on a text-
    only model are 400 unsupported_input naming the part.

        Attributes:
            type_ (str):
            text (str | Unset):
            refusal (str | Unset):
    """

    type_: str
    text: str | Unset = UNSET
    refusal: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_

        text = self.text

        refusal = self.refusal

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "type": type_,
            }
        )
        if text is not UNSET:
            field_dict["text"] = text
        if refusal is not UNSET:
            field_dict["refusal"] = refusal

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        type_ = d.pop("type")

        text = d.pop("text", UNSET)

        refusal = d.pop("refusal", UNSET)

        response_content_part = cls(
            type_=type_,
            text=text,
            refusal=refusal,
        )

        response_content_part.additional_properties = d
        return response_content_part

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
