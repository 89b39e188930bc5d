from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.open_ai_file_object import OpenAIFileObject
from ..models.open_ai_file_purpose import OpenAIFilePurpose
from ..models.open_ai_file_status import OpenAIFileStatus
from ..types import UNSET, Unset

T = TypeVar("T", bound="OpenAIFile")


@_attrs_define
class OpenAIFile:
    """
    Attributes:
        id (str): file-<hex>
        object_ (OpenAIFileObject):
        bytes_ (int):
        created_at (int):
        filename (str):
        purpose (OpenAIFilePurpose):
        status (OpenAIFileStatus):
        expires_at (int | None | Unset):
        status_details (None | str | Unset):
    """

    id: str
    object_: OpenAIFileObject
    bytes_: int
    created_at: int
    filename: str
    purpose: OpenAIFilePurpose
    status: OpenAIFileStatus
    expires_at: int | None | Unset = UNSET
    status_details: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        object_ = self.object_.value

        bytes_ = self.bytes_

        created_at = self.created_at

        filename = self.filename

        purpose = self.purpose.value

        status = self.status.value

        expires_at: int | None | Unset
        if isinstance(self.expires_at, Unset):
            expires_at = UNSET
        else:
            expires_at = self.expires_at

        status_details: None | str | Unset
        if isinstance(self.status_details, Unset):
            status_details = UNSET
        else:
            status_details = self.status_details

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "object": object_,
                "bytes": bytes_,
                "created_at": created_at,
                "filename": filename,
                "purpose": purpose,
                "status": status,
            }
        )
        if expires_at is not UNSET:
            field_dict["expires_at"] = expires_at
        if status_details is not UNSET:
            field_dict["status_details"] = status_details

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        object_ = OpenAIFileObject(d.pop("object"))

        bytes_ = d.pop("bytes")

        created_at = d.pop("created_at")

        filename = d.pop("filename")

        purpose = OpenAIFilePurpose(d.pop("purpose"))

        status = OpenAIFileStatus(d.pop("status"))

        def _parse_expires_at(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        expires_at = _parse_expires_at(d.pop("expires_at", UNSET))

        def _parse_status_details(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        status_details = _parse_status_details(d.pop("status_details", UNSET))

        open_ai_file = cls(
            id=id,
            object_=object_,
            bytes_=bytes_,
            created_at=created_at,
            filename=filename,
            purpose=purpose,
            status=status,
            expires_at=expires_at,
            status_details=status_details,
        )

        open_ai_file.additional_properties = d
        return open_ai_file

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
