from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.tool_result_block_param_type import ToolResultBlockParamType
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.cache_control_type_0 import CacheControlType0
    from ..models.document_block_param import DocumentBlockParam
    from ..models.image_block_param import ImageBlockParam
    from ..models.text_block_param import TextBlockParam


T = TypeVar("T", bound="ToolResultBlockParam")


@_attrs_define
class ToolResultBlockParam:
    """
    Attributes:
        type_ (ToolResultBlockParamType):
        tool_use_id (str):
        content (list[DocumentBlockParam | ImageBlockParam | TextBlockParam] | str | Unset):
        is_error (bool | Unset): The result is shown to the model after "Error:".
        cache_control (CacheControlType0 | None | Unset): Accepted and ignored; every prompt prefix is cached without
            being asked.
    """

    type_: ToolResultBlockParamType
    tool_use_id: str
    content: list[DocumentBlockParam | ImageBlockParam | TextBlockParam] | str | Unset = UNSET
    is_error: bool | Unset = UNSET
    cache_control: CacheControlType0 | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.cache_control_type_0 import CacheControlType0  # noqa: PLC0415
        from ..models.image_block_param import ImageBlockParam  # noqa: PLC0415
        from ..models.text_block_param import TextBlockParam  # noqa: PLC0415

        type_ = self.type_.value

        tool_use_id = self.tool_use_id

        content: list[dict[str, Any]] | str | Unset
        if isinstance(self.content, Unset):
            content = UNSET
        elif isinstance(self.content, list):
            content = []
            for content_type_1_item_data in self.content:
                content_type_1_item: dict[str, Any]
                if isinstance(content_type_1_item_data, TextBlockParam):
                    content_type_1_item = content_type_1_item_data.to_dict()
                elif isinstance(content_type_1_item_data, ImageBlockParam):
                    content_type_1_item = content_type_1_item_data.to_dict()
                else:
                    content_type_1_item = content_type_1_item_data.to_dict()

                content.append(content_type_1_item)

        else:
            content = self.content

        is_error = self.is_error

        cache_control: dict[str, Any] | None | Unset
        if isinstance(self.cache_control, Unset):
            cache_control = UNSET
        elif isinstance(self.cache_control, CacheControlType0):
            cache_control = self.cache_control.to_dict()
        else:
            cache_control = self.cache_control

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "type": type_,
                "tool_use_id": tool_use_id,
            }
        )
        if content is not UNSET:
            field_dict["content"] = content
        if is_error is not UNSET:
            field_dict["is_error"] = is_error
        if cache_control is not UNSET:
            field_dict["cache_control"] = cache_control

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.cache_control_type_0 import CacheControlType0  # noqa: PLC0415
        from ..models.document_block_param import DocumentBlockParam  # noqa: PLC0415
        from ..models.image_block_param import ImageBlockParam  # noqa: PLC0415
        from ..models.text_block_param import TextBlockParam  # noqa: PLC0415

        d = dict(src_dict)
        type_ = ToolResultBlockParamType(d.pop("type"))

        tool_use_id = d.pop("tool_use_id")

        def _parse_content(data: object) -> list[DocumentBlockParam | ImageBlockParam | TextBlockParam] | str | Unset:
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                content_type_1 = []
                _content_type_1 = data
                for content_type_1_item_data in _content_type_1:

                    def _parse_content_type_1_item(
                        data: object,
                    ) -> DocumentBlockParam | ImageBlockParam | TextBlockParam:
                        try:
                            if not isinstance(data, dict):
                                raise TypeError()
                            content_type_1_item_type_0 = TextBlockParam.from_dict(data)

                            return content_type_1_item_type_0
                        except (TypeError, ValueError, AttributeError, KeyError):
                            pass
                        try:
                            if not isinstance(data, dict):
                                raise TypeError()
                            content_type_1_item_type_1 = ImageBlockParam.from_dict(data)

                            return content_type_1_item_type_1
                        except (TypeError, ValueError, AttributeError, KeyError):
                            pass
                        if not isinstance(data, dict):
                            raise TypeError()
                        content_type_1_item_type_2 = DocumentBlockParam.from_dict(data)

                        return content_type_1_item_type_2

                    content_type_1_item = _parse_content_type_1_item(content_type_1_item_data)

                    content_type_1.append(content_type_1_item)

                return content_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[DocumentBlockParam | ImageBlockParam | TextBlockParam] | str | Unset, data)

        content = _parse_content(d.pop("content", UNSET))

        is_error = d.pop("is_error", UNSET)

        def _parse_cache_control(data: object) -> CacheControlType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_cache_control_type_0 = CacheControlType0.from_dict(data)

                return componentsschemas_cache_control_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CacheControlType0 | None | Unset, data)

        cache_control = _parse_cache_control(d.pop("cache_control", UNSET))

        tool_result_block_param = cls(
            type_=type_,
            tool_use_id=tool_use_id,
            content=content,
            is_error=is_error,
            cache_control=cache_control,
        )

        tool_result_block_param.additional_properties = d
        return tool_result_block_param

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
