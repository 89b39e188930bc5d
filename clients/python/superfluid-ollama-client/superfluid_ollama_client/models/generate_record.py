from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.totals_done_reason import TotalsDoneReason
from ..types import UNSET, Unset

T = TypeVar("T", bound="GenerateRecord")


@_attrs_define
class GenerateRecord:
    """
    Attributes:
        model (str):
        created_at (datetime.datetime):
        response (str):
        done (bool):
        done_reason (TotalsDoneReason | Unset):
        total_duration (int | Unset): Nanoseconds from request to terminal record.
        prompt_eval_count (int | Unset):
        prompt_eval_cached_count (int | Unset): Extension; prompt tokens served from the prefix cache.
        eval_count (int | Unset):
        thinking (str | Unset):
    """

    model: str
    created_at: datetime.datetime
    response: str
    done: bool
    done_reason: TotalsDoneReason | Unset = UNSET
    total_duration: int | Unset = UNSET
    prompt_eval_count: int | Unset = UNSET
    prompt_eval_cached_count: int | Unset = UNSET
    eval_count: int | Unset = UNSET
    thinking: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        model = self.model

        created_at = self.created_at.isoformat()

        response = self.response

        done = self.done

        done_reason: str | Unset = UNSET
        if not isinstance(self.done_reason, Unset):
            done_reason = self.done_reason.value

        total_duration = self.total_duration

        prompt_eval_count = self.prompt_eval_count

        prompt_eval_cached_count = self.prompt_eval_cached_count

        eval_count = self.eval_count

        thinking = self.thinking

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "model": model,
                "created_at": created_at,
                "response": response,
                "done": done,
            }
        )
        if done_reason is not UNSET:
            field_dict["done_reason"] = done_reason
        if total_duration is not UNSET:
            field_dict["total_duration"] = total_duration
        if prompt_eval_count is not UNSET:
            field_dict["prompt_eval_count"] = prompt_eval_count
        if prompt_eval_cached_count is not UNSET:
            field_dict["prompt_eval_cached_count"] = prompt_eval_cached_count
        if eval_count is not UNSET:
            field_dict["eval_count"] = eval_count
        if thinking is not UNSET:
            field_dict["thinking"] = thinking

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        model = d.pop("model")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        response = d.pop("response")

        done = d.pop("done")

        _done_reason = d.pop("done_reason", UNSET)
        done_reason: TotalsDoneReason | Unset
        if isinstance(_done_reason, Unset):
            done_reason = UNSET
        else:
            done_reason = TotalsDoneReason(_done_reason)

        total_duration = d.pop("total_duration", UNSET)

        prompt_eval_count = d.pop("prompt_eval_count", UNSET)

        prompt_eval_cached_count = d.pop("prompt_eval_cached_count", UNSET)

        eval_count = d.pop("eval_count", UNSET)

        thinking = d.pop("thinking", UNSET)

        generate_record = cls(
            model=model,
            created_at=created_at,
            response=response,
            done=done,
            done_reason=done_reason,
            total_duration=total_duration,
            prompt_eval_count=prompt_eval_count,
            prompt_eval_cached_count=prompt_eval_cached_count,
            eval_count=eval_count,
            thinking=thinking,
        )

        generate_record.additional_properties = d
        return generate_record

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
