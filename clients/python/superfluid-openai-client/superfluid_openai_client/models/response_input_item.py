from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.response_input_item_role import ResponseInputItemRole
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.response_content_part import ResponseContentPart


T = TypeVar("T", bound="ResponseInputItem")


@_attrs_define
class ResponseInputItem:
    """A message ({role, content}, type "message" or absent), a function_call ({call_id, name, arguments}), a
    function_call_output ({call_id, output}, or {name, namespace, output} for an output that answers no call, as Codex
    sends its agent events) or a reasoning item ({summary}). Other types are a 400.

        Attributes:
            type_ (str | Unset):
            id (str | Unset):
            role (ResponseInputItemRole | Unset):
            content (list[ResponseContentPart] | str | Unset):
            call_id (str | Unset):
            name (str | Unset):
            namespace (str | Unset):
            arguments (str | Unset):
            output (list[ResponseContentPart] | str | Unset):
            summary (list[ResponseContentPart] | Unset):
            status (str | Unset):
    """

    type_: str | Unset = UNSET
    id: str | Unset = UNSET
    role: ResponseInputItemRole | Unset = UNSET
    content: list[ResponseContentPart] | str | Unset = UNSET
    call_id: str | Unset = UNSET
    name: str | Unset = UNSET
    namespace: str | Unset = UNSET
    arguments: str | Unset = UNSET
    output: list[ResponseContentPart] | str | Unset = UNSET
    summary: list[ResponseContentPart] | Unset = UNSET
    status: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_

        id = self.id

        role: str | Unset = UNSET
        if not isinstance(self.role, Unset):
            role = self.role.value

        content: list[dict[str, Any]] | str | Unset
        if isinstance(self.content, Unset):
            content = UNSET
        elif isinstance(self.content, list):
            content = []
            for content_type_1_item_data in self.content:
                content_type_1_item = content_type_1_item_data.to_dict()
                content.append(content_type_1_item)

        else:
            content = self.content

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

        status = self.status

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if type_ is not UNSET:
            field_dict["type"] = type_
        if id is not UNSET:
            field_dict["id"] = id
        if role is not UNSET:
            field_dict["role"] = role
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
        if status is not UNSET:
            field_dict["status"] = status

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.response_content_part import ResponseContentPart  # noqa: PLC0415

        d = dict(src_dict)
        type_ = d.pop("type", UNSET)

        id = d.pop("id", UNSET)

        _role = d.pop("role", UNSET)
        role: ResponseInputItemRole | Unset
        if isinstance(_role, Unset):
            role = UNSET
        else:
            role = ResponseInputItemRole(_role)

        def _parse_content(data: object) -> list[ResponseContentPart] | str | Unset:
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                content_type_1 = []
                _content_type_1 = data
                for content_type_1_item_data in _content_type_1:
                    content_type_1_item = ResponseContentPart.from_dict(content_type_1_item_data)

                    content_type_1.append(content_type_1_item)

                return content_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[ResponseContentPart] | str | Unset, data)

        content = _parse_content(d.pop("content", UNSET))

        call_id = d.pop("call_id", UNSET)

        name = d.pop("name", UNSET)

        namespace = d.pop("namespace", UNSET)

        arguments = d.pop("arguments", UNSET)

        def _parse_output(data: object) -> list[ResponseContentPart] | str | Unset:
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                output_type_1 = []
                _output_type_1 = data
                for output_type_1_item_data in _output_type_1:
                    output_type_1_item = ResponseContentPart.from_dict(output_type_1_item_data)

                    output_type_1.append(output_type_1_item)

                return output_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[ResponseContentPart] | str | Unset, data)

        output = _parse_output(d.pop("output", UNSET))

        _summary = d.pop("summary", UNSET)
        summary: list[ResponseContentPart] | Unset = UNSET
        if _summary is not UNSET:
            summary = []
            for summary_item_data in _summary:
                summary_item = ResponseContentPart.from_dict(summary_item_data)

                summary.append(summary_item)

        status = d.pop("status", UNSET)

        response_input_item = cls(
            type_=type_,
            id=id,
            role=role,
            content=content,
            call_id=call_id,
            name=name,
            namespace=namespace,
            arguments=arguments,
            output=output,
            summary=summary,
            status=status,
        )

        response_input_item.additional_properties = d
        return response_input_item

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
