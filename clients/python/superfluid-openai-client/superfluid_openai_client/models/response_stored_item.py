from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.response_stored_item_role import ResponseStoredItemRole
from ..models.response_stored_item_type import ResponseStoredItemType
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.response_stored_item_content_item import ResponseStoredItemContentItem
    from ..models.response_stored_item_output_type_1_item import ResponseStoredItemOutputType1Item
    from ..models.response_stored_item_summary_item import ResponseStoredItemSummaryItem


T = TypeVar("T", bound="ResponseStoredItem")


@_attrs_define
class ResponseStoredItem:
    """An input item as stored: a message (user, system, developer with input parts; assistant with output_text parts),
    function_call, function_call_output or reasoning item, each with an id.

        Attributes:
            type_ (ResponseStoredItemType):
            id (str):
            role (ResponseStoredItemRole | Unset):
            status (str | Unset):
            content (list[ResponseStoredItemContentItem] | Unset):
            call_id (str | Unset):
            name (str | Unset):
            namespace (str | Unset):
            arguments (str | Unset):
            output (list[ResponseStoredItemOutputType1Item] | str | Unset):
            summary (list[ResponseStoredItemSummaryItem] | Unset):
    """

    type_: ResponseStoredItemType
    id: str
    role: ResponseStoredItemRole | Unset = UNSET
    status: str | Unset = UNSET
    content: list[ResponseStoredItemContentItem] | Unset = UNSET
    call_id: str | Unset = UNSET
    name: str | Unset = UNSET
    namespace: str | Unset = UNSET
    arguments: str | Unset = UNSET
    output: list[ResponseStoredItemOutputType1Item] | str | Unset = UNSET
    summary: list[ResponseStoredItemSummaryItem] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_.value

        id = self.id

        role: str | Unset = UNSET
        if not isinstance(self.role, Unset):
            role = self.role.value

        status = self.status

        content: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.content, Unset):
            content = []
            for content_item_data in self.content:
                content_item = content_item_data.to_dict()
                content.append(content_item)

        call_id = self.call_id

        name = self.name

        namespace = self.namespace

        arguments = self.arguments

        output: list[dict[str, Any]] | str | Unset
        if isinstance(self.output, Unset):
            output = UNSET
        elif isinstance(self.output, list):
            output = []
            for output_type_1_item_data in self.output:
                output_type_1_item = output_type_1_item_data.to_dict()
                output.append(output_type_1_item)

        else:
            output = self.output

        summary: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.summary, Unset):
            summary = []
            for summary_item_data in self.summary:
                summary_item = summary_item_data.to_dict()
                summary.append(summary_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "type": type_,
                "id": id,
            }
        )
        if role is not UNSET:
            field_dict["role"] = role
        if status is not UNSET:
            field_dict["status"] = status
        if content is not UNSET:
            field_dict["content"] = content
        if call_id is not UNSET:
            field_dict["call_id"] = call_id
        if name is not UNSET:
            field_dict["name"] = name
        if namespace is not UNSET:
            field_dict["namespace"] = namespace
        if arguments is not UNSET:
            field_dict["arguments"] = arguments
        if output is not UNSET:
            field_dict["output"] = output
        if summary is not UNSET:
            field_dict["summary"] = summary

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.response_stored_item_content_item import ResponseStoredItemContentItem  # noqa: PLC0415
        from ..models.response_stored_item_output_type_1_item import ResponseStoredItemOutputType1Item  # noqa: PLC0415
        from ..models.response_stored_item_summary_item import ResponseStoredItemSummaryItem  # noqa: PLC0415

        d = dict(src_dict)
        type_ = ResponseStoredItemType(d.pop("type"))

        id = d.pop("id")

        _role = d.pop("role", UNSET)
        role: ResponseStoredItemRole | Unset
        if isinstance(_role, Unset):
            role = UNSET
        else:
            role = ResponseStoredItemRole(_role)

        status = d.pop("status", UNSET)

        _content = d.pop("content", UNSET)
        content: list[ResponseStoredItemContentItem] | Unset = UNSET
        if _content is not UNSET:
            content = []
            for content_item_data in _content:
                content_item = ResponseStoredItemContentItem.from_dict(content_item_data)

                content.append(content_item)

        call_id = d.pop("call_id", UNSET)

        name = d.pop("name", UNSET)

        namespace = d.pop("namespace", UNSET)

        arguments = d.pop("arguments", UNSET)

        def _parse_output(data: object) -> list[ResponseStoredItemOutputType1Item] | str | Unset:
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                output_type_1 = []
                _output_type_1 = data
                for output_type_1_item_data in _output_type_1:
                    output_type_1_item = ResponseStoredItemOutputType1Item.from_dict(output_type_1_item_data)

                    output_type_1.append(output_type_1_item)

                return output_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[ResponseStoredItemOutputType1Item] | str | Unset, data)

        output = _parse_output(d.pop("output", UNSET))

        _summary = d.pop("summary", UNSET)
        summary: list[ResponseStoredItemSummaryItem] | Unset = UNSET
        if _summary is not UNSET:
            summary = []
            for summary_item_data in _summary:
                summary_item = ResponseStoredItemSummaryItem.from_dict(summary_item_data)

                summary.append(summary_item)

        response_stored_item = cls(
            type_=type_,
            id=id,
            role=role,
            status=status,
            content=content,
            call_id=call_id,
            name=name,
            namespace=namespace,
            arguments=arguments,
            output=output,
            summary=summary,
        )

        response_stored_item.additional_properties = d
        return response_stored_item

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
