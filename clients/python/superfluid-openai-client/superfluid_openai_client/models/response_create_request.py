from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.response_create_request_tool_choice_type_0 import ResponseCreateRequestToolChoiceType0
from ..models.response_create_request_truncation import ResponseCreateRequestTruncation
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.response_create_request_chat_template_kwargs_type_0 import (
        ResponseCreateRequestChatTemplateKwargsType0,
    )
    from ..models.response_create_request_conversation_type_1 import ResponseCreateRequestConversationType1
    from ..models.response_create_request_metadata_type_0 import ResponseCreateRequestMetadataType0
    from ..models.response_create_request_prompt_type_0 import ResponseCreateRequestPromptType0
    from ..models.response_create_request_reasoning_type_0 import ResponseCreateRequestReasoningType0
    from ..models.response_create_request_text_type_0 import ResponseCreateRequestTextType0
    from ..models.response_create_request_tool_choice_type_1 import ResponseCreateRequestToolChoiceType1
    from ..models.response_input_item import ResponseInputItem
    from ..models.response_tool import ResponseTool
    from ..models.sampling_fields_stream_options_type_0 import SamplingFieldsStreamOptionsType0


T = TypeVar("T", bound="ResponseCreateRequest")


@_attrs_define
class ResponseCreateRequest:
    """
    Attributes:
        model (str):
        temperature (float | None | Unset):
        top_p (float | None | Unset):
        top_k (int | None | Unset):
        min_p (float | None | Unset):
        seed (int | None | Unset): 0 or absent draws a fresh seed per request.
        presence_penalty (float | None | Unset):
        frequency_penalty (float | None | Unset):
        repeat_penalty (float | None | Unset):
        repetition_penalty (float | None | Unset):
        ignore_eos (bool | None | Unset):
        stream (bool | None | Unset):
        stream_options (None | SamplingFieldsStreamOptionsType0 | Unset):
        input_ (list[ResponseInputItem] | str | Unset): A user message as a string, or items (messages, function_call,
            function_call_output, reasoning).
        instructions (None | str | Unset): A system message for this response only (not carried to a continuation).
        previous_response_id (None | str | Unset): A stored response whose input and output items come before this input
            (404 if not stored).
        max_output_tokens (int | None | Unset):
        store (bool | None | Unset): Default true.
        tools (list[ResponseTool] | None | Unset):
        tool_choice (None | ResponseCreateRequestToolChoiceType0 | ResponseCreateRequestToolChoiceType1 | Unset):
        parallel_tool_calls (bool | None | Unset): Default true.
        text (None | ResponseCreateRequestTextType0 | Unset):
        reasoning (None | ResponseCreateRequestReasoningType0 | Unset):
        metadata (None | ResponseCreateRequestMetadataType0 | Unset):
        truncation (ResponseCreateRequestTruncation | Unset): disabled (default): a prompt over the context window is a
            400; auto: drop the oldest turns.
        include (list[str] | None | Unset): message.output_text.logprobs turns log probabilities on; other values are
            ignored.
        top_logprobs (int | None | Unset):
        user (None | str | Unset):
        background (bool | None | Unset): Not served: true is a 400.
        conversation (None | ResponseCreateRequestConversationType1 | str | Unset): Not served (a 400); chain responses
            with previous_response_id.
        prompt (None | ResponseCreateRequestPromptType0 | Unset): Not served (a 400).
        enable_thinking (bool | None | Unset): superfluid extension, as in chat.
        chat_template_kwargs (None | ResponseCreateRequestChatTemplateKwargsType0 | Unset): superfluid extension, as in
            chat.
    """

    model: str
    temperature: float | None | Unset = UNSET
    top_p: float | None | Unset = UNSET
    top_k: int | None | Unset = UNSET
    min_p: float | None | Unset = UNSET
    seed: int | None | Unset = UNSET
    presence_penalty: float | None | Unset = UNSET
    frequency_penalty: float | None | Unset = UNSET
    repeat_penalty: float | None | Unset = UNSET
    repetition_penalty: float | None | Unset = UNSET
    ignore_eos: bool | None | Unset = UNSET
    stream: bool | None | Unset = UNSET
    stream_options: None | SamplingFieldsStreamOptionsType0 | Unset = UNSET
    input_: list[ResponseInputItem] | str | Unset = UNSET
    instructions: None | str | Unset = UNSET
    previous_response_id: None | str | Unset = UNSET
    max_output_tokens: int | None | Unset = UNSET
    store: bool | None | Unset = UNSET
    tools: list[ResponseTool] | None | Unset = UNSET
    tool_choice: None | ResponseCreateRequestToolChoiceType0 | ResponseCreateRequestToolChoiceType1 | Unset = UNSET
    parallel_tool_calls: bool | None | Unset = UNSET
    text: None | ResponseCreateRequestTextType0 | Unset = UNSET
    reasoning: None | ResponseCreateRequestReasoningType0 | Unset = UNSET
    metadata: None | ResponseCreateRequestMetadataType0 | Unset = UNSET
    truncation: ResponseCreateRequestTruncation | Unset = UNSET
    include: list[str] | None | Unset = UNSET
    top_logprobs: int | None | Unset = UNSET
    user: None | str | Unset = UNSET
    background: bool | None | Unset = UNSET
    conversation: None | ResponseCreateRequestConversationType1 | str | Unset = UNSET
    prompt: None | ResponseCreateRequestPromptType0 | Unset = UNSET
    enable_thinking: bool | None | Unset = UNSET
    chat_template_kwargs: None | ResponseCreateRequestChatTemplateKwargsType0 | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.response_create_request_chat_template_kwargs_type_0 import (
            ResponseCreateRequestChatTemplateKwargsType0,  # noqa: PLC0415
        )
        from ..models.response_create_request_conversation_type_1 import ResponseCreateRequestConversationType1  # noqa: PLC0415
        from ..models.response_create_request_metadata_type_0 import ResponseCreateRequestMetadataType0  # noqa: PLC0415
        from ..models.response_create_request_prompt_type_0 import ResponseCreateRequestPromptType0  # noqa: PLC0415
        from ..models.response_create_request_reasoning_type_0 import ResponseCreateRequestReasoningType0  # noqa: PLC0415
        from ..models.response_create_request_text_type_0 import ResponseCreateRequestTextType0  # noqa: PLC0415
        from ..models.response_create_request_tool_choice_type_1 import ResponseCreateRequestToolChoiceType1  # noqa: PLC0415
        from ..models.sampling_fields_stream_options_type_0 import SamplingFieldsStreamOptionsType0  # noqa: PLC0415

        model = self.model

        temperature: float | None | Unset
        if isinstance(self.temperature, Unset):
            temperature = UNSET
        else:
            temperature = self.temperature

        top_p: float | None | Unset
        if isinstance(self.top_p, Unset):
            top_p = UNSET
        else:
            top_p = self.top_p

        top_k: int | None | Unset
        if isinstance(self.top_k, Unset):
            top_k = UNSET
        else:
            top_k = self.top_k

        min_p: float | None | Unset
        if isinstance(self.min_p, Unset):
            min_p = UNSET
        else:
            min_p = self.min_p

        seed: int | None | Unset
        if isinstance(self.seed, Unset):
            seed = UNSET
        else:
            seed = self.seed

        presence_penalty: float | None | Unset
        if isinstance(self.presence_penalty, Unset):
            presence_penalty = UNSET
        else:
            presence_penalty = self.presence_penalty

        frequency_penalty: float | None | Unset
        if isinstance(self.frequency_penalty, Unset):
            frequency_penalty = UNSET
        else:
            frequency_penalty = self.frequency_penalty

        repeat_penalty: float | None | Unset
        if isinstance(self.repeat_penalty, Unset):
            repeat_penalty = UNSET
        else:
            repeat_penalty = self.repeat_penalty

        repetition_penalty: float | None | Unset
        if isinstance(self.repetition_penalty, Unset):
            repetition_penalty = UNSET
        else:
            repetition_penalty = self.repetition_penalty

        ignore_eos: bool | None | Unset
        if isinstance(self.ignore_eos, Unset):
            ignore_eos = UNSET
        else:
            ignore_eos = self.ignore_eos

        stream: bool | None | Unset
        if isinstance(self.stream, Unset):
            stream = UNSET
        else:
            stream = self.stream

        stream_options: dict[str, Any] | None | Unset
        if isinstance(self.stream_options, Unset):
            stream_options = UNSET
        elif isinstance(self.stream_options, SamplingFieldsStreamOptionsType0):
            stream_options = self.stream_options.to_dict()
        else:
            stream_options = self.stream_options

        input_: list[dict[str, Any]] | str | Unset
        if isinstance(self.input_, Unset):
            input_ = UNSET
        elif isinstance(self.input_, list):
            input_ = []
            for input_type_1_item_data in self.input_:
                input_type_1_item = input_type_1_item_data.to_dict()
                input_.append(input_type_1_item)

        else:
            input_ = self.input_

        instructions: None | str | Unset
        if isinstance(self.instructions, Unset):
            instructions = UNSET
        else:
            instructions = self.instructions

        previous_response_id: None | str | Unset
        if isinstance(self.previous_response_id, Unset):
            previous_response_id = UNSET
        else:
            previous_response_id = self.previous_response_id

        max_output_tokens: int | None | Unset
        if isinstance(self.max_output_tokens, Unset):
            max_output_tokens = UNSET
        else:
            max_output_tokens = self.max_output_tokens

        store: bool | None | Unset
        if isinstance(self.store, Unset):
            store = UNSET
        else:
            store = self.store

        tools: list[dict[str, Any]] | None | Unset
        if isinstance(self.tools, Unset):
            tools = UNSET
        elif isinstance(self.tools, list):
            tools = []
            for tools_type_0_item_data in self.tools:
                tools_type_0_item = tools_type_0_item_data.to_dict()
                tools.append(tools_type_0_item)

        else:
            tools = self.tools

        tool_choice: dict[str, Any] | None | str | Unset
        if isinstance(self.tool_choice, Unset):
            tool_choice = UNSET
        elif isinstance(self.tool_choice, ResponseCreateRequestToolChoiceType0):
            tool_choice = self.tool_choice.value
        elif isinstance(self.tool_choice, ResponseCreateRequestToolChoiceType1):
            tool_choice = self.tool_choice.to_dict()
        else:
            tool_choice = self.tool_choice

        parallel_tool_calls: bool | None | Unset
        if isinstance(self.parallel_tool_calls, Unset):
            parallel_tool_calls = UNSET
        else:
            parallel_tool_calls = self.parallel_tool_calls

        text: dict[str, Any] | None | Unset
        if isinstance(self.text, Unset):
            text = UNSET
        elif isinstance(self.text, ResponseCreateRequestTextType0):
            text = self.text.to_dict()
        else:
            text = self.text

        reasoning: dict[str, Any] | None | Unset
        if isinstance(self.reasoning, Unset):
            reasoning = UNSET
        elif isinstance(self.reasoning, ResponseCreateRequestReasoningType0):
            reasoning = self.reasoning.to_dict()
        else:
            reasoning = self.reasoning

        metadata: dict[str, Any] | None | Unset
        if isinstance(self.metadata, Unset):
            metadata = UNSET
        elif isinstance(self.metadata, ResponseCreateRequestMetadataType0):
            metadata = self.metadata.to_dict()
        else:
            metadata = self.metadata

        truncation: str | Unset = UNSET
        if not isinstance(self.truncation, Unset):
            truncation = self.truncation.value

        include: list[str] | None | Unset
        if isinstance(self.include, Unset):
            include = UNSET
        elif isinstance(self.include, list):
            include = self.include

        else:
            include = self.include

        top_logprobs: int | None | Unset
        if isinstance(self.top_logprobs, Unset):
            top_logprobs = UNSET
        else:
            top_logprobs = self.top_logprobs

        user: None | str | Unset
        if isinstance(self.user, Unset):
            user = UNSET
        else:
            user = self.user

        background: bool | None | Unset
        if isinstance(self.background, Unset):
            background = UNSET
        else:
            background = self.background

        conversation: dict[str, Any] | None | str | Unset
        if isinstance(self.conversation, Unset):
            conversation = UNSET
        elif isinstance(self.conversation, ResponseCreateRequestConversationType1):
            conversation = self.conversation.to_dict()
        else:
            conversation = self.conversation

        prompt: dict[str, Any] | None | Unset
        if isinstance(self.prompt, Unset):
            prompt = UNSET
        elif isinstance(self.prompt, ResponseCreateRequestPromptType0):
            prompt = self.prompt.to_dict()
        else:
            prompt = self.prompt

        enable_thinking: bool | None | Unset
        if isinstance(self.enable_thinking, Unset):
            enable_thinking = UNSET
        else:
            enable_thinking = self.enable_thinking

        chat_template_kwargs: dict[str, Any] | None | Unset
        if isinstance(self.chat_template_kwargs, Unset):
            chat_template_kwargs = UNSET
        elif isinstance(self.chat_template_kwargs, ResponseCreateRequestChatTemplateKwargsType0):
            chat_template_kwargs = self.chat_template_kwargs.to_dict()
        else:
            chat_template_kwargs = self.chat_template_kwargs

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "model": model,
            }
        )
        if temperature is not UNSET:
            field_dict["temperature"] = temperature
        if top_p is not UNSET:
            field_dict["top_p"] = top_p
        if top_k is not UNSET:
            field_dict["top_k"] = top_k
        if min_p is not UNSET:
            field_dict["min_p"] = min_p
        if seed is not UNSET:
            field_dict["seed"] = seed
        if presence_penalty is not UNSET:
            field_dict["presence_penalty"] = presence_penalty
        if frequency_penalty is not UNSET:
            field_dict["frequency_penalty"] = frequency_penalty
        if repeat_penalty is not UNSET:
            field_dict["repeat_penalty"] = repeat_penalty
        if repetition_penalty is not UNSET:
            field_dict["repetition_penalty"] = repetition_penalty
        if ignore_eos is not UNSET:
            field_dict["ignore_eos"] = ignore_eos
        if stream is not UNSET:
            field_dict["stream"] = stream
        if stream_options is not UNSET:
            field_dict["stream_options"] = stream_options
        if input_ is not UNSET:
            field_dict["input"] = input_
        if instructions is not UNSET:
            field_dict["instructions"] = instructions
        if previous_response_id is not UNSET:
            field_dict["previous_response_id"] = previous_response_id
        if max_output_tokens is not UNSET:
            field_dict["max_output_tokens"] = max_output_tokens
        if store is not UNSET:
            field_dict["store"] = store
        if tools is not UNSET:
            field_dict["tools"] = tools
        if tool_choice is not UNSET:
            field_dict["tool_choice"] = tool_choice
        if parallel_tool_calls is not UNSET:
            field_dict["parallel_tool_calls"] = parallel_tool_calls
        if text is not UNSET:
            field_dict["text"] = text
        if reasoning is not UNSET:
            field_dict["reasoning"] = reasoning
        if metadata is not UNSET:
            field_dict["metadata"] = metadata
        if truncation is not UNSET:
            field_dict["truncation"] = truncation
        if include is not UNSET:
            field_dict["include"] = include
        if top_logprobs is not UNSET:
            field_dict["top_logprobs"] = top_logprobs
        if user is not UNSET:
            field_dict["user"] = user
        if background is not UNSET:
            field_dict["background"] = background
        if conversation is not UNSET:
            field_dict["conversation"] = conversation
        if prompt is not UNSET:
            field_dict["prompt"] = prompt
        if enable_thinking is not UNSET:
            field_dict["enable_thinking"] = enable_thinking
        if chat_template_kwargs is not UNSET:
            field_dict["chat_template_kwargs"] = chat_template_kwargs

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.response_create_request_chat_template_kwargs_type_0 import (
            ResponseCreateRequestChatTemplateKwargsType0,  # noqa: PLC0415
        )
        from ..models.response_create_request_conversation_type_1 import ResponseCreateRequestConversationType1  # noqa: PLC0415
        from ..models.response_create_request_metadata_type_0 import ResponseCreateRequestMetadataType0  # noqa: PLC0415
        from ..models.response_create_request_prompt_type_0 import ResponseCreateRequestPromptType0  # noqa: PLC0415
        from ..models.response_create_request_reasoning_type_0 import ResponseCreateRequestReasoningType0  # noqa: PLC0415
        from ..models.response_create_request_text_type_0 import ResponseCreateRequestTextType0  # noqa: PLC0415
        from ..models.response_create_request_tool_choice_type_1 import ResponseCreateRequestToolChoiceType1  # noqa: PLC0415
        from ..models.response_input_item import ResponseInputItem  # noqa: PLC0415
        from ..models.response_tool import ResponseTool  # noqa: PLC0415
        from ..models.sampling_fields_stream_options_type_0 import SamplingFieldsStreamOptionsType0  # noqa: PLC0415

        d = dict(src_dict)
        model = d.pop("model")

        def _parse_temperature(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        temperature = _parse_temperature(d.pop("temperature", UNSET))

        def _parse_top_p(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        top_p = _parse_top_p(d.pop("top_p", UNSET))

        def _parse_top_k(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        top_k = _parse_top_k(d.pop("top_k", UNSET))

        def _parse_min_p(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        min_p = _parse_min_p(d.pop("min_p", UNSET))

        def _parse_seed(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        seed = _parse_seed(d.pop("seed", UNSET))

        def _parse_presence_penalty(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        presence_penalty = _parse_presence_penalty(d.pop("presence_penalty", UNSET))

        def _parse_frequency_penalty(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        frequency_penalty = _parse_frequency_penalty(d.pop("frequency_penalty", UNSET))

        def _parse_repeat_penalty(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        repeat_penalty = _parse_repeat_penalty(d.pop("repeat_penalty", UNSET))

        def _parse_repetition_penalty(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        repetition_penalty = _parse_repetition_penalty(d.pop("repetition_penalty", UNSET))

        def _parse_ignore_eos(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        ignore_eos = _parse_ignore_eos(d.pop("ignore_eos", UNSET))

        def _parse_stream(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        stream = _parse_stream(d.pop("stream", UNSET))

        def _parse_stream_options(data: object) -> None | SamplingFieldsStreamOptionsType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                stream_options_type_0 = SamplingFieldsStreamOptionsType0.from_dict(data)

                return stream_options_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SamplingFieldsStreamOptionsType0 | Unset, data)

        stream_options = _parse_stream_options(d.pop("stream_options", UNSET))

        def _parse_input_(data: object) -> list[ResponseInputItem] | str | Unset:
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                input_type_1 = []
                _input_type_1 = data
                for input_type_1_item_data in _input_type_1:
                    input_type_1_item = ResponseInputItem.from_dict(input_type_1_item_data)

                    input_type_1.append(input_type_1_item)

                return input_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[ResponseInputItem] | str | Unset, data)

        input_ = _parse_input_(d.pop("input", UNSET))

        def _parse_instructions(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        instructions = _parse_instructions(d.pop("instructions", UNSET))

        def _parse_previous_response_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        previous_response_id = _parse_previous_response_id(d.pop("previous_response_id", UNSET))

        def _parse_max_output_tokens(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_output_tokens = _parse_max_output_tokens(d.pop("max_output_tokens", UNSET))

        def _parse_store(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        store = _parse_store(d.pop("store", UNSET))

        def _parse_tools(data: object) -> list[ResponseTool] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                tools_type_0 = []
                _tools_type_0 = data
                for tools_type_0_item_data in _tools_type_0:
                    tools_type_0_item = ResponseTool.from_dict(tools_type_0_item_data)

                    tools_type_0.append(tools_type_0_item)

                return tools_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[ResponseTool] | None | Unset, data)

        tools = _parse_tools(d.pop("tools", UNSET))

        def _parse_tool_choice(
            data: object,
        ) -> None | ResponseCreateRequestToolChoiceType0 | ResponseCreateRequestToolChoiceType1 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                tool_choice_type_0 = ResponseCreateRequestToolChoiceType0(data)

                return tool_choice_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                tool_choice_type_1 = ResponseCreateRequestToolChoiceType1.from_dict(data)

                return tool_choice_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(
                None | ResponseCreateRequestToolChoiceType0 | ResponseCreateRequestToolChoiceType1 | Unset, data
            )

        tool_choice = _parse_tool_choice(d.pop("tool_choice", UNSET))

        def _parse_parallel_tool_calls(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        parallel_tool_calls = _parse_parallel_tool_calls(d.pop("parallel_tool_calls", UNSET))

        def _parse_text(data: object) -> None | ResponseCreateRequestTextType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                text_type_0 = ResponseCreateRequestTextType0.from_dict(data)

                return text_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ResponseCreateRequestTextType0 | Unset, data)

        text = _parse_text(d.pop("text", UNSET))

        def _parse_reasoning(data: object) -> None | ResponseCreateRequestReasoningType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                reasoning_type_0 = ResponseCreateRequestReasoningType0.from_dict(data)

                return reasoning_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ResponseCreateRequestReasoningType0 | Unset, data)

        reasoning = _parse_reasoning(d.pop("reasoning", UNSET))

        def _parse_metadata(data: object) -> None | ResponseCreateRequestMetadataType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                metadata_type_0 = ResponseCreateRequestMetadataType0.from_dict(data)

                return metadata_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ResponseCreateRequestMetadataType0 | Unset, data)

        metadata = _parse_metadata(d.pop("metadata", UNSET))

        _truncation = d.pop("truncation", UNSET)
        truncation: ResponseCreateRequestTruncation | Unset
        if isinstance(_truncation, Unset):
            truncation = UNSET
        else:
            truncation = ResponseCreateRequestTruncation(_truncation)

        def _parse_include(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                include_type_0 = cast(list[str], data)

                return include_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        include = _parse_include(d.pop("include", UNSET))

        def _parse_top_logprobs(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        top_logprobs = _parse_top_logprobs(d.pop("top_logprobs", UNSET))

        def _parse_user(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        user = _parse_user(d.pop("user", UNSET))

        def _parse_background(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        background = _parse_background(d.pop("background", UNSET))

        def _parse_conversation(data: object) -> None | ResponseCreateRequestConversationType1 | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                conversation_type_1 = ResponseCreateRequestConversationType1.from_dict(data)

                return conversation_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ResponseCreateRequestConversationType1 | str | Unset, data)

        conversation = _parse_conversation(d.pop("conversation", UNSET))

        def _parse_prompt(data: object) -> None | ResponseCreateRequestPromptType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                prompt_type_0 = ResponseCreateRequestPromptType0.from_dict(data)

                return prompt_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ResponseCreateRequestPromptType0 | Unset, data)

        prompt = _parse_prompt(d.pop("prompt", UNSET))

        def _parse_enable_thinking(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        enable_thinking = _parse_enable_thinking(d.pop("enable_thinking", UNSET))

        def _parse_chat_template_kwargs(data: object) -> None | ResponseCreateRequestChatTemplateKwargsType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                chat_template_kwargs_type_0 = ResponseCreateRequestChatTemplateKwargsType0.from_dict(data)

                return chat_template_kwargs_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ResponseCreateRequestChatTemplateKwargsType0 | Unset, data)

        chat_template_kwargs = _parse_chat_template_kwargs(d.pop("chat_template_kwargs", UNSET))

        response_create_request = cls(
            model=model,
            temperature=temperature,
            top_p=top_p,
            top_k=top_k,
            min_p=min_p,
            seed=seed,
            presence_penalty=presence_penalty,
            frequency_penalty=frequency_penalty,
            repeat_penalty=repeat_penalty,
            repetition_penalty=repetition_penalty,
            ignore_eos=ignore_eos,
            stream=stream,
            stream_options=stream_options,
            input_=input_,
            instructions=instructions,
            previous_response_id=previous_response_id,
            max_output_tokens=max_output_tokens,
            store=store,
            tools=tools,
            tool_choice=tool_choice,
            parallel_tool_calls=parallel_tool_calls,
            text=text,
            reasoning=reasoning,
            metadata=metadata,
            truncation=truncation,
            include=include,
            top_logprobs=top_logprobs,
            user=user,
            background=background,
            conversation=conversation,
            prompt=prompt,
            enable_thinking=enable_thinking,
            chat_template_kwargs=chat_template_kwargs,
        )

        response_create_request.additional_properties = d
        return response_create_request

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
