from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.totals_done_reason import TotalsDoneReason
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.logprob import Logprob
    from ..models.reply_message import ReplyMessage


T = TypeVar("T", bound="ChatRecord")


@_attrs_define
class ChatRecord:
    """
    Attributes:
        model (str):
        created_at (datetime.datetime):
        message (ReplyMessage):
        done (bool):
        done_reason (TotalsDoneReason | Unset):
        total_duration (int | Unset): Nanoseconds from request to terminal record.
        prompt_eval_count (int | Unset):
        prompt_eval_cached_count (int | Unset): Extension; prompt tokens served from the prefix cache.
        eval_count (int | Unset):
        logprobs (list[Logprob] | Unset):
    """

    model: str
    created_at: datetime.datetime
    message: ReplyMessage
    done: bool
    done_reason: TotalsDoneReason | Unset = UNSET
    total_duration: int | Unset = UNSET
    prompt_eval_count: int | Unset = UNSET
    prompt_eval_cached_count: int | Unset = UNSET
    eval_count: int | Unset = UNSET
    logprobs: list[Logprob] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        model = self.model

        created_at = self.created_at.isoformat()

        message = self.message.to_dict()

        done = self.done

        done_reason: str | Unset = UNSET
        if not isinstance(self.done_reason, Unset):
            done_reason = self.done_reason.value

        total_duration = self.total_duration

        prompt_eval_count = self.prompt_eval_count

        prompt_eval_cached_count = self.prompt_eval_cached_count

        eval_count = self.eval_count

        logprobs: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.logprobs, Unset):
            logprobs = []
            for logprobs_item_data in self.logprobs:
                logprobs_item = logprobs_item_data.to_dict()
                logprobs.append(logprobs_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "model": model,
                "created_at": created_at,
                "message": message,
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
        if logprobs is not UNSET:
            field_dict["logprobs"] = logprobs

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.logprob import Logprob  # noqa: PLC0415
        from ..models.reply_message import ReplyMessage  # noqa: PLC0415

        d = dict(src_dict)
        model = d.pop("model")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        message = ReplyMessage.from_dict(d.pop("message"))

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

        _logprobs = d.pop("logprobs", UNSET)
        logprobs: list[Logprob] | Unset = UNSET
        if _logprobs is not UNSET:
            logprobs = []
            for logprobs_item_data in _logprobs:
                logprobs_item = Logprob.from_dict(logprobs_item_data)

                logprobs.append(logprobs_item)

        chat_record = cls(
            model=model,
            created_at=created_at,
            message=message,
            done=done,
            done_reason=done_reason,
            total_duration=total_duration,
            prompt_eval_count=prompt_eval_count,
            prompt_eval_cached_count=prompt_eval_cached_count,
            eval_count=eval_count,
            logprobs=logprobs,
        )

        chat_record.additional_properties = d
        return chat_record

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
