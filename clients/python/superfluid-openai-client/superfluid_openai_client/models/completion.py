from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.completion_object import CompletionObject
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.completion_choices_item import CompletionChoicesItem
    from ..models.completion_extension import CompletionExtension
    from ..models.usage import Usage


T = TypeVar("T", bound="Completion")


@_attrs_define
class Completion:
    """
    Attributes:
        id (str):
        object_ (CompletionObject):
        created (int):
        model (str):
        choices (list[CompletionChoicesItem]):
        usage (Usage):
        superfluid (CompletionExtension | Unset): Extension; superfluid's own figures for the reply.
    """

    id: str
    object_: CompletionObject
    created: int
    model: str
    choices: list[CompletionChoicesItem]
    usage: Usage
    superfluid: CompletionExtension | Unset = UNSET
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
                "usage": usage,
            }
        )
        if superfluid is not UNSET:
            field_dict["superfluid"] = superfluid

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.completion_choices_item import CompletionChoicesItem  # noqa: PLC0415
        from ..models.completion_extension import CompletionExtension  # noqa: PLC0415
        from ..models.usage import Usage  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        object_ = CompletionObject(d.pop("object"))

        created = d.pop("created")

        model = d.pop("model")

        choices = []
        _choices = d.pop("choices")
        for choices_item_data in _choices:
            choices_item = CompletionChoicesItem.from_dict(choices_item_data)

            choices.append(choices_item)

        usage = Usage.from_dict(d.pop("usage"))

        _superfluid = d.pop("superfluid", UNSET)
        superfluid: CompletionExtension | Unset
        if isinstance(_superfluid, Unset):
            superfluid = UNSET
        else:
            superfluid = CompletionExtension.from_dict(_superfluid)

        completion = cls(
            id=id,
            object_=object_,
            created=created,
            model=model,
            choices=choices,
            usage=usage,
            superfluid=superfluid,
        )

        completion.additional_properties = d
        return completion

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
