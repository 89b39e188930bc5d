from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.batch_usage_input_tokens_details import BatchUsageInputTokensDetails
    from ..models.batch_usage_output_tokens_details import BatchUsageOutputTokensDetails


T = TypeVar("T", bound="BatchUsage")


@_attrs_define
class BatchUsage:
    """
    Attributes:
        input_tokens (int | Unset):
        input_tokens_details (BatchUsageInputTokensDetails | Unset):
        output_tokens (int | Unset):
        output_tokens_details (BatchUsageOutputTokensDetails | Unset):
        total_tokens (int | Unset):
    """

    input_tokens: int | Unset = UNSET
    input_tokens_details: BatchUsageInputTokensDetails | Unset = UNSET
    output_tokens: int | Unset = UNSET
    output_tokens_details: BatchUsageOutputTokensDetails | Unset = UNSET
    total_tokens: int | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        input_tokens = self.input_tokens

        input_tokens_details: dict[str, Any] | Unset = UNSET
        if not isinstance(self.input_tokens_details, Unset):
            input_tokens_details = self.input_tokens_details.to_dict()

        output_tokens = self.output_tokens

        output_tokens_details: dict[str, Any] | Unset = UNSET
        if not isinstance(self.output_tokens_details, Unset):
            output_tokens_details = self.output_tokens_details.to_dict()

        total_tokens = self.total_tokens

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if input_tokens is not UNSET:
            field_dict["input_tokens"] = input_tokens
        if input_tokens_details is not UNSET:
            field_dict["input_tokens_details"] = input_tokens_details
        if output_tokens is not UNSET:
            field_dict["output_tokens"] = output_tokens
        if output_tokens_details is not UNSET:
            field_dict["output_tokens_details"] = output_tokens_details
        if total_tokens is not UNSET:
            field_dict["total_tokens"] = total_tokens

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.batch_usage_input_tokens_details import BatchUsageInputTokensDetails  # noqa: PLC0415
        from ..models.batch_usage_output_tokens_details import BatchUsageOutputTokensDetails  # noqa: PLC0415

        d = dict(src_dict)
        input_tokens = d.pop("input_tokens", UNSET)

        _input_tokens_details = d.pop("input_tokens_details", UNSET)
        input_tokens_details: BatchUsageInputTokensDetails | Unset
        if isinstance(_input_tokens_details, Unset):
            input_tokens_details = UNSET
        else:
            input_tokens_details = BatchUsageInputTokensDetails.from_dict(_input_tokens_details)

        output_tokens = d.pop("output_tokens", UNSET)

        _output_tokens_details = d.pop("output_tokens_details", UNSET)
        output_tokens_details: BatchUsageOutputTokensDetails | Unset
        if isinstance(_output_tokens_details, Unset):
            output_tokens_details = UNSET
        else:
            output_tokens_details = BatchUsageOutputTokensDetails.from_dict(_output_tokens_details)

        total_tokens = d.pop("total_tokens", UNSET)

        batch_usage = cls(
            input_tokens=input_tokens,
            input_tokens_details=input_tokens_details,
            output_tokens=output_tokens,
            output_tokens_details=output_tokens_details,
            total_tokens=total_tokens,
        )

        batch_usage.additional_properties = d
        return batch_usage

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
