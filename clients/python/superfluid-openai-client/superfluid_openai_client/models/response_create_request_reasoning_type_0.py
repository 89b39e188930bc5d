from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.response_create_request_reasoning_type_0_effort import ResponseCreateRequestReasoningType0Effort
from ..types import UNSET, Unset

T = TypeVar("T", bound="ResponseCreateRequestReasoningType0")


@_attrs_define
class ResponseCreateRequestReasoningType0:
    """
    Attributes:
        effort (ResponseCreateRequestReasoningType0Effort | Unset):
        summary (None | str | Unset):
    """

    effort: ResponseCreateRequestReasoningType0Effort | Unset = UNSET
    summary: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        effort: str | Unset = UNSET
        if not isinstance(self.effort, Unset):
            effort = self.effort.value

        summary: None | str | Unset
        if isinstance(self.summary, Unset):
            summary = UNSET
        else:
            summary = self.summary

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if effort is not UNSET:
            field_dict["effort"] = effort
        if summary is not UNSET:
            field_dict["summary"] = summary

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        _effort = d.pop("effort", UNSET)
        effort: ResponseCreateRequestReasoningType0Effort | Unset
        if isinstance(_effort, Unset):
            effort = UNSET
        else:
            effort = ResponseCreateRequestReasoningType0Effort(_effort)

        def _parse_summary(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        summary = _parse_summary(d.pop("summary", UNSET))

        response_create_request_reasoning_type_0 = cls(
            effort=effort,
            summary=summary,
        )

        response_create_request_reasoning_type_0.additional_properties = d
        return response_create_request_reasoning_type_0

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
