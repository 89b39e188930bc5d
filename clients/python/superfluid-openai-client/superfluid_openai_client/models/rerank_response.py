from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.rerank_response_object import RerankResponseObject

if TYPE_CHECKING:
    from ..models.rerank_response_results_item import RerankResponseResultsItem
    from ..models.rerank_response_usage import RerankResponseUsage


T = TypeVar("T", bound="RerankResponse")


@_attrs_define
class RerankResponse:
    """
    Attributes:
        object_ (RerankResponseObject):
        model (str):
        results (list[RerankResponseResultsItem]):
        usage (RerankResponseUsage):
    """

    object_: RerankResponseObject
    model: str
    results: list[RerankResponseResultsItem]
    usage: RerankResponseUsage
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        object_ = self.object_.value

        model = self.model

        results = []
        for results_item_data in self.results:
            results_item = results_item_data.to_dict()
            results.append(results_item)

        usage = self.usage.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "object": object_,
                "model": model,
                "results": results,
                "usage": usage,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.rerank_response_results_item import RerankResponseResultsItem  # noqa: PLC0415
        from ..models.rerank_response_usage import RerankResponseUsage  # noqa: PLC0415

        d = dict(src_dict)
        object_ = RerankResponseObject(d.pop("object"))

        model = d.pop("model")

        results = []
        _results = d.pop("results")
        for results_item_data in _results:
            results_item = RerankResponseResultsItem.from_dict(results_item_data)

            results.append(results_item)

        usage = RerankResponseUsage.from_dict(d.pop("usage"))

        rerank_response = cls(
            object_=object_,
            model=model,
            results=results,
            usage=usage,
        )

        rerank_response.additional_properties = d
        return rerank_response

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
