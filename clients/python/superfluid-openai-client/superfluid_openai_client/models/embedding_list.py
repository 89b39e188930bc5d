from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.embedding_list_object import EmbeddingListObject

if TYPE_CHECKING:
    from ..models.embedding_list_data_item import EmbeddingListDataItem
    from ..models.embedding_list_usage import EmbeddingListUsage


T = TypeVar("T", bound="EmbeddingList")


@_attrs_define
class EmbeddingList:
    """
    Attributes:
        object_ (EmbeddingListObject):
        model (str):
        data (list[EmbeddingListDataItem]):
        usage (EmbeddingListUsage):
    """

    object_: EmbeddingListObject
    model: str
    data: list[EmbeddingListDataItem]
    usage: EmbeddingListUsage
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        object_ = self.object_.value

        model = self.model

        data = []
        for data_item_data in self.data:
            data_item = data_item_data.to_dict()
            data.append(data_item)

        usage = self.usage.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "object": object_,
                "model": model,
                "data": data,
                "usage": usage,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.embedding_list_data_item import EmbeddingListDataItem  # noqa: PLC0415
        from ..models.embedding_list_usage import EmbeddingListUsage  # noqa: PLC0415

        d = dict(src_dict)
        object_ = EmbeddingListObject(d.pop("object"))

        model = d.pop("model")

        data = []
        _data = d.pop("data")
        for data_item_data in _data:
            data_item = EmbeddingListDataItem.from_dict(data_item_data)

            data.append(data_item)

        usage = EmbeddingListUsage.from_dict(d.pop("usage"))

        embedding_list = cls(
            object_=object_,
            model=model,
            data=data,
            usage=usage,
        )

        embedding_list.additional_properties = d
        return embedding_list

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
