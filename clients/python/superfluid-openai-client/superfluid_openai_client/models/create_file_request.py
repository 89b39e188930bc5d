from __future__ import annotations

from collections.abc import Mapping
from io import BytesIO
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from .. import types
from ..models.create_file_request_expires_afteranchor import CreateFileRequestExpiresAfteranchor
from ..models.create_file_request_purpose import CreateFileRequestPurpose
from ..types import UNSET, File, Unset

T = TypeVar("T", bound="CreateFileRequest")


@_attrs_define
class CreateFileRequest:
    """
    Attributes:
        file (File):
        purpose (CreateFileRequestPurpose):
        expires_afteranchor (CreateFileRequestExpiresAfteranchor | Unset): When the file expires (the SDK's form
            fields); absent, --files-expiry applies.
        expires_afterseconds (int | Unset):
        expires_after (str | Unset): The same as one JSON object text: {"anchor": "created_at", "seconds": 3600 to
            2592000}.
    """

    file: File
    purpose: CreateFileRequestPurpose
    expires_afteranchor: CreateFileRequestExpiresAfteranchor | Unset = UNSET
    expires_afterseconds: int | Unset = UNSET
    expires_after: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        file = self.file.to_tuple()

        purpose = self.purpose.value

        expires_afteranchor: str | Unset = UNSET
        if not isinstance(self.expires_afteranchor, Unset):
            expires_afteranchor = self.expires_afteranchor.value

        expires_afterseconds = self.expires_afterseconds

        expires_after = self.expires_after

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "file": file,
                "purpose": purpose,
            }
        )
        if expires_afteranchor is not UNSET:
            field_dict["expires_after[anchor]"] = expires_afteranchor
        if expires_afterseconds is not UNSET:
            field_dict["expires_after[seconds]"] = expires_afterseconds
        if expires_after is not UNSET:
            field_dict["expires_after"] = expires_after

        return field_dict

    def to_multipart(self) -> types.RequestFiles:
        files: types.RequestFiles = []

        files.append(("file", self.file.to_tuple()))

        files.append(("purpose", (None, str(self.purpose.value).encode(), "text/plain")))

        if not isinstance(self.expires_afteranchor, Unset):
            files.append(("expires_after[anchor]", (None, str(self.expires_afteranchor.value).encode(), "text/plain")))

        if not isinstance(self.expires_afterseconds, Unset):
            files.append(("expires_after[seconds]", (None, str(self.expires_afterseconds).encode(), "text/plain")))

        if not isinstance(self.expires_after, Unset):
            files.append(("expires_after", (None, str(self.expires_after).encode(), "text/plain")))

        for prop_name, prop in self.additional_properties.items():
            files.append((prop_name, (None, str(prop).encode(), "text/plain")))

        return files

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        file = File(payload=BytesIO(d.pop("file")))

        purpose = CreateFileRequestPurpose(d.pop("purpose"))

        _expires_afteranchor = d.pop("expires_after[anchor]", UNSET)
        expires_afteranchor: CreateFileRequestExpiresAfteranchor | Unset
        if isinstance(_expires_afteranchor, Unset):
            expires_afteranchor = UNSET
        else:
            expires_afteranchor = CreateFileRequestExpiresAfteranchor(_expires_afteranchor)

        expires_afterseconds = d.pop("expires_after[seconds]", UNSET)

        expires_after = d.pop("expires_after", UNSET)

        create_file_request = cls(
            file=file,
            purpose=purpose,
            expires_afteranchor=expires_afteranchor,
            expires_afterseconds=expires_afterseconds,
            expires_after=expires_after,
        )

        create_file_request.additional_properties = d
        return create_file_request

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
