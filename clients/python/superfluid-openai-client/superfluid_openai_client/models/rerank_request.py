from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.rerank_request_documents_item_type_1 import RerankRequestDocumentsItemType1


T = TypeVar("T", bound="RerankRequest")


@_attrs_define
class RerankRequest:
    """
    Attributes:
        model (str):
        query (str):
        documents (list[RerankRequestDocumentsItemType1 | str]):
        top_n (int | None | Unset):
        return_documents (bool | None | Unset):  Default: False.
    """

    model: str
    query: str
    documents: list[RerankRequestDocumentsItemType1 | str]
    top_n: int | None | Unset = UNSET
    return_documents: bool | None | Unset = False
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.rerank_request_documents_item_type_1 import RerankRequestDocumentsItemType1  # noqa: PLC0415

        model = self.model

        query = self.query

        documents = []
        for documents_item_data in self.documents:
            documents_item: dict[str, Any] | str
            if isinstance(documents_item_data, RerankRequestDocumentsItemType1):
                documents_item = documents_item_data.to_dict()
            else:
                documents_item = documents_item_data
            documents.append(documents_item)

        top_n: int | None | Unset
        if isinstance(self.top_n, Unset):
            top_n = UNSET
        else:
            top_n = self.top_n

        return_documents: bool | None | Unset
        if isinstance(self.return_documents, Unset):
            return_documents = UNSET
        else:
            return_documents = self.return_documents

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "model": model,
                "query": query,
                "documents": documents,
            }
        )
        if top_n is not UNSET:
            field_dict["top_n"] = top_n
        if return_documents is not UNSET:
            field_dict["return_documents"] = return_documents

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.rerank_request_documents_item_type_1 import RerankRequestDocumentsItemType1  # noqa: PLC0415

        d = dict(src_dict)
        model = d.pop("model")

        query = d.pop("query")

        documents = []
        _documents = d.pop("documents")
        for documents_item_data in _documents:

            def _parse_documents_item(data: object) -> RerankRequestDocumentsItemType1 | str:
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    documents_item_type_1 = RerankRequestDocumentsItemType1.from_dict(data)

                    return documents_item_type_1
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                return cast(RerankRequestDocumentsItemType1 | str, data)

            documents_item = _parse_documents_item(documents_item_data)

            documents.append(documents_item)

        def _parse_top_n(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        top_n = _parse_top_n(d.pop("top_n", UNSET))

        def _parse_return_documents(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        return_documents = _parse_return_documents(d.pop("return_documents", UNSET))

        rerank_request = cls(
            model=model,
            query=query,
            documents=documents,
            top_n=top_n,
            return_documents=return_documents,
        )

        rerank_request.additional_properties = d
        return rerank_request

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
