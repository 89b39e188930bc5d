from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define

from ..models.error_response_error_type import ErrorResponseErrorType

T = TypeVar("T", bound="ErrorResponseError")


@_attrs_define
class ErrorResponseError:
    """
    Attributes:
        type_ (ErrorResponseErrorType):
        message (str):
    """

    type_: ErrorResponseErrorType
    message: str

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_.value

        message = self.message

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "type": type_,
                "message": message,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        type_ = ErrorResponseErrorType(d.pop("type"))

        message = d.pop("message")

        error_response_error = cls(
            type_=type_,
            message=message,
        )

        return error_response_error
