from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.batch_object import BatchObject
from ..models.batch_status import BatchStatus
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.batch_errors_type_0 import BatchErrorsType0
    from ..models.batch_metadata_type_0 import BatchMetadataType0
    from ..models.batch_request_counts import BatchRequestCounts
    from ..models.batch_usage import BatchUsage


T = TypeVar("T", bound="Batch")


@_attrs_define
class Batch:
    """
    Attributes:
        id (str): batch_<hex>
        object_ (BatchObject):
        endpoint (str):
        input_file_id (str):
        completion_window (str):
        status (BatchStatus):
        created_at (int):
        request_counts (BatchRequestCounts):
        model (None | str | Unset):
        errors (BatchErrorsType0 | None | Unset): Why the input file was refused (each entry names its line), when the
            batch failed.
        output_file_id (None | str | Unset):
        error_file_id (None | str | Unset):
        in_progress_at (int | None | Unset):
        expires_at (int | None | Unset):
        finalizing_at (int | None | Unset):
        completed_at (int | None | Unset):
        failed_at (int | None | Unset):
        expired_at (int | None | Unset):
        cancelling_at (int | None | Unset):
        cancelled_at (int | None | Unset):
        usage (BatchUsage | Unset):
        metadata (BatchMetadataType0 | None | Unset):
    """

    id: str
    object_: BatchObject
    endpoint: str
    input_file_id: str
    completion_window: str
    status: BatchStatus
    created_at: int
    request_counts: BatchRequestCounts
    model: None | str | Unset = UNSET
    errors: BatchErrorsType0 | None | Unset = UNSET
    output_file_id: None | str | Unset = UNSET
    error_file_id: None | str | Unset = UNSET
    in_progress_at: int | None | Unset = UNSET
    expires_at: int | None | Unset = UNSET
    finalizing_at: int | None | Unset = UNSET
    completed_at: int | None | Unset = UNSET
    failed_at: int | None | Unset = UNSET
    expired_at: int | None | Unset = UNSET
    cancelling_at: int | None | Unset = UNSET
    cancelled_at: int | None | Unset = UNSET
    usage: BatchUsage | Unset = UNSET
    metadata: BatchMetadataType0 | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.batch_errors_type_0 import BatchErrorsType0  # noqa: PLC0415
        from ..models.batch_metadata_type_0 import BatchMetadataType0  # noqa: PLC0415

        id = self.id

        object_ = self.object_.value

        endpoint = self.endpoint

        input_file_id = self.input_file_id

        completion_window = self.completion_window

        status = self.status.value

        created_at = self.created_at

        request_counts = self.request_counts.to_dict()

        model: None | str | Unset
        if isinstance(self.model, Unset):
            model = UNSET
        else:
            model = self.model

        errors: dict[str, Any] | None | Unset
        if isinstance(self.errors, Unset):
            errors = UNSET
        elif isinstance(self.errors, BatchErrorsType0):
            errors = self.errors.to_dict()
        else:
            errors = self.errors

        output_file_id: None | str | Unset
        if isinstance(self.output_file_id, Unset):
            output_file_id = UNSET
        else:
            output_file_id = self.output_file_id

        error_file_id: None | str | Unset
        if isinstance(self.error_file_id, Unset):
            error_file_id = UNSET
        else:
            error_file_id = self.error_file_id

        in_progress_at: int | None | Unset
        if isinstance(self.in_progress_at, Unset):
            in_progress_at = UNSET
        else:
            in_progress_at = self.in_progress_at

        expires_at: int | None | Unset
        if isinstance(self.expires_at, Unset):
            expires_at = UNSET
        else:
            expires_at = self.expires_at

        finalizing_at: int | None | Unset
        if isinstance(self.finalizing_at, Unset):
            finalizing_at = UNSET
        else:
            finalizing_at = self.finalizing_at

        completed_at: int | None | Unset
        if isinstance(self.completed_at, Unset):
            completed_at = UNSET
        else:
            completed_at = self.completed_at

        failed_at: int | None | Unset
        if isinstance(self.failed_at, Unset):
            failed_at = UNSET
        else:
            failed_at = self.failed_at

        expired_at: int | None | Unset
        if isinstance(self.expired_at, Unset):
            expired_at = UNSET
        else:
            expired_at = self.expired_at

        cancelling_at: int | None | Unset
        if isinstance(self.cancelling_at, Unset):
            cancelling_at = UNSET
        else:
            cancelling_at = self.cancelling_at

        cancelled_at: int | None | Unset
        if isinstance(self.cancelled_at, Unset):
            cancelled_at = UNSET
        else:
            cancelled_at = self.cancelled_at

        usage: dict[str, Any] | Unset = UNSET
        if not isinstance(self.usage, Unset):
            usage = self.usage.to_dict()

        metadata: dict[str, Any] | None | Unset
        if isinstance(self.metadata, Unset):
            metadata = UNSET
        elif isinstance(self.metadata, BatchMetadataType0):
            metadata = self.metadata.to_dict()
        else:
            metadata = self.metadata

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "object": object_,
                "endpoint": endpoint,
                "input_file_id": input_file_id,
                "completion_window": completion_window,
                "status": status,
                "created_at": created_at,
                "request_counts": request_counts,
            }
        )
        if model is not UNSET:
            field_dict["model"] = model
        if errors is not UNSET:
            field_dict["errors"] = errors
        if output_file_id is not UNSET:
            field_dict["output_file_id"] = output_file_id
        if error_file_id is not UNSET:
            field_dict["error_file_id"] = error_file_id
        if in_progress_at is not UNSET:
            field_dict["in_progress_at"] = in_progress_at
        if expires_at is not UNSET:
            field_dict["expires_at"] = expires_at
        if finalizing_at is not UNSET:
            field_dict["finalizing_at"] = finalizing_at
        if completed_at is not UNSET:
            field_dict["completed_at"] = completed_at
        if failed_at is not UNSET:
            field_dict["failed_at"] = failed_at
        if expired_at is not UNSET:
            field_dict["expired_at"] = expired_at
        if cancelling_at is not UNSET:
            field_dict["cancelling_at"] = cancelling_at
        if cancelled_at is not UNSET:
            field_dict["cancelled_at"] = cancelled_at
        if usage is not UNSET:
            field_dict["usage"] = usage
        if metadata is not UNSET:
            field_dict["metadata"] = metadata

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.batch_errors_type_0 import BatchErrorsType0  # noqa: PLC0415
        from ..models.batch_metadata_type_0 import BatchMetadataType0  # noqa: PLC0415
        from ..models.batch_request_counts import BatchRequestCounts  # noqa: PLC0415
        from ..models.batch_usage import BatchUsage  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        object_ = BatchObject(d.pop("object"))

        endpoint = d.pop("endpoint")

        input_file_id = d.pop("input_file_id")

        completion_window = d.pop("completion_window")

        status = BatchStatus(d.pop("status"))

        created_at = d.pop("created_at")

        request_counts = BatchRequestCounts.from_dict(d.pop("request_counts"))

        def _parse_model(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        model = _parse_model(d.pop("model", UNSET))

        def _parse_errors(data: object) -> BatchErrorsType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                errors_type_0 = BatchErrorsType0.from_dict(data)

                return errors_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(BatchErrorsType0 | None | Unset, data)

        errors = _parse_errors(d.pop("errors", UNSET))

        def _parse_output_file_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        output_file_id = _parse_output_file_id(d.pop("output_file_id", UNSET))

        def _parse_error_file_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        error_file_id = _parse_error_file_id(d.pop("error_file_id", UNSET))

        def _parse_in_progress_at(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        in_progress_at = _parse_in_progress_at(d.pop("in_progress_at", UNSET))

        def _parse_expires_at(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        expires_at = _parse_expires_at(d.pop("expires_at", UNSET))

        def _parse_finalizing_at(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        finalizing_at = _parse_finalizing_at(d.pop("finalizing_at", UNSET))

        def _parse_completed_at(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        completed_at = _parse_completed_at(d.pop("completed_at", UNSET))

        def _parse_failed_at(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        failed_at = _parse_failed_at(d.pop("failed_at", UNSET))

        def _parse_expired_at(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        expired_at = _parse_expired_at(d.pop("expired_at", UNSET))

        def _parse_cancelling_at(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        cancelling_at = _parse_cancelling_at(d.pop("cancelling_at", UNSET))

        def _parse_cancelled_at(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        cancelled_at = _parse_cancelled_at(d.pop("cancelled_at", UNSET))

        _usage = d.pop("usage", UNSET)
        usage: BatchUsage | Unset
        if isinstance(_usage, Unset):
            usage = UNSET
        else:
            usage = BatchUsage.from_dict(_usage)

        def _parse_metadata(data: object) -> BatchMetadataType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                metadata_type_0 = BatchMetadataType0.from_dict(data)

                return metadata_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(BatchMetadataType0 | None | Unset, data)

        metadata = _parse_metadata(d.pop("metadata", UNSET))

        batch = cls(
            id=id,
            object_=object_,
            endpoint=endpoint,
            input_file_id=input_file_id,
            completion_window=completion_window,
            status=status,
            created_at=created_at,
            request_counts=request_counts,
            model=model,
            errors=errors,
            output_file_id=output_file_id,
            error_file_id=error_file_id,
            in_progress_at=in_progress_at,
            expires_at=expires_at,
            finalizing_at=finalizing_at,
            completed_at=completed_at,
            failed_at=failed_at,
            expired_at=expired_at,
            cancelling_at=cancelling_at,
            cancelled_at=cancelled_at,
            usage=usage,
            metadata=metadata,
        )

        batch.additional_properties = d
        return batch

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
