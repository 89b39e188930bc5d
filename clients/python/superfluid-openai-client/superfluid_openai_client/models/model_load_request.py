from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.model_load_request_split_mode import ModelLoadRequestSplitMode
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
        n_gpu_layers (int | str | Unset): llama-server's -ngl for a new reference: layers on the GPUs, a count, "all",
            or "auto" (as many as fit each device's free memory less fit_target). A count or "all" that cannot fit is 400
            insufficient_device_memory.
        device (list[str] | str | Unset): The devices to offload to (none for no offload); a name this server lacks is
            400 unknown_device.
        split_mode (ModelLoadRequestSplitMode | Unset): How layers spread over several GPUs.
        tensor_split (list[float] | Unset): Each GPU's share of the layers (default in proportion to free memory).
        main_gpu (int | Unset): The GPU for the whole model with split_mode none.
        no_kv_offload (bool | Unset): Keep the KV cells in host memory.
        override_tensor (list[str] | Unset): PATTERN=BUFFER_TYPE entries, e.g. "exps=CPU".
        cpu_moe (bool | Unset): Every mixture-of-experts weight in host memory.
        n_cpu_moe (int | Unset): Mixture-of-experts weights of the first N layers in host memory.
        fit_target (int | Unset): MiB that n_gpu_layers auto leaves free on each device (default 1024).
    """

    model: str
    runtime: str | Unset = UNSET
    alias: str | Unset = UNSET
    ctx_size: int | Unset = UNSET
    kv_size: int | Unset = UNSET
    parallel: int | Unset = UNSET
    idle_timeout: float | Unset = UNSET
    n_gpu_layers: int | str | Unset = UNSET
    device: list[str] | str | Unset = UNSET
    split_mode: ModelLoadRequestSplitMode | Unset = UNSET
    tensor_split: list[float] | Unset = UNSET
    main_gpu: int | Unset = UNSET
    no_kv_offload: bool | Unset = UNSET
    override_tensor: list[str] | Unset = UNSET
    cpu_moe: bool | Unset = UNSET
    n_cpu_moe: int | Unset = UNSET
    fit_target: int | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        model = self.model

        runtime = self.runtime

        alias = self.alias

        ctx_size = self.ctx_size

        kv_size = self.kv_size

        parallel = self.parallel

        idle_timeout = self.idle_timeout

        n_gpu_layers: int | str | Unset
        if isinstance(self.n_gpu_layers, Unset):
            n_gpu_layers = UNSET
        else:
            n_gpu_layers = self.n_gpu_layers

        device: list[str] | str | Unset
        if isinstance(self.device, Unset):
            device = UNSET
        elif isinstance(self.device, list):
            device = self.device

        else:
            device = self.device

        split_mode: str | Unset = UNSET
        if not isinstance(self.split_mode, Unset):
            split_mode = self.split_mode.value

        tensor_split: list[float] | Unset = UNSET
        if not isinstance(self.tensor_split, Unset):
            tensor_split = self.tensor_split

        main_gpu = self.main_gpu

        no_kv_offload = self.no_kv_offload

        override_tensor: list[str] | Unset = UNSET
        if not isinstance(self.override_tensor, Unset):
            override_tensor = self.override_tensor

        cpu_moe = self.cpu_moe

        n_cpu_moe = self.n_cpu_moe

        fit_target = self.fit_target

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
        if n_gpu_layers is not UNSET:
            field_dict["n_gpu_layers"] = n_gpu_layers
        if device is not UNSET:
            field_dict["device"] = device
        if split_mode is not UNSET:
            field_dict["split_mode"] = split_mode
        if tensor_split is not UNSET:
            field_dict["tensor_split"] = tensor_split
        if main_gpu is not UNSET:
            field_dict["main_gpu"] = main_gpu
        if no_kv_offload is not UNSET:
            field_dict["no_kv_offload"] = no_kv_offload
        if override_tensor is not UNSET:
            field_dict["override_tensor"] = override_tensor
        if cpu_moe is not UNSET:
            field_dict["cpu_moe"] = cpu_moe
        if n_cpu_moe is not UNSET:
            field_dict["n_cpu_moe"] = n_cpu_moe
        if fit_target is not UNSET:
            field_dict["fit_target"] = fit_target

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

        def _parse_n_gpu_layers(data: object) -> int | str | Unset:
            if isinstance(data, Unset):
                return data
            return cast(int | str | Unset, data)

        n_gpu_layers = _parse_n_gpu_layers(d.pop("n_gpu_layers", UNSET))

        def _parse_device(data: object) -> list[str] | str | Unset:
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                device_type_1 = cast(list[str], data)

                return device_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | str | Unset, data)

        device = _parse_device(d.pop("device", UNSET))

        _split_mode = d.pop("split_mode", UNSET)
        split_mode: ModelLoadRequestSplitMode | Unset
        if isinstance(_split_mode, Unset):
            split_mode = UNSET
        else:
            split_mode = ModelLoadRequestSplitMode(_split_mode)

        tensor_split = cast(list[float], d.pop("tensor_split", UNSET))

        main_gpu = d.pop("main_gpu", UNSET)

        no_kv_offload = d.pop("no_kv_offload", UNSET)

        override_tensor = cast(list[str], d.pop("override_tensor", UNSET))

        cpu_moe = d.pop("cpu_moe", UNSET)

        n_cpu_moe = d.pop("n_cpu_moe", UNSET)

        fit_target = d.pop("fit_target", UNSET)

        model_load_request = cls(
            model=model,
            runtime=runtime,
            alias=alias,
            ctx_size=ctx_size,
            kv_size=kv_size,
            parallel=parallel,
            idle_timeout=idle_timeout,
            n_gpu_layers=n_gpu_layers,
            device=device,
            split_mode=split_mode,
            tensor_split=tensor_split,
            main_gpu=main_gpu,
            no_kv_offload=no_kv_offload,
            override_tensor=override_tensor,
            cpu_moe=cpu_moe,
            n_cpu_moe=n_cpu_moe,
            fit_target=fit_target,
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
