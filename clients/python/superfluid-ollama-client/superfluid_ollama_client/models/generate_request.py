from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.think_type_1 import ThinkType1
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.format_type_1 import FormatType1
    from ..models.options_type_0 import OptionsType0


T = TypeVar("T", bound="GenerateRequest")


@_attrs_define
class GenerateRequest:
    """
    Attributes:
        model (str): A model id; `id:latest` is accepted.
        prompt (None | str | Unset):
        system (None | str | Unset):
        suffix (None | str | Unset): Text after the cursor; non-empty makes the request fill-in-the-middle.
        images (list[str] | None | Unset):
        raw (bool | None | Unset):
        template (None | str | Unset): Only empty (the model's own template); anything else is a 400.
        stream (bool | None | Unset):  Default: True.
        format_ (FormatType1 | None | str | Unset): "json" for any JSON object, or a JSON schema the reply must match.
        think (bool | None | ThinkType1 | Unset): true/false switch the template's thinking; a level sets its reasoning
            effort.
        options (None | OptionsType0 | Unset): Generation options. A null option is no option. Any option not listed
            here (num_gpu, num_thread, mirostat, ...) is a 400 `unsupported option: <name>`.
        keep_alive (Any | Unset): Not served; any non-null value is a 400 (residency is the server's).
    """

    model: str
    prompt: None | str | Unset = UNSET
    system: None | str | Unset = UNSET
    suffix: None | str | Unset = UNSET
    images: list[str] | None | Unset = UNSET
    raw: bool | None | Unset = UNSET
    template: None | str | Unset = UNSET
    stream: bool | None | Unset = True
    format_: FormatType1 | None | str | Unset = UNSET
    think: bool | None | ThinkType1 | Unset = UNSET
    options: None | OptionsType0 | Unset = UNSET
    keep_alive: Any | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.format_type_1 import FormatType1  # noqa: PLC0415
        from ..models.options_type_0 import OptionsType0  # noqa: PLC0415

        model = self.model

        prompt: None | str | Unset
        if isinstance(self.prompt, Unset):
            prompt = UNSET
        else:
            prompt = self.prompt

        system: None | str | Unset
        if isinstance(self.system, Unset):
            system = UNSET
        else:
            system = self.system

        suffix: None | str | Unset
        if isinstance(self.suffix, Unset):
            suffix = UNSET
        else:
            suffix = self.suffix

        images: list[str] | None | Unset
        if isinstance(self.images, Unset):
            images = UNSET
        elif isinstance(self.images, list):
            images = self.images

        else:
            images = self.images

        raw: bool | None | Unset
        if isinstance(self.raw, Unset):
            raw = UNSET
        else:
            raw = self.raw

        template: None | str | Unset
        if isinstance(self.template, Unset):
            template = UNSET
        else:
            template = self.template

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
        if prompt is not UNSET:
            field_dict["prompt"] = prompt
        if system is not UNSET:
            field_dict["system"] = system
        if suffix is not UNSET:
            field_dict["suffix"] = suffix
        if images is not UNSET:
            field_dict["images"] = images
        if raw is not UNSET:
            field_dict["raw"] = raw
        if template is not UNSET:
            field_dict["template"] = template
        if stream is not UNSET:
            field_dict["stream"] = stream
        if format_ is not UNSET:
            field_dict["format"] = format_
        if think is not UNSET:
            field_dict["think"] = think
        if options is not UNSET:
            field_dict["options"] = options
        if keep_alive is not UNSET:
            field_dict["keep_alive"] = keep_alive

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.format_type_1 import FormatType1  # noqa: PLC0415
        from ..models.options_type_0 import OptionsType0  # noqa: PLC0415

        d = dict(src_dict)
        model = d.pop("model")

        def _parse_prompt(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        prompt = _parse_prompt(d.pop("prompt", UNSET))

        def _parse_system(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        system = _parse_system(d.pop("system", UNSET))

        def _parse_suffix(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        suffix = _parse_suffix(d.pop("suffix", UNSET))

        def _parse_images(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                images_type_0 = cast(list[str], data)

                return images_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        images = _parse_images(d.pop("images", UNSET))

        def _parse_raw(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        raw = _parse_raw(d.pop("raw", UNSET))

        def _parse_template(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        template = _parse_template(d.pop("template", UNSET))

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

        generate_request = cls(
            model=model,
            prompt=prompt,
            system=system,
            suffix=suffix,
            images=images,
            raw=raw,
            template=template,
            stream=stream,
            format_=format_,
            think=think,
            options=options,
            keep_alive=keep_alive,
        )

        generate_request.additional_properties = d
        return generate_request

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
