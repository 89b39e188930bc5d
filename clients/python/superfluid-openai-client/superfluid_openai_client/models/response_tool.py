from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.response_tool_parameters_type_0 import ResponseToolParametersType0
    from ..models.response_tool_tools_item import ResponseToolToolsItem


T = TypeVar("T", bound="ResponseTool")


@_attrs_define
class ResponseTool:
    """A function tool ({type "function", name, description, parameters}), or a namespace ({type "namespace", name,
    description, tools}) whose function tools are flattened into the request's (their calls carry `namespace`). Tools of
    any other type (web_search, file_search, local_shell, mcp, custom, ...) are accepted and left out of the prompt:
    this server cannot run them.

        Attributes:
            type_ (str):
            tools (list[ResponseToolToolsItem] | Unset): namespace: its tools; function tools among them are offered, others
                left out.
            name (str | Unset):
            description (None | str | Unset):
            parameters (None | ResponseToolParametersType0 | Unset):
            strict (bool | None | Unset):
    """

    type_: str
    tools: list[ResponseToolToolsItem] | Unset = UNSET
    name: str | Unset = UNSET
    description: None | str | Unset = UNSET
    parameters: None | ResponseToolParametersType0 | Unset = UNSET
    strict: bool | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.response_tool_parameters_type_0 import ResponseToolParametersType0  # noqa: PLC0415

        type_ = self.type_

        tools: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.tools, Unset):
            tools = []
            for tools_item_data in self.tools:
                tools_item = tools_item_data.to_dict()
                tools.append(tools_item)

        name = self.name

        description: None | str | Unset
        if isinstance(self.description, Unset):
            description = UNSET
        else:
            description = self.description

        parameters: dict[str, Any] | None | Unset
        if isinstance(self.parameters, Unset):
            parameters = UNSET
        elif isinstance(self.parameters, ResponseToolParametersType0):
            parameters = self.parameters.to_dict()
        else:
            parameters = self.parameters

        strict: bool | None | Unset
        if isinstance(self.strict, Unset):
            strict = UNSET
        else:
            strict = self.strict

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "type": type_,
            }
        )
        if tools is not UNSET:
            field_dict["tools"] = tools
        if name is not UNSET:
            field_dict["name"] = name
        if description is not UNSET:
            field_dict["description"] = description
        if parameters is not UNSET:
            field_dict["parameters"] = parameters
        if strict is not UNSET:
            field_dict["strict"] = strict

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.response_tool_parameters_type_0 import ResponseToolParametersType0  # noqa: PLC0415
        from ..models.response_tool_tools_item import ResponseToolToolsItem  # noqa: PLC0415

        d = dict(src_dict)
        type_ = d.pop("type")

        _tools = d.pop("tools", UNSET)
        tools: list[ResponseToolToolsItem] | Unset = UNSET
        if _tools is not UNSET:
            tools = []
            for tools_item_data in _tools:
                tools_item = ResponseToolToolsItem.from_dict(tools_item_data)

                tools.append(tools_item)

        name = d.pop("name", UNSET)

        def _parse_description(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        description = _parse_description(d.pop("description", UNSET))

        def _parse_parameters(data: object) -> None | ResponseToolParametersType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                parameters_type_0 = ResponseToolParametersType0.from_dict(data)

                return parameters_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ResponseToolParametersType0 | Unset, data)

        parameters = _parse_parameters(d.pop("parameters", UNSET))

        def _parse_strict(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        strict = _parse_strict(d.pop("strict", UNSET))

        response_tool = cls(
            type_=type_,
            tools=tools,
            name=name,
            description=description,
            parameters=parameters,
            strict=strict,
        )

        response_tool.additional_properties = d
        return response_tool

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
