from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.response_reasoning_item_status import ResponseReasoningItemStatus
from ..models.response_reasoning_item_type import ResponseReasoningItemType
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.response_summary_text import ResponseSummaryText


T = TypeVar("T", bound="ResponseReasoningItem")


@_attrs_define
class ResponseReasoningItem:
    """
    Attributes:
        type_ (ResponseReasoningItemType):
        id (str):
        summary (list[ResponseSummaryText]):
        status (ResponseReasoningItemStatus | Unset):
    """

    type_: ResponseReasoningItemType
    id: str
    summary: list[ResponseSummaryText]
    status: ResponseReasoningItemStatus | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_.value

        id = self.id

        summary = []
        for summary_item_data in self.summary:
            summary_item = summary_item_data.to_dict()
            summary.append(summary_item)

        status: str | Unset = UNSET
        if not isinstance(self.status, Unset):
            status = self.status.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "type": type_,
                "id": id,
                "summary": summary,
            }
        )
        if status is not UNSET:
            field_dict["status"] = status

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.response_summary_text import ResponseSummaryText  # noqa: PLC0415

        d = dict(src_dict)
        type_ = ResponseReasoningItemType(d.pop("type"))

        id = d.pop("id")

        summary = []
        _summary = d.pop("summary")
        for summary_item_data in _summary:
            summary_item = ResponseSummaryText.from_dict(summary_item_data)

            summary.append(summary_item)

        _status = d.pop("status", UNSET)
        status: ResponseReasoningItemStatus | Unset
        if isinstance(_status, Unset):
            status = UNSET
        else:
            status = ResponseReasoningItemStatus(_status)

        response_reasoning_item = cls(
            type_=type_,
            id=id,
            summary=summary,
            status=status,
        )

        response_reasoning_item.additional_properties = d
        return response_reasoning_item

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
