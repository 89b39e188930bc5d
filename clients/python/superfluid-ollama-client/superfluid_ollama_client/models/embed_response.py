from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="EmbedResponse")


@_attrs_define
class EmbedResponse:
    """
    Attributes:
        model (str):
        embeddings (list[list[float]]):
        total_duration (int | Unset):
        prompt_eval_count (int | Unset):
    """

    model: str
    embeddings: list[list[float]]
    total_duration: int | Unset = UNSET
    prompt_eval_count: int | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        model = self.model

        embeddings = []
        for embeddings_item_data in self.embeddings:
            embeddings_item = embeddings_item_data

            embeddings.append(embeddings_item)

        total_duration = self.total_duration

        prompt_eval_count = self.prompt_eval_count

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "model": model,
                "embeddings": embeddings,
            }
        )
        if total_duration is not UNSET:
            field_dict["total_duration"] = total_duration
        if prompt_eval_count is not UNSET:
            field_dict["prompt_eval_count"] = prompt_eval_count

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        model = d.pop("model")

        embeddings = []
        _embeddings = d.pop("embeddings")
        for embeddings_item_data in _embeddings:
            embeddings_item = cast(list[float], embeddings_item_data)

            embeddings.append(embeddings_item)

        total_duration = d.pop("total_duration", UNSET)

        prompt_eval_count = d.pop("prompt_eval_count", UNSET)

        embed_response = cls(
            model=model,
            embeddings=embeddings,
            total_duration=total_duration,
            prompt_eval_count=prompt_eval_count,
        )

        embed_response.additional_properties = d
        return embed_response

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
