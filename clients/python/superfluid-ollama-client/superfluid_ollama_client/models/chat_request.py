from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.think_type_1 import ThinkType1
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.format_type_1 import FormatType1
    from ..models.message import Message
    from ..models.options_type_0 import OptionsType0
    from ..models.tool import Tool


T = TypeVar("T", bound="ChatRequest")


@_attrs_define
class ChatRequest:
    """
    Attributes:
        model (str): A model id; `id:latest` is accepted.
        messages (list[Message] | None | Unset): Empty or absent loads the model (done_reason "load").
        tools (list[Tool] | None | Unset):
        stream (bool | None | Unset):  Default: True.
        format_ (FormatType1 | None | str | Unset): "json" for any JSON object, or a JSON schema the reply must match.
        think (bool | None | ThinkType1 | Unset): true/false switch the template's thinking; a level sets its reasoning
            effort.
        logprobs (bool | None | Unset):
        top_logprobs (int | None | Unset):
        options (None | OptionsType0 | Unset): Generation options. A null option is no option. Any option not listed
            here (num_gpu, num_thread, mirostat, ...) is a 400 `unsupported option: <name>`.
        keep_alive (Any | Unset): Not served; any non-null value is a 400 (residency is the server's).
    """

    model: str
    messages: list[Message] | None | Unset = UNSET
    tools: list[Tool] | None | Unset = UNSET
    stream: bool | None | Unset = True
    format_: FormatType1 | None | str | Unset = UNSET
    think: bool | None | ThinkType1 | Unset = UNSET
    logprobs: bool | None | Unset = UNSET
    top_logprobs: int | None | Unset = UNSET
    options: None | OptionsType0 | Unset = UNSET
    keep_alive: Any | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.format_type_1 import FormatType1  # noqa: PLC0415
        from ..models.options_type_0 import OptionsType0  # noqa: PLC0415

        model = self.model

        messages: list[dict[str, Any]] | None | Unset
        if isinstance(self.messages, Unset):
            messages = UNSET
        elif isinstance(self.messages, list):
            messages = []
            for messages_type_0_item_data in self.messages:
                messages_type_0_item = messages_type_0_item_data.to_dict()
                messages.append(messages_type_0_item)

        else:
            messages = self.messages

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

        stream: bool | None | Unset
        if isinstance(self.stream, Unset):
            stream = UNSET
        else:
            stream = self.stream

        format_: dict[str, Any] | None | str | Unset
        if isinstance(self.format_, Unset):
            format_ = UNSET
        elif isinstance(self.format_, FormatType1):
            format_ = self.format_.to_dict()
        else:
            format_ = self.format_

        think: bool | None | str | Unset
        if isinstance(self.think, Unset):
            think = UNSET
        elif isinstance(self.think, ThinkType1):
            think = self.think.value
        else:
            think = self.think

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

        options: dict[str, Any] | None | Unset
        if isinstance(self.options, Unset):
            options = UNSET
        elif isinstance(self.options, OptionsType0):
            options = self.options.to_dict()
        else:
            options = self.options

        keep_alive = self.keep_alive

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "model": model,
            }
        )
        if messages is not UNSET:
            field_dict["messages"] = messages
        if tools is not UNSET:
            field_dict["tools"] = tools
        if stream is not UNSET:
            field_dict["stream"] = stream
        if format_ is not UNSET:
            field_dict["format"] = format_
        if think is not UNSET:
            field_dict["think"] = think
        if logprobs is not UNSET:
            field_dict["logprobs"] = logprobs
        if top_logprobs is not UNSET:
            field_dict["top_logprobs"] = top_logprobs
        if options is not UNSET:
            field_dict["options"] = options
        if keep_alive is not UNSET:
            field_dict["keep_alive"] = keep_alive

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.format_type_1 import FormatType1  # noqa: PLC0415
        from ..models.message import Message  # noqa: PLC0415
        from ..models.options_type_0 import OptionsType0  # noqa: PLC0415
        from ..models.tool import Tool  # noqa: PLC0415

        d = dict(src_dict)
        model = d.pop("model")

        def _parse_messages(data: object) -> list[Message] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                messages_type_0 = []
                _messages_type_0 = data
                for messages_type_0_item_data in _messages_type_0:
                    messages_type_0_item = Message.from_dict(messages_type_0_item_data)

                    messages_type_0.append(messages_type_0_item)

                return messages_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[Message] | None | Unset, data)

        messages = _parse_messages(d.pop("messages", UNSET))

        def _parse_tools(data: object) -> list[Tool] | None | Unset:
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
                    tools_type_0_item = Tool.from_dict(tools_type_0_item_data)

                    tools_type_0.append(tools_type_0_item)

                return tools_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[Tool] | None | Unset, data)

        tools = _parse_tools(d.pop("tools", UNSET))

        def _parse_stream(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        stream = _parse_stream(d.pop("stream", UNSET))

        def _parse_format_(data: object) -> FormatType1 | None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_format_type_1 = FormatType1.from_dict(data)

                return componentsschemas_format_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(FormatType1 | None | str | Unset, data)

        format_ = _parse_format_(d.pop("format", UNSET))

        def _parse_think(data: object) -> bool | None | ThinkType1 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                componentsschemas_think_type_1 = ThinkType1(data)

                return componentsschemas_think_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(bool | None | ThinkType1 | Unset, data)

        think = _parse_think(d.pop("think", UNSET))

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

        def _parse_options(data: object) -> None | OptionsType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_options_type_0 = OptionsType0.from_dict(data)

                return componentsschemas_options_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | OptionsType0 | Unset, data)

        options = _parse_options(d.pop("options", UNSET))

        keep_alive = d.pop("keep_alive", UNSET)

        chat_request = cls(
            model=model,
            messages=messages,
            tools=tools,
            stream=stream,
            format_=format_,
            think=think,
            logprobs=logprobs,
            top_logprobs=top_logprobs,
            options=options,
            keep_alive=keep_alive,
        )

        chat_request.additional_properties = d
        return chat_request

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
