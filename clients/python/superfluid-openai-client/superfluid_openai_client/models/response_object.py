from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.response_object_object import ResponseObjectObject
from ..models.response_object_status import ResponseObjectStatus
from ..models.response_object_truncation import ResponseObjectTruncation
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.response_function_call import ResponseFunctionCall
    from ..models.response_object_error_type_0 import ResponseObjectErrorType0
    from ..models.response_object_incomplete_details_type_0 import ResponseObjectIncompleteDetailsType0
    from ..models.response_object_metadata import ResponseObjectMetadata
    from ..models.response_object_reasoning import ResponseObjectReasoning
    from ..models.response_object_text import ResponseObjectText
    from ..models.response_object_tool_choice_type_1 import ResponseObjectToolChoiceType1
    from ..models.response_output_message import ResponseOutputMessage
    from ..models.response_reasoning_item import ResponseReasoningItem
    from ..models.response_tool import ResponseTool
    from ..models.response_usage import ResponseUsage


T = TypeVar("T", bound="ResponseObject")


@_attrs_define
class ResponseObject:
    """
    Attributes:
        id (str):
        object_ (ResponseObjectObject):
        created_at (int):
        status (ResponseObjectStatus):
        error (None | ResponseObjectErrorType0):
        incomplete_details (None | ResponseObjectIncompleteDetailsType0):
        instructions (None | str):
        model (str):
        output (list[ResponseFunctionCall | ResponseOutputMessage | ResponseReasoningItem]):
        parallel_tool_calls (bool):
        temperature (float | None):
        tool_choice (ResponseObjectToolChoiceType1 | str):
        tools (list[ResponseTool]):
        top_p (float | None):
        metadata (ResponseObjectMetadata):
        completed_at (int | None | Unset):
        background (bool | Unset):
        max_output_tokens (int | None | Unset):
        max_tool_calls (int | None | Unset):
        previous_response_id (None | str | Unset):
        reasoning (ResponseObjectReasoning | Unset):
        service_tier (str | Unset):
        store (bool | Unset):
        text (ResponseObjectText | Unset):
        top_logprobs (int | None | Unset):
        truncation (ResponseObjectTruncation | Unset):
        usage (ResponseUsage | Unset): Present once the response ended (absent while in progress and on a failed
            response).
        user (str | Unset):
    """

    id: str
    object_: ResponseObjectObject
    created_at: int
    status: ResponseObjectStatus
    error: None | ResponseObjectErrorType0
    incomplete_details: None | ResponseObjectIncompleteDetailsType0
    instructions: None | str
    model: str
    output: list[ResponseFunctionCall | ResponseOutputMessage | ResponseReasoningItem]
    parallel_tool_calls: bool
    temperature: float | None
    tool_choice: ResponseObjectToolChoiceType1 | str
    tools: list[ResponseTool]
    top_p: float | None
    metadata: ResponseObjectMetadata
    completed_at: int | None | Unset = UNSET
    background: bool | Unset = UNSET
    max_output_tokens: int | None | Unset = UNSET
    max_tool_calls: int | None | Unset = UNSET
    previous_response_id: None | str | Unset = UNSET
    reasoning: ResponseObjectReasoning | Unset = UNSET
    service_tier: str | Unset = UNSET
    store: bool | Unset = UNSET
    text: ResponseObjectText | Unset = UNSET
    top_logprobs: int | None | Unset = UNSET
    truncation: ResponseObjectTruncation | Unset = UNSET
    usage: ResponseUsage | Unset = UNSET
    user: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.response_object_error_type_0 import ResponseObjectErrorType0  # noqa: PLC0415
        from ..models.response_object_incomplete_details_type_0 import ResponseObjectIncompleteDetailsType0  # noqa: PLC0415
        from ..models.response_object_tool_choice_type_1 import ResponseObjectToolChoiceType1  # noqa: PLC0415
        from ..models.response_output_message import ResponseOutputMessage  # noqa: PLC0415
        from ..models.response_reasoning_item import ResponseReasoningItem  # noqa: PLC0415

        id = self.id

        object_ = self.object_.value

        created_at = self.created_at

        status = self.status.value

        error: dict[str, Any] | None
        if isinstance(self.error, ResponseObjectErrorType0):
            error = self.error.to_dict()
        else:
            error = self.error

        incomplete_details: dict[str, Any] | None
        if isinstance(self.incomplete_details, ResponseObjectIncompleteDetailsType0):
            incomplete_details = self.incomplete_details.to_dict()
        else:
            incomplete_details = self.incomplete_details

        instructions: None | str
        instructions = self.instructions

        model = self.model

        output = []
        for output_item_data in self.output:
            output_item: dict[str, Any]
            if isinstance(output_item_data, ResponseOutputMessage):
                output_item = output_item_data.to_dict()
            elif isinstance(output_item_data, ResponseReasoningItem):
                output_item = output_item_data.to_dict()
            else:
                output_item = output_item_data.to_dict()

            output.append(output_item)

        parallel_tool_calls = self.parallel_tool_calls

        temperature: float | None
        temperature = self.temperature

        tool_choice: dict[str, Any] | str
        if isinstance(self.tool_choice, ResponseObjectToolChoiceType1):
            tool_choice = self.tool_choice.to_dict()
        else:
            tool_choice = self.tool_choice

        tools = []
        for tools_item_data in self.tools:
            tools_item = tools_item_data.to_dict()
            tools.append(tools_item)

        top_p: float | None
        top_p = self.top_p

        metadata = self.metadata.to_dict()

        completed_at: int | None | Unset
        if isinstance(self.completed_at, Unset):
            completed_at = UNSET
        else:
            completed_at = self.completed_at

        background = self.background

        max_output_tokens: int | None | Unset
        if isinstance(self.max_output_tokens, Unset):
            max_output_tokens = UNSET
        else:
            max_output_tokens = self.max_output_tokens

        max_tool_calls: int | None | Unset
        if isinstance(self.max_tool_calls, Unset):
            max_tool_calls = UNSET
        else:
            max_tool_calls = self.max_tool_calls

        previous_response_id: None | str | Unset
        if isinstance(self.previous_response_id, Unset):
            previous_response_id = UNSET
        else:
            previous_response_id = self.previous_response_id

        reasoning: dict[str, Any] | Unset = UNSET
        if not isinstance(self.reasoning, Unset):
            reasoning = self.reasoning.to_dict()

        service_tier = self.service_tier

        store = self.store

        text: dict[str, Any] | Unset = UNSET
        if not isinstance(self.text, Unset):
            text = self.text.to_dict()

        top_logprobs: int | None | Unset
        if isinstance(self.top_logprobs, Unset):
            top_logprobs = UNSET
        else:
            top_logprobs = self.top_logprobs

        truncation: str | Unset = UNSET
        if not isinstance(self.truncation, Unset):
            truncation = self.truncation.value

        usage: dict[str, Any] | Unset = UNSET
        if not isinstance(self.usage, Unset):
            usage = self.usage.to_dict()

        user = self.user

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "object": object_,
                "created_at": created_at,
                "status": status,
                "error": error,
                "incomplete_details": incomplete_details,
                "instructions": instructions,
                "model": model,
                "output": output,
                "parallel_tool_calls": parallel_tool_calls,
                "temperature": temperature,
                "tool_choice": tool_choice,
                "tools": tools,
                "top_p": top_p,
                "metadata": metadata,
            }
        )
        if completed_at is not UNSET:
            field_dict["completed_at"] = completed_at
        if background is not UNSET:
            field_dict["background"] = background
        if max_output_tokens is not UNSET:
            field_dict["max_output_tokens"] = max_output_tokens
        if max_tool_calls is not UNSET:
            field_dict["max_tool_calls"] = max_tool_calls
        if previous_response_id is not UNSET:
            field_dict["previous_response_id"] = previous_response_id
        if reasoning is not UNSET:
            field_dict["reasoning"] = reasoning
        if service_tier is not UNSET:
            field_dict["service_tier"] = service_tier
        if store is not UNSET:
            field_dict["store"] = store
        if text is not UNSET:
            field_dict["text"] = text
        if top_logprobs is not UNSET:
            field_dict["top_logprobs"] = top_logprobs
        if truncation is not UNSET:
            field_dict["truncation"] = truncation
        if usage is not UNSET:
            field_dict["usage"] = usage
        if user is not UNSET:
            field_dict["user"] = user

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.response_function_call import ResponseFunctionCall  # noqa: PLC0415
        from ..models.response_object_error_type_0 import ResponseObjectErrorType0  # noqa: PLC0415
        from ..models.response_object_incomplete_details_type_0 import ResponseObjectIncompleteDetailsType0  # noqa: PLC0415
        from ..models.response_object_metadata import ResponseObjectMetadata  # noqa: PLC0415
        from ..models.response_object_reasoning import ResponseObjectReasoning  # noqa: PLC0415
        from ..models.response_object_text import ResponseObjectText  # noqa: PLC0415
        from ..models.response_object_tool_choice_type_1 import ResponseObjectToolChoiceType1  # noqa: PLC0415
        from ..models.response_output_message import ResponseOutputMessage  # noqa: PLC0415
        from ..models.response_reasoning_item import ResponseReasoningItem  # noqa: PLC0415
        from ..models.response_tool import ResponseTool  # noqa: PLC0415
        from ..models.response_usage import ResponseUsage  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        object_ = ResponseObjectObject(d.pop("object"))

        created_at = d.pop("created_at")

        status = ResponseObjectStatus(d.pop("status"))

        def _parse_error(data: object) -> None | ResponseObjectErrorType0:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                error_type_0 = ResponseObjectErrorType0.from_dict(data)

                return error_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ResponseObjectErrorType0, data)

        error = _parse_error(d.pop("error"))

        def _parse_incomplete_details(data: object) -> None | ResponseObjectIncompleteDetailsType0:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                incomplete_details_type_0 = ResponseObjectIncompleteDetailsType0.from_dict(data)

                return incomplete_details_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ResponseObjectIncompleteDetailsType0, data)

        incomplete_details = _parse_incomplete_details(d.pop("incomplete_details"))

        def _parse_instructions(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        instructions = _parse_instructions(d.pop("instructions"))

        model = d.pop("model")

        output = []
        _output = d.pop("output")
        for output_item_data in _output:

            def _parse_output_item(
                data: object,
            ) -> ResponseFunctionCall | ResponseOutputMessage | ResponseReasoningItem:
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

            output_item = _parse_output_item(output_item_data)

            output.append(output_item)

        parallel_tool_calls = d.pop("parallel_tool_calls")

        def _parse_temperature(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        temperature = _parse_temperature(d.pop("temperature"))

        def _parse_tool_choice(data: object) -> ResponseObjectToolChoiceType1 | str:
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                tool_choice_type_1 = ResponseObjectToolChoiceType1.from_dict(data)

                return tool_choice_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ResponseObjectToolChoiceType1 | str, data)

        tool_choice = _parse_tool_choice(d.pop("tool_choice"))

        tools = []
        _tools = d.pop("tools")
        for tools_item_data in _tools:
            tools_item = ResponseTool.from_dict(tools_item_data)

            tools.append(tools_item)

        def _parse_top_p(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        top_p = _parse_top_p(d.pop("top_p"))

        metadata = ResponseObjectMetadata.from_dict(d.pop("metadata"))

        def _parse_completed_at(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        completed_at = _parse_completed_at(d.pop("completed_at", UNSET))

        background = d.pop("background", UNSET)

        def _parse_max_output_tokens(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_output_tokens = _parse_max_output_tokens(d.pop("max_output_tokens", UNSET))

        def _parse_max_tool_calls(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_tool_calls = _parse_max_tool_calls(d.pop("max_tool_calls", UNSET))

        def _parse_previous_response_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        previous_response_id = _parse_previous_response_id(d.pop("previous_response_id", UNSET))

        _reasoning = d.pop("reasoning", UNSET)
        reasoning: ResponseObjectReasoning | Unset
        if isinstance(_reasoning, Unset):
            reasoning = UNSET
        else:
            reasoning = ResponseObjectReasoning.from_dict(_reasoning)

        service_tier = d.pop("service_tier", UNSET)

        store = d.pop("store", UNSET)

        _text = d.pop("text", UNSET)
        text: ResponseObjectText | Unset
        if isinstance(_text, Unset):
            text = UNSET
        else:
            text = ResponseObjectText.from_dict(_text)

        def _parse_top_logprobs(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        top_logprobs = _parse_top_logprobs(d.pop("top_logprobs", UNSET))

        _truncation = d.pop("truncation", UNSET)
        truncation: ResponseObjectTruncation | Unset
        if isinstance(_truncation, Unset):
            truncation = UNSET
        else:
            truncation = ResponseObjectTruncation(_truncation)

        _usage = d.pop("usage", UNSET)
        usage: ResponseUsage | Unset
        if isinstance(_usage, Unset):
            usage = UNSET
        else:
            usage = ResponseUsage.from_dict(_usage)

        user = d.pop("user", UNSET)

        response_object = cls(
            id=id,
            object_=object_,
            created_at=created_at,
            status=status,
            error=error,
            incomplete_details=incomplete_details,
            instructions=instructions,
            model=model,
            output=output,
            parallel_tool_calls=parallel_tool_calls,
            temperature=temperature,
            tool_choice=tool_choice,
            tools=tools,
            top_p=top_p,
            metadata=metadata,
            completed_at=completed_at,
            background=background,
            max_output_tokens=max_output_tokens,
            max_tool_calls=max_tool_calls,
            previous_response_id=previous_response_id,
            reasoning=reasoning,
            service_tier=service_tier,
            store=store,
            text=text,
            top_logprobs=top_logprobs,
            truncation=truncation,
            usage=usage,
            user=user,
        )

        response_object.additional_properties = d
        return response_object

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
