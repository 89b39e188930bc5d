from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.chat_completion_request_reasoning_effort import ChatCompletionRequestReasoningEffort
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.chat_completion_request_chat_template_kwargs_type_0 import (
        ChatCompletionRequestChatTemplateKwargsType0,
    )
    from ..models.chat_completion_request_logit_bias_type_0 import ChatCompletionRequestLogitBiasType0
    from ..models.chat_completion_request_response_format_type_0 import ChatCompletionRequestResponseFormatType0
    from ..models.chat_completion_request_tool_choice_type_1 import ChatCompletionRequestToolChoiceType1
    from ..models.chat_completion_request_tools_type_0_item import ChatCompletionRequestToolsType0Item
    from ..models.chat_message import ChatMessage
    from ..models.sampling_fields_stream_options_type_0 import SamplingFieldsStreamOptionsType0


T = TypeVar("T", bound="ChatCompletionRequest")


@_attrs_define
class ChatCompletionRequest:
    """
    Attributes:
        model (str):
        messages (list[ChatMessage]):
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
        max_tokens (int | None | Unset):
        max_completion_tokens (int | None | Unset):
        n (int | None | Unset):
        stop (list[str] | None | str | Unset): Up to four strings; generation stops before any of them and they are not
            returned.
        logprobs (bool | None | Unset):
        top_logprobs (int | None | Unset):
        logit_bias (ChatCompletionRequestLogitBiasType0 | None | Unset):
        chat_template_kwargs (ChatCompletionRequestChatTemplateKwargsType0 | None | Unset):
        enable_thinking (bool | None | Unset):
        reasoning_effort (ChatCompletionRequestReasoningEffort | Unset): OpenAI's levels. The chat template gets the
            level where it reads reasoning_effort; an unknown level is a 400 naming the field on every model.
        tools (list[ChatCompletionRequestToolsType0Item] | None | Unset):
        tool_choice (ChatCompletionRequestToolChoiceType1 | None | str | Unset):
        parallel_tool_calls (bool | None | Unset):
        response_format (ChatCompletionRequestResponseFormatType0 | None | Unset):
    """

    model: str
    messages: list[ChatMessage]
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
    max_tokens: int | None | Unset = UNSET
    max_completion_tokens: int | None | Unset = UNSET
    n: int | None | Unset = UNSET
    stop: list[str] | None | str | Unset = UNSET
    logprobs: bool | None | Unset = UNSET
    top_logprobs: int | None | Unset = UNSET
    logit_bias: ChatCompletionRequestLogitBiasType0 | None | Unset = UNSET
    chat_template_kwargs: ChatCompletionRequestChatTemplateKwargsType0 | None | Unset = UNSET
    enable_thinking: bool | None | Unset = UNSET
    reasoning_effort: ChatCompletionRequestReasoningEffort | Unset = UNSET
    tools: list[ChatCompletionRequestToolsType0Item] | None | Unset = UNSET
    tool_choice: ChatCompletionRequestToolChoiceType1 | None | str | Unset = UNSET
    parallel_tool_calls: bool | None | Unset = UNSET
    response_format: ChatCompletionRequestResponseFormatType0 | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.chat_completion_request_chat_template_kwargs_type_0 import (
            ChatCompletionRequestChatTemplateKwargsType0,  # noqa: PLC0415
        )
        from ..models.chat_completion_request_logit_bias_type_0 import ChatCompletionRequestLogitBiasType0  # noqa: PLC0415
        from ..models.chat_completion_request_response_format_type_0 import ChatCompletionRequestResponseFormatType0  # noqa: PLC0415
        from ..models.chat_completion_request_tool_choice_type_1 import ChatCompletionRequestToolChoiceType1  # noqa: PLC0415
        from ..models.sampling_fields_stream_options_type_0 import SamplingFieldsStreamOptionsType0  # noqa: PLC0415

        model = self.model

        messages = []
        for messages_item_data in self.messages:
            messages_item = messages_item_data.to_dict()
            messages.append(messages_item)

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

        max_tokens: int | None | Unset
        if isinstance(self.max_tokens, Unset):
            max_tokens = UNSET
        else:
            max_tokens = self.max_tokens

        max_completion_tokens: int | None | Unset
        if isinstance(self.max_completion_tokens, Unset):
            max_completion_tokens = UNSET
        else:
            max_completion_tokens = self.max_completion_tokens

        n: int | None | Unset
        if isinstance(self.n, Unset):
            n = UNSET
        else:
            n = self.n

        stop: list[str] | None | str | Unset
        if isinstance(self.stop, Unset):
            stop = UNSET
        elif isinstance(self.stop, list):
            stop = self.stop

        else:
            stop = self.stop

        logprobs: bool | None | Unset
        if isinstance(self.logprobs, Unset):
            logprobs = UNSET
        else:
            logprobs = self.logprobs

        top_logprobs: int | None | Unset
        if isinstance(self.top_logprobs, Unset):
            top_logprobs = UNSET
        else:
            top_logprobs = self.top_logprobs

        logit_bias: dict[str, Any] | None | Unset
        if isinstance(self.logit_bias, Unset):
            logit_bias = UNSET
        elif isinstance(self.logit_bias, ChatCompletionRequestLogitBiasType0):
            logit_bias = self.logit_bias.to_dict()
        else:
            logit_bias = self.logit_bias

        chat_template_kwargs: dict[str, Any] | None | Unset
        if isinstance(self.chat_template_kwargs, Unset):
            chat_template_kwargs = UNSET
        elif isinstance(self.chat_template_kwargs, ChatCompletionRequestChatTemplateKwargsType0):
            chat_template_kwargs = self.chat_template_kwargs.to_dict()
        else:
            chat_template_kwargs = self.chat_template_kwargs

        enable_thinking: bool | None | Unset
        if isinstance(self.enable_thinking, Unset):
            enable_thinking = UNSET
        else:
            enable_thinking = self.enable_thinking

        reasoning_effort: str | Unset = UNSET
        if not isinstance(self.reasoning_effort, Unset):
            reasoning_effort = self.reasoning_effort.value

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
        elif isinstance(self.tool_choice, ChatCompletionRequestToolChoiceType1):
            tool_choice = self.tool_choice.to_dict()
        else:
            tool_choice = self.tool_choice

        parallel_tool_calls: bool | None | Unset
        if isinstance(self.parallel_tool_calls, Unset):
            parallel_tool_calls = UNSET
        else:
            parallel_tool_calls = self.parallel_tool_calls

        response_format: dict[str, Any] | None | Unset
        if isinstance(self.response_format, Unset):
            response_format = UNSET
        elif isinstance(self.response_format, ChatCompletionRequestResponseFormatType0):
            response_format = self.response_format.to_dict()
        else:
            response_format = self.response_format

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "model": model,
                "messages": messages,
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
        if max_tokens is not UNSET:
            field_dict["max_tokens"] = max_tokens
        if max_completion_tokens is not UNSET:
            field_dict["max_completion_tokens"] = max_completion_tokens
        if n is not UNSET:
            field_dict["n"] = n
        if stop is not UNSET:
            field_dict["stop"] = stop
        if logprobs is not UNSET:
            field_dict["logprobs"] = logprobs
        if top_logprobs is not UNSET:
            field_dict["top_logprobs"] = top_logprobs
        if logit_bias is not UNSET:
            field_dict["logit_bias"] = logit_bias
        if chat_template_kwargs is not UNSET:
            field_dict["chat_template_kwargs"] = chat_template_kwargs
        if enable_thinking is not UNSET:
            field_dict["enable_thinking"] = enable_thinking
        if reasoning_effort is not UNSET:
            field_dict["reasoning_effort"] = reasoning_effort
        if tools is not UNSET:
            field_dict["tools"] = tools
        if tool_choice is not UNSET:
            field_dict["tool_choice"] = tool_choice
        if parallel_tool_calls is not UNSET:
            field_dict["parallel_tool_calls"] = parallel_tool_calls
        if response_format is not UNSET:
            field_dict["response_format"] = response_format

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.chat_completion_request_chat_template_kwargs_type_0 import (
            ChatCompletionRequestChatTemplateKwargsType0,  # noqa: PLC0415
        )
        from ..models.chat_completion_request_logit_bias_type_0 import ChatCompletionRequestLogitBiasType0  # noqa: PLC0415
        from ..models.chat_completion_request_response_format_type_0 import ChatCompletionRequestResponseFormatType0  # noqa: PLC0415
        from ..models.chat_completion_request_tool_choice_type_1 import ChatCompletionRequestToolChoiceType1  # noqa: PLC0415
        from ..models.chat_completion_request_tools_type_0_item import ChatCompletionRequestToolsType0Item  # noqa: PLC0415
        from ..models.chat_message import ChatMessage  # noqa: PLC0415
        from ..models.sampling_fields_stream_options_type_0 import SamplingFieldsStreamOptionsType0  # noqa: PLC0415

        d = dict(src_dict)
        model = d.pop("model")

        messages = []
        _messages = d.pop("messages")
        for messages_item_data in _messages:
            messages_item = ChatMessage.from_dict(messages_item_data)

            messages.append(messages_item)

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

        def _parse_max_tokens(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_tokens = _parse_max_tokens(d.pop("max_tokens", UNSET))

        def _parse_max_completion_tokens(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_completion_tokens = _parse_max_completion_tokens(d.pop("max_completion_tokens", UNSET))

        def _parse_n(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        n = _parse_n(d.pop("n", UNSET))

        def _parse_stop(data: object) -> list[str] | None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                componentsschemas_stop_field_type_1 = cast(list[str], data)

                return componentsschemas_stop_field_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | str | Unset, data)

        stop = _parse_stop(d.pop("stop", UNSET))

        def _parse_logprobs(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        logprobs = _parse_logprobs(d.pop("logprobs", UNSET))

        def _parse_top_logprobs(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        top_logprobs = _parse_top_logprobs(d.pop("top_logprobs", UNSET))

        def _parse_logit_bias(data: object) -> ChatCompletionRequestLogitBiasType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                logit_bias_type_0 = ChatCompletionRequestLogitBiasType0.from_dict(data)

                return logit_bias_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ChatCompletionRequestLogitBiasType0 | None | Unset, data)

        logit_bias = _parse_logit_bias(d.pop("logit_bias", UNSET))

        def _parse_chat_template_kwargs(data: object) -> ChatCompletionRequestChatTemplateKwargsType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                chat_template_kwargs_type_0 = ChatCompletionRequestChatTemplateKwargsType0.from_dict(data)

                return chat_template_kwargs_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ChatCompletionRequestChatTemplateKwargsType0 | None | Unset, data)

        chat_template_kwargs = _parse_chat_template_kwargs(d.pop("chat_template_kwargs", UNSET))

        def _parse_enable_thinking(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        enable_thinking = _parse_enable_thinking(d.pop("enable_thinking", UNSET))

        _reasoning_effort = d.pop("reasoning_effort", UNSET)
        reasoning_effort: ChatCompletionRequestReasoningEffort | Unset
        if isinstance(_reasoning_effort, Unset):
            reasoning_effort = UNSET
        else:
            reasoning_effort = ChatCompletionRequestReasoningEffort(_reasoning_effort)

        def _parse_tools(data: object) -> list[ChatCompletionRequestToolsType0Item] | None | Unset:
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
                    tools_type_0_item = ChatCompletionRequestToolsType0Item.from_dict(tools_type_0_item_data)

                    tools_type_0.append(tools_type_0_item)

                return tools_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[ChatCompletionRequestToolsType0Item] | None | Unset, data)

        tools = _parse_tools(d.pop("tools", UNSET))

        def _parse_tool_choice(data: object) -> ChatCompletionRequestToolChoiceType1 | None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                tool_choice_type_1 = ChatCompletionRequestToolChoiceType1.from_dict(data)

                return tool_choice_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ChatCompletionRequestToolChoiceType1 | None | str | Unset, data)

        tool_choice = _parse_tool_choice(d.pop("tool_choice", UNSET))

        def _parse_parallel_tool_calls(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        parallel_tool_calls = _parse_parallel_tool_calls(d.pop("parallel_tool_calls", UNSET))

        def _parse_response_format(data: object) -> ChatCompletionRequestResponseFormatType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                response_format_type_0 = ChatCompletionRequestResponseFormatType0.from_dict(data)

                return response_format_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ChatCompletionRequestResponseFormatType0 | None | Unset, data)

        response_format = _parse_response_format(d.pop("response_format", UNSET))

        chat_completion_request = cls(
            model=model,
            messages=messages,
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
            max_tokens=max_tokens,
            max_completion_tokens=max_completion_tokens,
            n=n,
            stop=stop,
            logprobs=logprobs,
            top_logprobs=top_logprobs,
            logit_bias=logit_bias,
            chat_template_kwargs=chat_template_kwargs,
            enable_thinking=enable_thinking,
            reasoning_effort=reasoning_effort,
            tools=tools,
            tool_choice=tool_choice,
            parallel_tool_calls=parallel_tool_calls,
            response_format=response_format,
        )

        chat_completion_request.additional_properties = d
        return chat_completion_request

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
