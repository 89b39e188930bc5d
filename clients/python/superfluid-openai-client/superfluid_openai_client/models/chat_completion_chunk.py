from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.chat_completion_chunk_object import ChatCompletionChunkObject
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.chat_completion_chunk_choices_item import ChatCompletionChunkChoicesItem
    from ..models.chat_extension import ChatExtension
    from ..models.usage import Usage


T = TypeVar("T", bound="ChatCompletionChunk")


@_attrs_define
class ChatCompletionChunk:
    """One chunk of a chat stream. The first chunk's delta is `{"role": "assistant"}`; content, reasoning and tool-call
    deltas follow (never empty); the terminal chunk has an empty delta, the finish_reason, usage and `superfluid`. With
    `stream_options.continuous_usage_stats`, every content chunk carries usage.

        Attributes:
            id (str):
            object_ (ChatCompletionChunkObject):
            created (int):
            model (str):
            choices (list[ChatCompletionChunkChoicesItem]):
            system_fingerprint (str | Unset):
            usage (Usage | Unset):
            superfluid (ChatExtension | Unset): Extension; superfluid's own figures for the reply.
    """

    id: str
    object_: ChatCompletionChunkObject
    created: int
    model: str
    choices: list[ChatCompletionChunkChoicesItem]
    system_fingerprint: str | Unset = UNSET
    usage: Usage | Unset = UNSET
    superfluid: ChatExtension | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        object_ = self.object_.value

        created = self.created

        model = self.model

        choices = []
        for choices_item_data in self.choices:
            choices_item = choices_item_data.to_dict()
            choices.append(choices_item)

        system_fingerprint = self.system_fingerprint

        usage: dict[str, Any] | Unset = UNSET
        if not isinstance(self.usage, Unset):
            usage = self.usage.to_dict()

        superfluid: dict[str, Any] | Unset = UNSET
        if not isinstance(self.superfluid, Unset):
            superfluid = self.superfluid.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "object": object_,
                "created": created,
                "model": model,
                "choices": choices,
            }
        )
        if system_fingerprint is not UNSET:
            field_dict["system_fingerprint"] = system_fingerprint
        if usage is not UNSET:
            field_dict["usage"] = usage
        if superfluid is not UNSET:
            field_dict["superfluid"] = superfluid

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.chat_completion_chunk_choices_item import ChatCompletionChunkChoicesItem  # noqa: PLC0415
        from ..models.chat_extension import ChatExtension  # noqa: PLC0415
        from ..models.usage import Usage  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        object_ = ChatCompletionChunkObject(d.pop("object"))

        created = d.pop("created")

        model = d.pop("model")

        choices = []
        _choices = d.pop("choices")
        for choices_item_data in _choices:
            choices_item = ChatCompletionChunkChoicesItem.from_dict(choices_item_data)

            choices.append(choices_item)

        system_fingerprint = d.pop("system_fingerprint", UNSET)

        _usage = d.pop("usage", UNSET)
        usage: Usage | Unset
        if isinstance(_usage, Unset):
            usage = UNSET
        else:
            usage = Usage.from_dict(_usage)

        _superfluid = d.pop("superfluid", UNSET)
        superfluid: ChatExtension | Unset
        if isinstance(_superfluid, Unset):
            superfluid = UNSET
        else:
            superfluid = ChatExtension.from_dict(_superfluid)

        chat_completion_chunk = cls(
            id=id,
            object_=object_,
            created=created,
            model=model,
            choices=choices,
            system_fingerprint=system_fingerprint,
            usage=usage,
            superfluid=superfluid,
        )

        chat_completion_chunk.additional_properties = d
        return chat_completion_chunk

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
