from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.message_create_request_logit_bias_type_0 import MessageCreateRequestLogitBiasType0
    from ..models.message_create_request_metadata import MessageCreateRequestMetadata
    from ..models.message_create_request_output_config_type_0 import MessageCreateRequestOutputConfigType0
    from ..models.message_param import MessageParam
    from ..models.text_block_param import TextBlockParam
    from ..models.thinking_config import ThinkingConfig
    from ..models.tool import Tool
    from ..models.tool_choice import ToolChoice


T = TypeVar("T", bound="MessageCreateRequest")


@_attrs_define
class MessageCreateRequest:
    """
    Attributes:
        model (str):
        messages (list[MessageParam]):
        max_tokens (int): The most tokens the reply may hold, thinking included; the context window caps it.
        system (list[TextBlockParam] | str | Unset): A string, or text blocks joined with newlines.
        tools (list[Tool] | Unset):
        tool_choice (ToolChoice | Unset): auto (the default): the model may call tools or answer in words; any: it must
            call one; tool: it must call the one named; none: it answers in words. disable_parallel_tool_use limits a reply
            to one call.
        thinking (ThinkingConfig | Unset): enabled or adaptive: the chat template's enable_thinking is switched on
            (ignored by a template without the switch, which answers as it always does); disabled: switched off. Absent: the
            template's own default. budget_tokens is accepted and not enforced (max_tokens bounds thinking and text
            together).
        stop_sequences (list[str] | Unset): Generation stops before any of these; the one that matched is the reply's
            stop_sequence.
        temperature (float | Unset):
        top_p (float | Unset):
        top_k (int | Unset):
        min_p (float | None | Unset): superfluid extension, as on chat.
        seed (int | None | Unset): superfluid extension, as on chat.
        presence_penalty (float | None | Unset): superfluid extension.
        frequency_penalty (float | None | Unset): superfluid extension.
        repeat_penalty (float | None | Unset): superfluid extension.
        repetition_penalty (float | None | Unset): Alias of repeat_penalty.
        ignore_eos (bool | None | Unset): superfluid extension; decode to max_tokens.
        logit_bias (MessageCreateRequestLogitBiasType0 | None | Unset): superfluid extension: {"<token id>": bias}, as
            on chat.
        metadata (MessageCreateRequestMetadata | Unset): Accepted and ignored (user_id).
        stream (bool | Unset):
        output_config (MessageCreateRequestOutputConfigType0 | None | Unset):
        service_tier (str | Unset): Accepted and ignored.
    """

    model: str
    messages: list[MessageParam]
    max_tokens: int
    system: list[TextBlockParam] | str | Unset = UNSET
    tools: list[Tool] | Unset = UNSET
    tool_choice: ToolChoice | Unset = UNSET
    thinking: ThinkingConfig | Unset = UNSET
    stop_sequences: list[str] | Unset = UNSET
    temperature: float | Unset = UNSET
    top_p: float | Unset = UNSET
    top_k: int | Unset = UNSET
    min_p: float | None | Unset = UNSET
    seed: int | None | Unset = UNSET
    presence_penalty: float | None | Unset = UNSET
    frequency_penalty: float | None | Unset = UNSET
    repeat_penalty: float | None | Unset = UNSET
    repetition_penalty: float | None | Unset = UNSET
    ignore_eos: bool | None | Unset = UNSET
    logit_bias: MessageCreateRequestLogitBiasType0 | None | Unset = UNSET
    metadata: MessageCreateRequestMetadata | Unset = UNSET
    stream: bool | Unset = UNSET
    output_config: MessageCreateRequestOutputConfigType0 | None | Unset = UNSET
    service_tier: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.message_create_request_logit_bias_type_0 import MessageCreateRequestLogitBiasType0  # noqa: PLC0415
        from ..models.message_create_request_output_config_type_0 import MessageCreateRequestOutputConfigType0  # noqa: PLC0415

        model = self.model

        messages = []
        for messages_item_data in self.messages:
            messages_item = messages_item_data.to_dict()
            messages.append(messages_item)

        max_tokens = self.max_tokens

        system: list[dict[str, Any]] | str | Unset
        if isinstance(self.system, Unset):
            system = UNSET
        elif isinstance(self.system, list):
            system = []
            for system_type_1_item_data in self.system:
                system_type_1_item = system_type_1_item_data.to_dict()
                system.append(system_type_1_item)

        else:
            system = self.system

        tools: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.tools, Unset):
            tools = []
            for tools_item_data in self.tools:
                tools_item = tools_item_data.to_dict()
                tools.append(tools_item)

        tool_choice: dict[str, Any] | Unset = UNSET
        if not isinstance(self.tool_choice, Unset):
            tool_choice = self.tool_choice.to_dict()

        thinking: dict[str, Any] | Unset = UNSET
        if not isinstance(self.thinking, Unset):
            thinking = self.thinking.to_dict()

        stop_sequences: list[str] | Unset = UNSET
        if not isinstance(self.stop_sequences, Unset):
            stop_sequences = self.stop_sequences

        temperature = self.temperature

        top_p = self.top_p

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

        logit_bias: dict[str, Any] | None | Unset
        if isinstance(self.logit_bias, Unset):
            logit_bias = UNSET
        elif isinstance(self.logit_bias, MessageCreateRequestLogitBiasType0):
            logit_bias = self.logit_bias.to_dict()
        else:
            logit_bias = self.logit_bias

        metadata: dict[str, Any] | Unset = UNSET
        if not isinstance(self.metadata, Unset):
            metadata = self.metadata.to_dict()

        stream = self.stream

        output_config: dict[str, Any] | None | Unset
        if isinstance(self.output_config, Unset):
            output_config = UNSET
        elif isinstance(self.output_config, MessageCreateRequestOutputConfigType0):
            output_config = self.output_config.to_dict()
        else:
            output_config = self.output_config

        service_tier = self.service_tier

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "model": model,
                "messages": messages,
                "max_tokens": max_tokens,
            }
        )
        if system is not UNSET:
            field_dict["system"] = system
        if tools is not UNSET:
            field_dict["tools"] = tools
        if tool_choice is not UNSET:
            field_dict["tool_choice"] = tool_choice
        if thinking is not UNSET:
            field_dict["thinking"] = thinking
        if stop_sequences is not UNSET:
            field_dict["stop_sequences"] = stop_sequences
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
        if logit_bias is not UNSET:
            field_dict["logit_bias"] = logit_bias
        if metadata is not UNSET:
            field_dict["metadata"] = metadata
        if stream is not UNSET:
            field_dict["stream"] = stream
        if output_config is not UNSET:
            field_dict["output_config"] = output_config
        if service_tier is not UNSET:
            field_dict["service_tier"] = service_tier

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.message_create_request_logit_bias_type_0 import MessageCreateRequestLogitBiasType0  # noqa: PLC0415
        from ..models.message_create_request_metadata import MessageCreateRequestMetadata  # noqa: PLC0415
        from ..models.message_create_request_output_config_type_0 import MessageCreateRequestOutputConfigType0  # noqa: PLC0415
        from ..models.message_param import MessageParam  # noqa: PLC0415
        from ..models.text_block_param import TextBlockParam  # noqa: PLC0415
        from ..models.thinking_config import ThinkingConfig  # noqa: PLC0415
        from ..models.tool import Tool  # noqa: PLC0415
        from ..models.tool_choice import ToolChoice  # noqa: PLC0415

        d = dict(src_dict)
        model = d.pop("model")

        messages = []
        _messages = d.pop("messages")
        for messages_item_data in _messages:
            messages_item = MessageParam.from_dict(messages_item_data)

            messages.append(messages_item)

        max_tokens = d.pop("max_tokens")

        def _parse_system(data: object) -> list[TextBlockParam] | str | Unset:
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                system_type_1 = []
                _system_type_1 = data
                for system_type_1_item_data in _system_type_1:
                    system_type_1_item = TextBlockParam.from_dict(system_type_1_item_data)

                    system_type_1.append(system_type_1_item)

                return system_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[TextBlockParam] | str | Unset, data)

        system = _parse_system(d.pop("system", UNSET))

        _tools = d.pop("tools", UNSET)
        tools: list[Tool] | Unset = UNSET
        if _tools is not UNSET:
            tools = []
            for tools_item_data in _tools:
                tools_item = Tool.from_dict(tools_item_data)

                tools.append(tools_item)

        _tool_choice = d.pop("tool_choice", UNSET)
        tool_choice: ToolChoice | Unset
        if isinstance(_tool_choice, Unset):
            tool_choice = UNSET
        else:
            tool_choice = ToolChoice.from_dict(_tool_choice)

        _thinking = d.pop("thinking", UNSET)
        thinking: ThinkingConfig | Unset
        if isinstance(_thinking, Unset):
            thinking = UNSET
        else:
            thinking = ThinkingConfig.from_dict(_thinking)

        stop_sequences = cast(list[str], d.pop("stop_sequences", UNSET))

        temperature = d.pop("temperature", UNSET)

        top_p = d.pop("top_p", UNSET)

        top_k = d.pop("top_k", UNSET)

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

        def _parse_logit_bias(data: object) -> MessageCreateRequestLogitBiasType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                logit_bias_type_0 = MessageCreateRequestLogitBiasType0.from_dict(data)

                return logit_bias_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(MessageCreateRequestLogitBiasType0 | None | Unset, data)

        logit_bias = _parse_logit_bias(d.pop("logit_bias", UNSET))

        _metadata = d.pop("metadata", UNSET)
        metadata: MessageCreateRequestMetadata | Unset
        if isinstance(_metadata, Unset):
            metadata = UNSET
        else:
            metadata = MessageCreateRequestMetadata.from_dict(_metadata)

        stream = d.pop("stream", UNSET)

        def _parse_output_config(data: object) -> MessageCreateRequestOutputConfigType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                output_config_type_0 = MessageCreateRequestOutputConfigType0.from_dict(data)

                return output_config_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(MessageCreateRequestOutputConfigType0 | None | Unset, data)

        output_config = _parse_output_config(d.pop("output_config", UNSET))

        service_tier = d.pop("service_tier", UNSET)

        message_create_request = cls(
            model=model,
            messages=messages,
            max_tokens=max_tokens,
            system=system,
            tools=tools,
            tool_choice=tool_choice,
            thinking=thinking,
            stop_sequences=stop_sequences,
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
            logit_bias=logit_bias,
            metadata=metadata,
            stream=stream,
            output_config=output_config,
            service_tier=service_tier,
        )

        message_create_request.additional_properties = d
        return message_create_request

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
