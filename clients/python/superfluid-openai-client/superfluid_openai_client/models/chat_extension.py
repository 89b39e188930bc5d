from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.chat_extension_spec import ChatExtensionSpec


T = TypeVar("T", bound="ChatExtension")


@_attrs_define
class ChatExtension:
    """Extension; superfluid's own figures for the reply.

    Attributes:
        warm (int): Prompt tokens served from the prefix cache.
        spec (ChatExtensionSpec | Unset): Speculative decoding, when it ran.
    """

    warm: int
    spec: ChatExtensionSpec | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        warm = self.warm

        spec: dict[str, Any] | Unset = UNSET
        if not isinstance(self.spec, Unset):
            spec = self.spec.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "warm": warm,
            }
        )
        if spec is not UNSET:
            field_dict["spec"] = spec

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.chat_extension_spec import ChatExtensionSpec  # noqa: PLC0415

        d = dict(src_dict)
        warm = d.pop("warm")

        _spec = d.pop("spec", UNSET)
        spec: ChatExtensionSpec | Unset
        if isinstance(_spec, Unset):
            spec = UNSET
        else:
            spec = ChatExtensionSpec.from_dict(_spec)

        chat_extension = cls(
            warm=warm,
            spec=spec,
        )

        chat_extension.additional_properties = d
        return chat_extension

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
