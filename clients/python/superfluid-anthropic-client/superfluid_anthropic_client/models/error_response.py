from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define

from ..models.error_response_type import ErrorResponseType

if TYPE_CHECKING:
    from ..models.error_response_error import ErrorResponseError


T = TypeVar("T", bound="ErrorResponse")


@_attrs_define
class ErrorResponse:
    """
    Attributes:
        type_ (ErrorResponseType):
        error (ErrorResponseError):
    """

    type_: ErrorResponseType
    error: ErrorResponseError

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_.value

        error = self.error.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "type": type_,
                "error": error,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.error_response_error import ErrorResponseError  # noqa: PLC0415

        d = dict(src_dict)
        type_ = ErrorResponseType(d.pop("type"))

        error = ErrorResponseError.from_dict(d.pop("error"))

        error_response = cls(
            type_=type_,
            error=error,
        )

        return error_response
