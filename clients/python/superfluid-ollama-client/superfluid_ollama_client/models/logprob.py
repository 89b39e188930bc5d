from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.logprob_top_logprobs_item import LogprobTopLogprobsItem


T = TypeVar("T", bound="Logprob")


@_attrs_define
class Logprob:
    """
    Attributes:
        token (str):
        logprob (float):
        bytes_ (list[int]):
        top_logprobs (list[LogprobTopLogprobsItem] | Unset):
    """

    token: str
    logprob: float
    bytes_: list[int]
    top_logprobs: list[LogprobTopLogprobsItem] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        token = self.token

        logprob = self.logprob

        bytes_ = self.bytes_

        top_logprobs: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.top_logprobs, Unset):
            top_logprobs = []
            for top_logprobs_item_data in self.top_logprobs:
                top_logprobs_item = top_logprobs_item_data.to_dict()
                top_logprobs.append(top_logprobs_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "token": token,
                "logprob": logprob,
                "bytes": bytes_,
            }
        )
        if top_logprobs is not UNSET:
            field_dict["top_logprobs"] = top_logprobs

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.logprob_top_logprobs_item import LogprobTopLogprobsItem  # noqa: PLC0415

        d = dict(src_dict)
        token = d.pop("token")

        logprob = d.pop("logprob")

        bytes_ = cast(list[int], d.pop("bytes"))

        _top_logprobs = d.pop("top_logprobs", UNSET)
        top_logprobs: list[LogprobTopLogprobsItem] | Unset = UNSET
        if _top_logprobs is not UNSET:
            top_logprobs = []
            for top_logprobs_item_data in _top_logprobs:
                top_logprobs_item = LogprobTopLogprobsItem.from_dict(top_logprobs_item_data)

                top_logprobs.append(top_logprobs_item)

        logprob = cls(
            token=token,
            logprob=logprob,
            bytes_=bytes_,
            top_logprobs=top_logprobs,
        )

        logprob.additional_properties = d
        return logprob

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
