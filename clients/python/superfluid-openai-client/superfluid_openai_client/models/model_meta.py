from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="ModelMeta")


@_attrs_define
class ModelMeta:
    """
    Attributes:
        n_ctx (int | None): The context window the model is (or will be) served with; null when its file cannot be read.
        n_ctx_train (int | None | Unset):
        n_params (int | None | Unset):
        size (int | Unset):
        path (str | Unset):
    """

    n_ctx: int | None
    n_ctx_train: int | None | Unset = UNSET
    n_params: int | None | Unset = UNSET
    size: int | Unset = UNSET
    path: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        n_ctx: int | None
        n_ctx = self.n_ctx

        n_ctx_train: int | None | Unset
        if isinstance(self.n_ctx_train, Unset):
            n_ctx_train = UNSET
        else:
            n_ctx_train = self.n_ctx_train

        n_params: int | None | Unset
        if isinstance(self.n_params, Unset):
            n_params = UNSET
        else:
            n_params = self.n_params

        size = self.size

        path = self.path

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "n_ctx": n_ctx,
            }
        )
        if n_ctx_train is not UNSET:
            field_dict["n_ctx_train"] = n_ctx_train
        if n_params is not UNSET:
            field_dict["n_params"] = n_params
        if size is not UNSET:
            field_dict["size"] = size
        if path is not UNSET:
            field_dict["path"] = path

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)

        def _parse_n_ctx(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        n_ctx = _parse_n_ctx(d.pop("n_ctx"))

        def _parse_n_ctx_train(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        n_ctx_train = _parse_n_ctx_train(d.pop("n_ctx_train", UNSET))

        def _parse_n_params(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        n_params = _parse_n_params(d.pop("n_params", UNSET))

        size = d.pop("size", UNSET)

        path = d.pop("path", UNSET)

        model_meta = cls(
            n_ctx=n_ctx,
            n_ctx_train=n_ctx_train,
            n_params=n_params,
            size=size,
            path=path,
        )

        model_meta.additional_properties = d
        return model_meta

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
