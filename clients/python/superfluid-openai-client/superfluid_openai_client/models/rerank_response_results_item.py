from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.rerank_response_results_item_document import RerankResponseResultsItemDocument


T = TypeVar("T", bound="RerankResponseResultsItem")


@_attrs_define
class RerankResponseResultsItem:
    """
    Attributes:
        index (int):
        relevance_score (float): Cosine similarity, -1 to 1.
        document (RerankResponseResultsItemDocument | Unset):
    """

    index: int
    relevance_score: float
    document: RerankResponseResultsItemDocument | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        index = self.index

        relevance_score = self.relevance_score

        document: dict[str, Any] | Unset = UNSET
        if not isinstance(self.document, Unset):
            document = self.document.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "index": index,
                "relevance_score": relevance_score,
            }
        )
        if document is not UNSET:
            field_dict["document"] = document

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.rerank_response_results_item_document import RerankResponseResultsItemDocument  # noqa: PLC0415

        d = dict(src_dict)
        index = d.pop("index")

        relevance_score = d.pop("relevance_score")

        _document = d.pop("document", UNSET)
        document: RerankResponseResultsItemDocument | Unset
        if isinstance(_document, Unset):
            document = UNSET
        else:
            document = RerankResponseResultsItemDocument.from_dict(_document)

        rerank_response_results_item = cls(
            index=index,
            relevance_score=relevance_score,
            document=document,
        )

        rerank_response_results_item.additional_properties = d
        return rerank_response_results_item

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
