from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.chat_completion_choices_item_finish_reason import ChatCompletionChoicesItemFinishReason

if TYPE_CHECKING:
    from ..models.chat_completion_choices_item_logprobs_type_0 import ChatCompletionChoicesItemLogprobsType0
    from ..models.chat_completion_choices_item_message import ChatCompletionChoicesItemMessage


T = TypeVar("T", bound="ChatCompletionChoicesItem")


@_attrs_define
class ChatCompletionChoicesItem:
    """
    Attributes:
        index (int):
        finish_reason (ChatCompletionChoicesItemFinishReason):
        logprobs (ChatCompletionChoicesItemLogprobsType0 | None):
        message (ChatCompletionChoicesItemMessage):
    """

    index: int
    finish_reason: ChatCompletionChoicesItemFinishReason
    logprobs: ChatCompletionChoicesItemLogprobsType0 | None
    message: ChatCompletionChoicesItemMessage
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.chat_completion_choices_item_logprobs_type_0 import ChatCompletionChoicesItemLogprobsType0  # noqa: PLC0415

        index = self.index

        finish_reason = self.finish_reason.value

        logprobs: dict[str, Any] | None
        if isinstance(self.logprobs, ChatCompletionChoicesItemLogprobsType0):
            logprobs = self.logprobs.to_dict()
        else:
            logprobs = self.logprobs

        message = self.message.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "index": index,
                "finish_reason": finish_reason,
                "logprobs": logprobs,
                "message": message,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.chat_completion_choices_item_logprobs_type_0 import ChatCompletionChoicesItemLogprobsType0  # noqa: PLC0415
        from ..models.chat_completion_choices_item_message import ChatCompletionChoicesItemMessage  # noqa: PLC0415

        d = dict(src_dict)
        index = d.pop("index")

        finish_reason = ChatCompletionChoicesItemFinishReason(d.pop("finish_reason"))

        def _parse_logprobs(data: object) -> ChatCompletionChoicesItemLogprobsType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                logprobs_type_0 = ChatCompletionChoicesItemLogprobsType0.from_dict(data)

                return logprobs_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ChatCompletionChoicesItemLogprobsType0 | None, data)

        logprobs = _parse_logprobs(d.pop("logprobs"))

        message = ChatCompletionChoicesItemMessage.from_dict(d.pop("message"))

        chat_completion_choices_item = cls(
            index=index,
            finish_reason=finish_reason,
            logprobs=logprobs,
            message=message,
        )

        chat_completion_choices_item.additional_properties = d
        return chat_completion_choices_item

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
