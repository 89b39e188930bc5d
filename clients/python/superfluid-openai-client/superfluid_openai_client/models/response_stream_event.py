from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.response_function_call import ResponseFunctionCall
    from ..models.response_object import ResponseObject
    from ..models.response_output_message import ResponseOutputMessage
    from ..models.response_output_text import ResponseOutputText
    from ..models.response_reasoning_item import ResponseReasoningItem
    from ..models.response_stream_event_logprobs_item import ResponseStreamEventLogprobsItem
    from ..models.response_summary_text import ResponseSummaryText


T = TypeVar("T", bound="ResponseStreamEvent")


@_attrs_define
class ResponseStreamEvent:
    """The data of one streamed event. The order: response.created, response.in_progress; per output item
    output_item.added, then for a message content_part.added, output_text.delta..., output_text.done, content_part.done;
    for reasoning reasoning_summary_part.added, reasoning_summary_text.delta..., reasoning_summary_text.done,
    reasoning_summary_part.done; for a function call function_call_arguments.delta..., function_call_arguments.done;
    then output_item.done; last response.completed (or response.incomplete). An engine failure after the start sends
    `error`, then response.failed.

        Attributes:
            type_ (str):
            sequence_number (int):
            response (ResponseObject | Unset):
            output_index (int | Unset):
            item (ResponseFunctionCall | ResponseOutputMessage | ResponseReasoningItem | Unset):
            item_id (str | Unset):
            content_index (int | Unset):
            summary_index (int | Unset):
            part (ResponseOutputText | ResponseSummaryText | Unset):
            delta (str | Unset):
            text (str | Unset):
            name (str | Unset):
            arguments (str | Unset):
            logprobs (list[ResponseStreamEventLogprobsItem] | Unset):
            code (None | str | Unset):
            message (str | Unset):
            param (None | str | Unset):
    """

    type_: str
    sequence_number: int
    response: ResponseObject | Unset = UNSET
    output_index: int | Unset = UNSET
    item: ResponseFunctionCall | ResponseOutputMessage | ResponseReasoningItem | Unset = UNSET
    item_id: str | Unset = UNSET
    content_index: int | Unset = UNSET
    summary_index: int | Unset = UNSET
    part: ResponseOutputText | ResponseSummaryText | Unset = UNSET
    delta: str | Unset = UNSET
    text: str | Unset = UNSET
    name: str | Unset = UNSET
    arguments: str | Unset = UNSET
    logprobs: list[ResponseStreamEventLogprobsItem] | Unset = UNSET
    code: None | str | Unset = UNSET
    message: str | Unset = UNSET
    param: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.response_output_message import ResponseOutputMessage  # noqa: PLC0415
        from ..models.response_output_text import ResponseOutputText  # noqa: PLC0415
        from ..models.response_reasoning_item import ResponseReasoningItem  # noqa: PLC0415

        type_ = self.type_

        sequence_number = self.sequence_number

        response: dict[str, Any] | Unset = UNSET
        if not isinstance(self.response, Unset):
            response = self.response.to_dict()

        output_index = self.output_index

        item: dict[str, Any] | Unset
        if isinstance(self.item, Unset):
            item = UNSET
        elif isinstance(self.item, ResponseOutputMessage):
            item = self.item.to_dict()
        elif isinstance(self.item, ResponseReasoningItem):
            item = self.item.to_dict()
        else:
            item = self.item.to_dict()

        item_id = self.item_id

        content_index = self.content_index

        summary_index = self.summary_index

        part: dict[str, Any] | Unset
        if isinstance(self.part, Unset):
            part = UNSET
        elif isinstance(self.part, ResponseOutputText):
            part = self.part.to_dict()
        else:
            part = self.part.to_dict()

        delta = self.delta

        text = self.text

        name = self.name

        arguments = self.arguments

        logprobs: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.logprobs, Unset):
            logprobs = []
            for logprobs_item_data in self.logprobs:
                logprobs_item = logprobs_item_data.to_dict()
                logprobs.append(logprobs_item)

        code: None | str | Unset
        if isinstance(self.code, Unset):
            code = UNSET
        else:
            code = self.code

        message = self.message

        param: None | str | Unset
        if isinstance(self.param, Unset):
            param = UNSET
        else:
            param = self.param

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "type": type_,
                "sequence_number": sequence_number,
            }
        )
        if response is not UNSET:
            field_dict["response"] = response
        if output_index is not UNSET:
            field_dict["output_index"] = output_index
        if item is not UNSET:
            field_dict["item"] = item
        if item_id is not UNSET:
            field_dict["item_id"] = item_id
        if content_index is not UNSET:
            field_dict["content_index"] = content_index
        if summary_index is not UNSET:
            field_dict["summary_index"] = summary_index
        if part is not UNSET:
            field_dict["part"] = part
        if delta is not UNSET:
            field_dict["delta"] = delta
        if text is not UNSET:
            field_dict["text"] = text
        if name is not UNSET:
            field_dict["name"] = name
        if arguments is not UNSET:
            field_dict["arguments"] = arguments
        if logprobs is not UNSET:
            field_dict["logprobs"] = logprobs
        if code is not UNSET:
            field_dict["code"] = code
        if message is not UNSET:
            field_dict["message"] = message
        if param is not UNSET:
            field_dict["param"] = param

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.response_function_call import ResponseFunctionCall  # noqa: PLC0415
        from ..models.response_object import ResponseObject  # noqa: PLC0415
        from ..models.response_output_message import ResponseOutputMessage  # noqa: PLC0415
        from ..models.response_output_text import ResponseOutputText  # noqa: PLC0415
        from ..models.response_reasoning_item import ResponseReasoningItem  # noqa: PLC0415
        from ..models.response_stream_event_logprobs_item import ResponseStreamEventLogprobsItem  # noqa: PLC0415
        from ..models.response_summary_text import ResponseSummaryText  # noqa: PLC0415

        d = dict(src_dict)
        type_ = d.pop("type")

        sequence_number = d.pop("sequence_number")

        _response = d.pop("response", UNSET)
        response: ResponseObject | Unset
        if isinstance(_response, Unset):
            response = UNSET
        else:
            response = ResponseObject.from_dict(_response)

        output_index = d.pop("output_index", UNSET)

        def _parse_item(data: object) -> ResponseFunctionCall | ResponseOutputMessage | ResponseReasoningItem | Unset:
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_response_output_item_type_0 = ResponseOutputMessage.from_dict(data)

                return componentsschemas_response_output_item_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_response_output_item_type_1 = ResponseReasoningItem.from_dict(data)

                return componentsschemas_response_output_item_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            componentsschemas_response_output_item_type_2 = ResponseFunctionCall.from_dict(data)

            return componentsschemas_response_output_item_type_2

        item = _parse_item(d.pop("item", UNSET))

        item_id = d.pop("item_id", UNSET)

        content_index = d.pop("content_index", UNSET)

        summary_index = d.pop("summary_index", UNSET)

        def _parse_part(data: object) -> ResponseOutputText | ResponseSummaryText | Unset:
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                part_type_0 = ResponseOutputText.from_dict(data)

                return part_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            part_type_1 = ResponseSummaryText.from_dict(data)

            return part_type_1

        part = _parse_part(d.pop("part", UNSET))

        delta = d.pop("delta", UNSET)

        text = d.pop("text", UNSET)

        name = d.pop("name", UNSET)

        arguments = d.pop("arguments", UNSET)

        _logprobs = d.pop("logprobs", UNSET)
        logprobs: list[ResponseStreamEventLogprobsItem] | Unset = UNSET
        if _logprobs is not UNSET:
            logprobs = []
            for logprobs_item_data in _logprobs:
                logprobs_item = ResponseStreamEventLogprobsItem.from_dict(logprobs_item_data)

                logprobs.append(logprobs_item)

        def _parse_code(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        code = _parse_code(d.pop("code", UNSET))

        message = d.pop("message", UNSET)

        def _parse_param(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        param = _parse_param(d.pop("param", UNSET))

        response_stream_event = cls(
            type_=type_,
            sequence_number=sequence_number,
            response=response,
            output_index=output_index,
            item=item,
            item_id=item_id,
            content_index=content_index,
            summary_index=summary_index,
            part=part,
            delta=delta,
            text=text,
            name=name,
            arguments=arguments,
            logprobs=logprobs,
            code=code,
            message=message,
            param=param,
        )

        response_stream_event.additional_properties = d
        return response_stream_event

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
