from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.props_chat_template_source import PropsChatTemplateSource
from ..models.props_flash_attention import PropsFlashAttention
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.capabilities import Capabilities
    from ..models.model_memory import ModelMemory
    from ..models.props_default_generation_settings import PropsDefaultGenerationSettings
    from ..models.props_kv_cache import PropsKvCache


T = TypeVar("T", bound="Props")


@_attrs_define
class Props:
    """
    Attributes:
        model (str):
        max_context (int):
        chat_template (str):
        default_generation_settings (PropsDefaultGenerationSettings):
        kv_cache (PropsKvCache):
        capabilities (Capabilities):
        model_path (str | Unset):
        loaded (bool | Unset):
        total_slots (int | Unset):
        chat_template_source (PropsChatTemplateSource | Unset): Absent for a model that does not chat.
        tool_format (str | Unset): The call format read from the chat template (docs/tool-calling.md), generic where the
            template speaks none the server knows. Absent for a model that does not chat.
        reasoning_markers (list[str] | Unset): The opening and closing pieces of the template's reasoning block; absent
            where the template does not think.
        runtime (str | Unset): llamacpp, or whisper (faster-whisper on CTranslate2)
        flash_attention (PropsFlashAttention | Unset): What the model's llama.cpp contexts ask for (--flash-attn as
            resolved for the model; auto leaves the choice to llama.cpp). Absent for a model llama.cpp does not run
            (Whisper).
        memory (ModelMemory | Unset): What a loaded model keeps per sequence (docs/models.md, "Recurrent and hybrid
            models").
        speculative (bool | Unset): While a generation model is loaded: prompt-lookup drafting is on.
        build_info (str | Unset):
    """

    model: str
    max_context: int
    chat_template: str
    default_generation_settings: PropsDefaultGenerationSettings
    kv_cache: PropsKvCache
    capabilities: Capabilities
    model_path: str | Unset = UNSET
    loaded: bool | Unset = UNSET
    total_slots: int | Unset = UNSET
    chat_template_source: PropsChatTemplateSource | Unset = UNSET
    tool_format: str | Unset = UNSET
    reasoning_markers: list[str] | Unset = UNSET
    runtime: str | Unset = UNSET
    flash_attention: PropsFlashAttention | Unset = UNSET
    memory: ModelMemory | Unset = UNSET
    speculative: bool | Unset = UNSET
    build_info: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        model = self.model

        max_context = self.max_context

        chat_template = self.chat_template

        default_generation_settings = self.default_generation_settings.to_dict()

        kv_cache = self.kv_cache.to_dict()

        capabilities = self.capabilities.to_dict()

        model_path = self.model_path

        loaded = self.loaded

        total_slots = self.total_slots

        chat_template_source: str | Unset = UNSET
        if not isinstance(self.chat_template_source, Unset):
            chat_template_source = self.chat_template_source.value

        tool_format = self.tool_format

        reasoning_markers: list[str] | Unset = UNSET
        if not isinstance(self.reasoning_markers, Unset):
            reasoning_markers = self.reasoning_markers

        runtime = self.runtime

        flash_attention: str | Unset = UNSET
        if not isinstance(self.flash_attention, Unset):
            flash_attention = self.flash_attention.value

        memory: dict[str, Any] | Unset = UNSET
        if not isinstance(self.memory, Unset):
            memory = self.memory.to_dict()

        speculative = self.speculative

        build_info = self.build_info

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "model": model,
                "max_context": max_context,
                "chat_template": chat_template,
                "default_generation_settings": default_generation_settings,
                "kv_cache": kv_cache,
                "capabilities": capabilities,
            }
        )
        if model_path is not UNSET:
            field_dict["model_path"] = model_path
        if loaded is not UNSET:
            field_dict["loaded"] = loaded
        if total_slots is not UNSET:
            field_dict["total_slots"] = total_slots
        if chat_template_source is not UNSET:
            field_dict["chat_template_source"] = chat_template_source
        if tool_format is not UNSET:
            field_dict["tool_format"] = tool_format
        if reasoning_markers is not UNSET:
            field_dict["reasoning_markers"] = reasoning_markers
        if runtime is not UNSET:
            field_dict["runtime"] = runtime
        if flash_attention is not UNSET:
            field_dict["flash_attention"] = flash_attention
        if memory is not UNSET:
            field_dict["memory"] = memory
        if speculative is not UNSET:
            field_dict["speculative"] = speculative
        if build_info is not UNSET:
            field_dict["build_info"] = build_info

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.capabilities import Capabilities  # noqa: PLC0415
        from ..models.model_memory import ModelMemory  # noqa: PLC0415
        from ..models.props_default_generation_settings import PropsDefaultGenerationSettings  # noqa: PLC0415
        from ..models.props_kv_cache import PropsKvCache  # noqa: PLC0415

        d = dict(src_dict)
        model = d.pop("model")

        max_context = d.pop("max_context")

        chat_template = d.pop("chat_template")

        default_generation_settings = PropsDefaultGenerationSettings.from_dict(d.pop("default_generation_settings"))

        kv_cache = PropsKvCache.from_dict(d.pop("kv_cache"))

        capabilities = Capabilities.from_dict(d.pop("capabilities"))

        model_path = d.pop("model_path", UNSET)

        loaded = d.pop("loaded", UNSET)

        total_slots = d.pop("total_slots", UNSET)

        _chat_template_source = d.pop("chat_template_source", UNSET)
        chat_template_source: PropsChatTemplateSource | Unset
        if isinstance(_chat_template_source, Unset):
            chat_template_source = UNSET
        else:
            chat_template_source = PropsChatTemplateSource(_chat_template_source)

        tool_format = d.pop("tool_format", UNSET)

        reasoning_markers = cast(list[str], d.pop("reasoning_markers", UNSET))

        runtime = d.pop("runtime", UNSET)

        _flash_attention = d.pop("flash_attention", UNSET)
        flash_attention: PropsFlashAttention | Unset
        if isinstance(_flash_attention, Unset):
            flash_attention = UNSET
        else:
            flash_attention = PropsFlashAttention(_flash_attention)

        _memory = d.pop("memory", UNSET)
        memory: ModelMemory | Unset
        if isinstance(_memory, Unset):
            memory = UNSET
        else:
            memory = ModelMemory.from_dict(_memory)

        speculative = d.pop("speculative", UNSET)

        build_info = d.pop("build_info", UNSET)

        props = cls(
            model=model,
            max_context=max_context,
            chat_template=chat_template,
            default_generation_settings=default_generation_settings,
            kv_cache=kv_cache,
            capabilities=capabilities,
            model_path=model_path,
            loaded=loaded,
            total_slots=total_slots,
            chat_template_source=chat_template_source,
            tool_format=tool_format,
            reasoning_markers=reasoning_markers,
            runtime=runtime,
            flash_attention=flash_attention,
            memory=memory,
            speculative=speculative,
            build_info=build_info,
        )

        props.additional_properties = d
        return props

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
