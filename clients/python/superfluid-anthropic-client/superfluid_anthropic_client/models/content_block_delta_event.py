from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

from ..models.content_block_delta_event_type import ContentBlockDeltaEventType

if TYPE_CHECKING:
    from ..models.content_block_delta_event_delta_type_0 import ContentBlockDeltaEventDeltaType0
    from ..models.content_block_delta_event_delta_type_1 import ContentBlockDeltaEventDeltaType1
    from ..models.content_block_delta_event_delta_type_2 import ContentBlockDeltaEventDeltaType2
    from ..models.content_block_delta_event_delta_type_3 import ContentBlockDeltaEventDeltaType3


T = TypeVar("T", bound="ContentBlockDeltaEvent")


@_attrs_define
class ContentBlockDeltaEvent:
    """
    Attributes:
        type_ (ContentBlockDeltaEventType):
        index (int):
        delta (ContentBlockDeltaEventDeltaType0 | ContentBlockDeltaEventDeltaType1 | ContentBlockDeltaEventDeltaType2 |
            ContentBlockDeltaEventDeltaType3):
    """

    type_: ContentBlockDeltaEventType
    index: int
    delta: (
        ContentBlockDeltaEventDeltaType0
        | ContentBlockDeltaEventDeltaType1
        | ContentBlockDeltaEventDeltaType2
        | ContentBlockDeltaEventDeltaType3
    )

    def to_dict(self) -> dict[str, Any]:
        from ..models.content_block_delta_event_delta_type_0 import ContentBlockDeltaEventDeltaType0  # noqa: PLC0415
        from ..models.content_block_delta_event_delta_type_1 import ContentBlockDeltaEventDeltaType1  # noqa: PLC0415
        from ..models.content_block_delta_event_delta_type_2 import ContentBlockDeltaEventDeltaType2  # noqa: PLC0415

        type_ = self.type_.value

        index = self.index

        delta: dict[str, Any]
        if isinstance(self.delta, ContentBlockDeltaEventDeltaType0):
            delta = self.delta.to_dict()
        elif isinstance(self.delta, ContentBlockDeltaEventDeltaType1):
            delta = self.delta.to_dict()
        elif isinstance(self.delta, ContentBlockDeltaEventDeltaType2):
            delta = self.delta.to_dict()
        else:
            delta = self.delta.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "type": type_,
                "index": index,
                "delta": delta,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.content_block_delta_event_delta_type_0 import ContentBlockDeltaEventDeltaType0  # noqa: PLC0415
        from ..models.content_block_delta_event_delta_type_1 import ContentBlockDeltaEventDeltaType1  # noqa: PLC0415
        from ..models.content_block_delta_event_delta_type_2 import ContentBlockDeltaEventDeltaType2  # noqa: PLC0415
        from ..models.content_block_delta_event_delta_type_3 import ContentBlockDeltaEventDeltaType3  # noqa: PLC0415

        d = dict(src_dict)
        type_ = ContentBlockDeltaEventType(d.pop("type"))

        index = d.pop("index")

        def _parse_delta(
            data: object,
        ) -> (
            ContentBlockDeltaEventDeltaType0
            | ContentBlockDeltaEventDeltaType1
            | ContentBlockDeltaEventDeltaType2
            | ContentBlockDeltaEventDeltaType3
        ):
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                delta_type_0 = ContentBlockDeltaEventDeltaType0.from_dict(data)

                return delta_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                delta_type_1 = ContentBlockDeltaEventDeltaType1.from_dict(data)

                return delta_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                delta_type_2 = ContentBlockDeltaEventDeltaType2.from_dict(data)

                return delta_type_2
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            delta_type_3 = ContentBlockDeltaEventDeltaType3.from_dict(data)

            return delta_type_3

        delta = _parse_delta(d.pop("delta"))

        content_block_delta_event = cls(
            type_=type_,
            index=index,
            delta=delta,
        )

        return content_block_delta_event
