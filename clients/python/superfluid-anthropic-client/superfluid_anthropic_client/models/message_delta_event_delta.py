from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define

from ..models.message_delta_event_delta_stop_reason import MessageDeltaEventDeltaStopReason

T = TypeVar("T", bound="MessageDeltaEventDelta")


@_attrs_define
class MessageDeltaEventDelta:
    """
    Attributes:
        stop_reason (MessageDeltaEventDeltaStopReason):
        stop_sequence (None | str):
    """

    stop_reason: MessageDeltaEventDeltaStopReason
    stop_sequence: None | str

    def to_dict(self) -> dict[str, Any]:
        stop_reason = self.stop_reason.value

        stop_sequence: None | str
        stop_sequence = self.stop_sequence

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "stop_reason": stop_reason,
                "stop_sequence": stop_sequence,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        stop_reason = MessageDeltaEventDeltaStopReason(d.pop("stop_reason"))

        def _parse_stop_sequence(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        stop_sequence = _parse_stop_sequence(d.pop("stop_sequence"))

        message_delta_event_delta = cls(
            stop_reason=stop_reason,
            stop_sequence=stop_sequence,
        )

        return message_delta_event_delta
