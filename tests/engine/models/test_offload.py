"""GPU offload without a GPU: the flags' values, which layers go where, and the fit to free memory (the devices
are stand-ins; conformance/gpu runs the same on a real Vulkan device)."""

from __future__ import annotations

import pytest

from superfluid.engine.models.devices import BackendDevice
from superfluid.engine.models.offload import (
    ALL,
    ModelShape,
    chosen_devices,
    estimate,
    fit,
    layer_devices,
    offload_from,
)
from superfluid.errors import DeviceMemoryExceeded, UnknownDevice
from superfluid.settings import OffloadSettings

MIB = 1024 * 1024


def _gpu(name: str, free_mib: int, total_mib: int | None = None, index: int = 1) -> BackendDevice:
    total = (total_mib or free_mib) * MIB
    return BackendDevice(index, name, "stand-in", "gpu", free_mib * MIB, total, 0)


CPU = BackendDevice(0, "CPU", "stand-in", "cpu", 1 << 40, 1 << 40, 0)
SHAPE = ModelShape(n_layer=4, tensors={"token_embd.weight": 10 * MIB, "output.weight": 10 * MIB,
                                       **{f"blk.{i}.attn_q.weight": 20 * MIB for i in range(4)},
                                       **{f"blk.{i}.ffn_up_exps.weight": 30 * MIB for i in range(4)}},
                   kv_per_cell=(1024, 1024, 1024, 1024), n_vocab=1000, n_embd=64, n_ff=128, n_ctx_train=4096)


def test_flag_values_are_read_as_llama_server_reads_them() -> None:
    base = OffloadSettings()
    assert offload_from(base, {"n_gpu_layers": 12}).gpu_layers == "12"
    assert offload_from(base, {"n_gpu_layers": "all", "device": "none"}).devices == ()
    assert offload_from(base, {"device": ["CUDA0", "CUDA1"]}).devices == ("CUDA0", "CUDA1")
    assert offload_from(base, {"tensor_split": "3,1"}).tensor_split == (3.0, 1.0)
    assert offload_from(base, {"no_kv_offload": True}).kv_offload is False
    assert offload_from(base, {"override_tensor": "exps=CPU,attn=CUDA0"}).override_tensor == (
        ("exps", "CPU"), ("attn", "CUDA0"))
    assert offload_from(base, {"fit_target": 512}).fit_target_mib == 512


@pytest.mark.parametrize(("field", "value"), [
    ("n_gpu_layers", "some"), ("n_gpu_layers", -1), ("n_gpu_layers", True), ("split_mode", "columns"),
    ("tensor_split", "1,-2"), ("main_gpu", "x"), ("no_kv_offload", "yes"), ("override_tensor", "no-equals"),
    ("override_tensor", "(unclosed=CPU"), ("override_tensor", "a\\x00b=CPU"), ("override_tensor", "\\udb40=CPU"),
    ("device", ""), ("gpu", 1),
])
def test_a_bad_value_names_its_field(field: str, value: object) -> None:
    if isinstance(value, str):
        value = value.encode().decode("unicode_escape", "surrogatepass")
    with pytest.raises(ValueError, match=f"^{field}: "):
        offload_from(OffloadSettings(), {field: value})


def test_layers_go_to_the_devices_as_llama_cpp_assigns_them() -> None:
    one = [_gpu("GPU0", 1000)]
    assert layer_devices(4, 0, one, ()) == ["CPU"] * 5
    assert layer_devices(4, 2, one, ()) == ["CPU", "CPU", "CPU", "GPU0", "GPU0"]  # the last ones, output included
    assert layer_devices(4, ALL, one, ()) == ["GPU0"] * 5
    two = [_gpu("GPU0", 1000), _gpu("GPU1", 1000, index=2)]
    assert layer_devices(4, ALL, two, (3.0, 1.0)) == ["GPU0", "GPU0", "GPU0", "GPU0", "GPU1"]
    assert layer_devices(4, ALL, two, ()) == ["GPU0", "GPU0", "GPU0", "GPU1", "GPU1"]  # by free memory


def test_the_estimate_counts_weights_kv_and_compute_and_keeps_host_tensors_out() -> None:
    placed = layer_devices(4, ALL, [_gpu("GPU0", 1000)], ())
    whole = estimate(SHAPE, placed, cells=1000, n_ubatch=10)
    compute = 4 * 10 * (1000 + 128 + 4 * 64)
    assert whole == {"GPU0": 10 * MIB + 4 * 50 * MIB + 4 * 1024 * 1000 + compute}
    experts_home = estimate(SHAPE, placed, cells=1000, n_ubatch=10, host_patterns=[r"_exps"], kv_offload=False)
    assert experts_home == {"GPU0": 10 * MIB + 4 * 20 * MIB + compute}


def test_auto_fits_what_the_margin_leaves_and_an_explicit_count_is_never_changed() -> None:
    everything = fit(OffloadSettings(fit_target_mib=0), SHAPE, [CPU, _gpu("GPU0", 1000)], {}, cells=16, n_ubatch=8)
    assert everything.layers == 5 and [d.name for d in everything.devices] == ["GPU0"]
    part = fit(OffloadSettings(fit_target_mib=1000 - 120), SHAPE, [CPU, _gpu("GPU0", 1000)], {}, cells=16,
               n_ubatch=8)
    assert 0 < part.layers < 5 and max(part.need.values()) <= 120 * MIB
    taken = fit(OffloadSettings(fit_target_mib=0), SHAPE, [CPU, _gpu("GPU0", 300, 1000)], {"GPU0": 900 * MIB},
                cells=16, n_ubatch=8)
    assert taken.layers < 5  # what other models placed counts, whatever the device reports free
    none = fit(OffloadSettings(fit_target_mib=2000), SHAPE, [CPU, _gpu("GPU0", 1000)], {}, cells=16, n_ubatch=8)
    assert none.layers == 0 and none.devices == () and "no layer fits" in none.note
    with pytest.raises(DeviceMemoryExceeded, match=r"-ngl all needs about .* on GPU0, which has 100 MiB free"):
        fit(OffloadSettings(gpu_layers="all"), SHAPE, [CPU, _gpu("GPU0", 100)], {}, cells=16, n_ubatch=8)
    assert fit(OffloadSettings(gpu_layers="2", fit_target_mib=5000), SHAPE, [CPU, _gpu("GPU0", 1000)], {},
               cells=16, n_ubatch=8).layers == 2  # the margin is auto's


def test_devices_are_chosen_by_name_and_a_missing_one_is_refused() -> None:
    found = [CPU, _gpu("Vulkan0", 100), _gpu("Vulkan1", 100, index=2)]
    assert [d.name for d in chosen_devices(OffloadSettings(), found)] == ["Vulkan0", "Vulkan1"]
    assert chosen_devices(OffloadSettings(devices=()), found) == []
    with pytest.raises(UnknownDevice, match="'CUDA0'"):
        chosen_devices(OffloadSettings(devices=("CUDA0",)), found)
    with pytest.raises(UnknownDevice, match="main_gpu 5"):
        fit(OffloadSettings(main_gpu=5), SHAPE, found, {}, cells=16, n_ubatch=8)
    cpu_only = fit(OffloadSettings(), SHAPE, [CPU], {}, cells=16, n_ubatch=8)
    assert cpu_only.layers == 0 and "no offload device" in cpu_only.note
