from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.create_batch_request_endpoint import CreateBatchRequestEndpoint
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.create_batch_request_metadata_type_0 import CreateBatchRequestMetadataType0
    from ..models.create_batch_request_output_expires_after import CreateBatchRequestOutputExpiresAfter


T = TypeVar("T", bound="CreateBatchRequest")


@_attrs_define
class CreateBatchRequest:
    """
    Attributes:
        input_file_id (str): A file uploaded with purpose batch.
        endpoint (CreateBatchRequestEndpoint | Unset): Reported on the batch; each line runs against its own url, which
            may be any of these (OpenAI asks every line to name this endpoint).
             Default: CreateBatchRequestEndpoint.VALUE_0.
        completion_window (str | Unset): How long the batch may run (24h, or any duration such as 90m or 2d); past it,
            it expires. Default: '24h'.
        metadata (CreateBatchRequestMetadataType0 | None | Unset):
        output_expires_after (CreateBatchRequestOutputExpiresAfter | Unset): Accepted and ignored; output files expire
            after --files-expiry.
    """

    input_file_id: str
    endpoint: CreateBatchRequestEndpoint | Unset = CreateBatchRequestEndpoint.VALUE_0
    completion_window: str | Unset = "24h"
    metadata: CreateBatchRequestMetadataType0 | None | Unset = UNSET
    output_expires_after: CreateBatchRequestOutputExpiresAfter | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.create_batch_request_metadata_type_0 import CreateBatchRequestMetadataType0  # noqa: PLC0415

        input_file_id = self.input_file_id

        endpoint: str | Unset = UNSET
        if not isinstance(self.endpoint, Unset):
            endpoint = self.endpoint.value

        completion_window = self.completion_window

        metadata: dict[str, Any] | None | Unset
        if isinstance(self.metadata, Unset):
            metadata = UNSET
        elif isinstance(self.metadata, CreateBatchRequestMetadataType0):
            metadata = self.metadata.to_dict()
        else:
            metadata = self.metadata

        output_expires_after: dict[str, Any] | Unset = UNSET
        if not isinstance(self.output_expires_after, Unset):
            output_expires_after = self.output_expires_after.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "input_file_id": input_file_id,
            }
        )
        if endpoint is not UNSET:
            field_dict["endpoint"] = endpoint
        if completion_window is not UNSET:
            field_dict["completion_window"] = completion_window
        if metadata is not UNSET:
            field_dict["metadata"] = metadata
        if output_expires_after is not UNSET:
            field_dict["output_expires_after"] = output_expires_after

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.create_batch_request_metadata_type_0 import CreateBatchRequestMetadataType0  # noqa: PLC0415
        from ..models.create_batch_request_output_expires_after import CreateBatchRequestOutputExpiresAfter  # noqa: PLC0415

        d = dict(src_dict)
        input_file_id = d.pop("input_file_id")

        _endpoint = d.pop("endpoint", UNSET)
        endpoint: CreateBatchRequestEndpoint | Unset
        if isinstance(_endpoint, Unset):
            endpoint = UNSET
        else:
            endpoint = CreateBatchRequestEndpoint(_endpoint)

        completion_window = d.pop("completion_window", UNSET)

        def _parse_metadata(data: object) -> CreateBatchRequestMetadataType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                metadata_type_0 = CreateBatchRequestMetadataType0.from_dict(data)

                return metadata_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CreateBatchRequestMetadataType0 | None | Unset, data)

        metadata = _parse_metadata(d.pop("metadata", UNSET))

        _output_expires_after = d.pop("output_expires_after", UNSET)
        output_expires_after: CreateBatchRequestOutputExpiresAfter | Unset
        if isinstance(_output_expires_after, Unset):
            output_expires_after = UNSET
        else:
            output_expires_after = CreateBatchRequestOutputExpiresAfter.from_dict(_output_expires_after)

        create_batch_request = cls(
            input_file_id=input_file_id,
            endpoint=endpoint,
            completion_window=completion_window,
            metadata=metadata,
            output_expires_after=output_expires_after,
        )

        create_batch_request.additional_properties = d
        return create_batch_request

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
