from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.completion_chunk_choices_item_finish_reason import CompletionChunkChoicesItemFinishReason
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.completion_chunk_choices_item_logprobs_type_0 import CompletionChunkChoicesItemLogprobsType0


T = TypeVar("T", bound="CompletionChunkChoicesItem")


@_attrs_define
class CompletionChunkChoicesItem:
    """
    Attributes:
        index (int):
        text (str):
        finish_reason (CompletionChunkChoicesItemFinishReason):
        logprobs (CompletionChunkChoicesItemLogprobsType0 | None | Unset):
    """

    index: int
    text: str
    finish_reason: CompletionChunkChoicesItemFinishReason
    logprobs: CompletionChunkChoicesItemLogprobsType0 | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.completion_chunk_choices_item_logprobs_type_0 import CompletionChunkChoicesItemLogprobsType0  # noqa: PLC0415

        index = self.index

        text = self.text

        finish_reason = self.finish_reason.value

        logprobs: dict[str, Any] | None | Unset
        if isinstance(self.logprobs, Unset):
            logprobs = UNSET
        elif isinstance(self.logprobs, CompletionChunkChoicesItemLogprobsType0):
            logprobs = self.logprobs.to_dict()
        else:
            logprobs = self.logprobs

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "index": index,
                "text": text,
                "finish_reason": finish_reason,
            }
        )
        if logprobs is not UNSET:
            field_dict["logprobs"] = logprobs

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.completion_chunk_choices_item_logprobs_type_0 import CompletionChunkChoicesItemLogprobsType0  # noqa: PLC0415

        d = dict(src_dict)
        index = d.pop("index")

        text = d.pop("text")

        finish_reason = CompletionChunkChoicesItemFinishReason(d.pop("finish_reason"))

        def _parse_logprobs(data: object) -> CompletionChunkChoicesItemLogprobsType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                logprobs_type_0 = CompletionChunkChoicesItemLogprobsType0.from_dict(data)

                return logprobs_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CompletionChunkChoicesItemLogprobsType0 | None | Unset, data)

        logprobs = _parse_logprobs(d.pop("logprobs", UNSET))

        completion_chunk_choices_item = cls(
            index=index,
            text=text,
            finish_reason=finish_reason,
            logprobs=logprobs,
        )

        completion_chunk_choices_item.additional_properties = d
        return completion_chunk_choices_item

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
