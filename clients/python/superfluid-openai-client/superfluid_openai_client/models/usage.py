from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.usage_prompt_tokens_details import UsagePromptTokensDetails


T = TypeVar("T", bound="Usage")


@_attrs_define
class Usage:
    """
    Attributes:
        prompt_tokens (int):
        completion_tokens (int):
        total_tokens (int):
        prompt_tokens_details (UsagePromptTokensDetails | Unset):
    """

    prompt_tokens: int
    completion_tokens: int
    total_tokens: int
    prompt_tokens_details: UsagePromptTokensDetails | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        prompt_tokens = self.prompt_tokens

        completion_tokens = self.completion_tokens

        total_tokens = self.total_tokens

        prompt_tokens_details: dict[str, Any] | Unset = UNSET
        if not isinstance(self.prompt_tokens_details, Unset):
            prompt_tokens_details = self.prompt_tokens_details.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": total_tokens,
            }
        )
        if prompt_tokens_details is not UNSET:
            field_dict["prompt_tokens_details"] = prompt_tokens_details

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.usage_prompt_tokens_details import UsagePromptTokensDetails  # noqa: PLC0415

        d = dict(src_dict)
        prompt_tokens = d.pop("prompt_tokens")

        completion_tokens = d.pop("completion_tokens")

        total_tokens = d.pop("total_tokens")

        _prompt_tokens_details = d.pop("prompt_tokens_details", UNSET)
        prompt_tokens_details: UsagePromptTokensDetails | Unset
        if isinstance(_prompt_tokens_details, Unset):
            prompt_tokens_details = UNSET
        else:
            prompt_tokens_details = UsagePromptTokensDetails.from_dict(_prompt_tokens_details)

        usage = cls(
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            total_tokens=total_tokens,
            prompt_tokens_details=prompt_tokens_details,
        )

        usage.additional_properties = d
        return usage

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
