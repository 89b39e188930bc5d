from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="ModelLoadRequest")


@_attrs_define
class ModelLoadRequest:
    """
    Attributes:
        model (str): A known model id, or a new reference: bundled id, .gguf path, owner/repo[:QUANT].
        runtime (str | Unset): The runtime to load it with (llamacpp or whisper); one this server lacks, or another than
            the model's, is 400 unsupported_runtime.
        alias (str | Unset): Public id of a new reference.
        ctx_size (int | Unset): Context window of a new reference (0 the model's).
        kv_size (int | Unset):
        parallel (int | Unset): Lanes of a new reference.
        idle_timeout (float | Unset): Seconds unused before a new reference unloads (0 never).
    """

    model: str
    runtime: str | Unset = UNSET
    alias: str | Unset = UNSET
    ctx_size: int | Unset = UNSET
    kv_size: int | Unset = UNSET
    parallel: int | Unset = UNSET
    idle_timeout: float | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        model = self.model

        runtime = self.runtime

        alias = self.alias

        ctx_size = self.ctx_size

        kv_size = self.kv_size

        parallel = self.parallel

        idle_timeout = self.idle_timeout

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "model": model,
            }
        )
        if runtime is not UNSET:
            field_dict["runtime"] = runtime
        if alias is not UNSET:
            field_dict["alias"] = alias
        if ctx_size is not UNSET:
            field_dict["ctx_size"] = ctx_size
        if kv_size is not UNSET:
            field_dict["kv_size"] = kv_size
        if parallel is not UNSET:
            field_dict["parallel"] = parallel
        if idle_timeout is not UNSET:
            field_dict["idle_timeout"] = idle_timeout

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        model = d.pop("model")

        runtime = d.pop("runtime", UNSET)

        alias = d.pop("alias", UNSET)

        ctx_size = d.pop("ctx_size", UNSET)

        kv_size = d.pop("kv_size", UNSET)

        parallel = d.pop("parallel", UNSET)

        idle_timeout = d.pop("idle_timeout", UNSET)

        model_load_request = cls(
            model=model,
            runtime=runtime,
            alias=alias,
            ctx_size=ctx_size,
            kv_size=kv_size,
            parallel=parallel,
            idle_timeout=idle_timeout,
        )

        model_load_request.additional_properties = d
        return model_load_request

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
