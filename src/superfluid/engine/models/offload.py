"""Which layers of a model go to which device: llama-server's offload flags, fitting to free memory, and what
llama.cpp then placed.

**Plan.** llama.cpp keeps the input layer (the token embeddings) on the CPU and gives the last ``n_gpu_layers``
of the ``n_layer + 1`` others (the repeating layers, then the output layer) to the offload devices, split in
proportion to ``--tensor-split`` or, by default, to each device's free memory (``layer_devices`` does the same
sum). A layer's bytes on its device are its weights (from the GGUF's tensor table, less what
``--override-tensor``, ``--cpu-moe`` or ``--n-cpu-moe`` keep in host memory) and its KV cells (unless
``--no-kv-offload``); a device that holds any layer also holds a compute buffer, about a batch of activations
and, on the output's device, a batch of logits (``estimate``).

**Fit.** ``-ngl auto`` (the default) takes the most layers whose estimate fits every device's free memory less
``--fit-target`` MiB, where free memory is the smaller of what the device reports and its total less what this
server's other models placed there (``DeviceBook``: a software device reports free = total). An explicit count
or ``all`` is never changed: when it cannot fit, the load fails with ``DeviceMemoryExceeded`` (what was asked,
what is free). A model that gets no layer is loaded with no offload device at all, so no device buffer is made.

**Report.** What llama.cpp placed is read back from its log as it loads (placement_log.py): the layers it
offloaded and each buffer's size, grouped by device into weights, KV and compute (``Placement``).
"""

from __future__ import annotations

import ctypes
import re
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import llama_cpp

from superfluid.engine.models.devices import BackendDevice, buffer_types
from superfluid.engine.models.gguf_header import GgufHeader, read_header
from superfluid.engine.models.placement_log import PlacementLog
from superfluid.errors import DeviceMemoryExceeded, UnknownDevice
from superfluid.settings import OffloadSettings

ALL = -1
"""``n_gpu_layers`` for every layer."""
MIB = 1024 * 1024
SPLIT_MODES = {"none": 0, "layer": 1, "row": 2}
"""``enum llama_split_mode``."""
EXPERTS = r"\.ffn_(up|down|gate|gate_up)_(ch|)exps"
MAX_LAYERS = 4096
"""More layers than any model has: the most ``--n-cpu-moe`` may name (each is a pattern llama.cpp tries)."""
"""The expert weights ``--cpu-moe`` keeps in host memory (llama.cpp's own pattern)."""


def requested_layers(text: str) -> int | None:
    """``-ngl``'s value: None for ``auto``, ``ALL`` for ``all``, else the count (ValueError when it is none)."""
    if text == "auto":
        return None
    if text == "all":
        return ALL
    count = int(text)
    if count < 0:
        raise ValueError(f"-ngl must be auto, all or a count >= 0, not {text}")
    return count


def cpu_patterns(settings: OffloadSettings) -> list[tuple[str, str]]:
    """Every (tensor pattern, buffer type) override: ``--override-tensor`` first, then the MoE flags'."""
    found = list(settings.override_tensor)
    if settings.cpu_moe:
        found.append((EXPERTS, "CPU"))
    found += [(rf"blk\.{i}{EXPERTS}", "CPU") for i in range(settings.n_cpu_moe)]
    return found


OFFLOAD_FIELDS = ("n_gpu_layers", "device", "split_mode", "tensor_split", "main_gpu", "no_kv_offload",
                  "override_tensor", "cpu_moe", "n_cpu_moe", "fit_target")
"""The offload settings a models-file entry and ``POST /v1/models/load`` may give, named as llama-server's long
flags are (``--n-gpu-layers`` -> ``n_gpu_layers``)."""


def offload_from(base: OffloadSettings, fields: Mapping[str, Any]) -> OffloadSettings:
    """``base`` with the ``OFFLOAD_FIELDS`` given (a flag's text, or JSON's numbers, booleans and lists);
    ValueError names the field that is wrong."""
    changes: dict[str, Any] = {}
    for key, value in fields.items():
        if value is None:
            continue
        try:
            changes.update(_field(key, value))
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{key}: {exc}") from None
    return replace(base, **changes)


def _field(key: str, value: Any) -> dict[str, Any]:
    if key == "n_gpu_layers":
        text = str(value) if not isinstance(value, bool) else ""
        requested_layers(text)
        return {"gpu_layers": text}
    if key == "device":
        names = _words(value)
        return {"devices": () if names == ["none"] else tuple(names)}
    if key == "split_mode":
        if value not in SPLIT_MODES:
            raise ValueError(f"must be one of {', '.join(SPLIT_MODES)}")
        return {"split_mode": value}
    if key == "tensor_split":
        shares = [float(x) for x in _words(value, "[,/]")]
        if any(not share >= 0 for share in shares) or len(shares) > int(llama_cpp.llama_max_devices()):
            raise ValueError("must be up to one share >= 0 per device")
        return {"tensor_split": tuple(shares)}
    if key in ("main_gpu", "n_cpu_moe", "fit_target"):
        number = _whole(value)
        bound = {"main_gpu": int(llama_cpp.llama_max_devices()) - 1, "n_cpu_moe": MAX_LAYERS}.get(key)
        if bound is not None and number > bound:
            raise ValueError(f"must be at most {bound}")
        return {"fit_target_mib" if key == "fit_target" else key: number}
    if key in ("no_kv_offload", "cpu_moe"):
        if not isinstance(value, bool):
            raise ValueError("must be true or false")
        return {"kv_offload": not value} if key == "no_kv_offload" else {"cpu_moe": value}
    if key == "override_tensor":
        pairs = []
        for item in _words(value):
            pattern, _, buft = item.partition("=")
            if not pattern or not buft or "\x00" in item:
                raise ValueError(f"{item!r} is not PATTERN=BUFFER_TYPE")
            try:
                re.compile(pattern)
                item.encode("utf-8")  # llama.cpp takes the pattern as a C string
            except (re.error, UnicodeEncodeError) as exc:
                raise ValueError(f"{pattern!r} is not a pattern llama.cpp can take: {exc}") from None
            pairs.append((pattern, buft))
        return {"override_tensor": tuple(pairs)}
    raise ValueError(f"unknown; known: {', '.join(OFFLOAD_FIELDS)}")


def _words(value: Any, separators: str = ",") -> list[str]:
    """A comma-separated text, or a list of texts (or numbers), as a list of non-empty texts."""
    items = value if isinstance(value, list) else re.split(separators, str(value))
    words = [str(item).strip() for item in items]
    if not words or any(not word for word in words):
        raise ValueError("must not be empty")
    return words


def _whole(value: Any) -> int:
    if isinstance(value, bool) or (not isinstance(value, int) and not str(value).isdigit()):
        raise ValueError("must be a whole number >= 0")
    return int(value)


# ---- the model's shape, from its GGUF header -----------------------------------------------------------


@dataclass(frozen=True)
class ModelShape:
    """What the plan needs of a model, read from its tensor table."""

    n_layer: int
    tensors: dict[str, int]
    """Tensor name -> bytes."""
    kv_per_cell: tuple[int, ...]
    """Per repeating layer, the bytes of one KV cell (keys and values, f16); 0 for a layer without attention."""
    n_vocab: int
    n_embd: int
    n_ff: int
    n_ctx_train: int

    def layer_of(self, name: str) -> int | None:
        """The layer a tensor belongs to: its block, ``n_layer`` for the output layer, None for the input layer."""
        if name.startswith("blk."):
            return int(name.split(".")[1])
        if name.startswith(("output", "lm_head", "cls")):
            return self.n_layer
        return None


def model_shape(path: Path) -> ModelShape:
    header = read_header(path)
    arch = header.text("general.architecture")
    n_layer = int(header.metadata.get(f"{arch}.block_count", 0) or 0)
    tensors = {name: header.tensor_bytes(name) for name in header.tensors}
    if "output.weight" not in tensors and "token_embd.weight" in tensors:
        tensors["output.weight"] = tensors["token_embd.weight"]  # tied: llama.cpp keeps a copy with the output
    embd = header.tensors.get("token_embd.weight", (0, 0))
    return ModelShape(n_layer=n_layer, tensors=tensors, kv_per_cell=tuple(_kv_cell(header, i) for i in range(n_layer)),
                      n_vocab=int(embd[1]) if len(embd) > 1 else 0, n_embd=int(embd[0]),
                      n_ff=int(header.metadata.get(f"{arch}.feed_forward_length", 0) or 0),
                      n_ctx_train=int(header.metadata.get(f"{arch}.context_length", 0) or 0))


def _kv_cell(header: GgufHeader, layer: int) -> int:
    """Bytes of one f16 KV cell of a layer: the widths of its key and value projections."""
    keys, values = header.tensors.get(f"blk.{layer}.attn_k.weight"), header.tensors.get(f"blk.{layer}.attn_v.weight")
    if keys and values:
        return 2 * (keys[-1] + values[-1])
    fused = header.tensors.get(f"blk.{layer}.attn_qkv.weight")
    if fused:  # queries as wide as the model, keys and values sharing the rest
        return 2 * max(fused[-1] - fused[0], 0)
    return 0


# ---- which device each layer goes to, and what it costs there -----------------------------------------


def layer_devices(n_layer: int, n_gpu: int, devices: Sequence[BackendDevice], split: Sequence[float]) -> list[str]:
    """The device of each of the ``n_layer + 1`` layers (the repeating ones, then the output), as llama.cpp
    assigns them: the last ``n_gpu`` go to ``devices`` in the proportions of ``split`` (free memory when empty)."""
    count = n_layer + 1 if n_gpu == ALL else min(n_gpu, n_layer + 1)
    if not devices or count <= 0:
        return ["CPU"] * (n_layer + 1)
    weights = list(split[:len(devices)]) if any(split) else [float(d.free or d.total) for d in devices]
    weights += [0.0] * (len(devices) - len(weights))
    total = sum(weights) or 1.0
    bounds, running = [], 0.0
    for weight in weights:
        running += weight
        bounds.append(running / total)
    start = n_layer + 1 - count
    placed = []
    for layer in range(n_layer + 1):
        if layer < start:
            placed.append("CPU")
            continue
        share = (layer - start) / count
        index = next((i for i, bound in enumerate(bounds) if share < bound), len(devices) - 1)
        placed.append(devices[index].name)
    return placed


def estimate(shape: ModelShape, placed: Sequence[str], *, cells: int, n_ubatch: int, kv_offload: bool = True,
             host_patterns: Sequence[str] = ()) -> dict[str, int]:
    """Bytes each device other than the CPU would hold with layers ``placed`` (``layer_devices``)."""
    need: dict[str, int] = {}
    kept = [re.compile(pattern) for pattern in host_patterns]
    for name, size in shape.tensors.items():
        layer = shape.layer_of(name)
        if layer is None or placed[layer] == "CPU" or any(p.search(name) for p in kept):
            continue
        need[placed[layer]] = need.get(placed[layer], 0) + size
    if kv_offload:
        for layer, per_cell in enumerate(shape.kv_per_cell):
            if placed[layer] != "CPU":
                need[placed[layer]] = need.get(placed[layer], 0) + per_cell * cells
    for device in set(placed) - {"CPU"}:
        logits = shape.n_vocab if placed[shape.n_layer] == device else 0
        need[device] = need.get(device, 0) + 4 * n_ubatch * (logits + shape.n_ff + 4 * shape.n_embd)
    return need


# ---- fitting ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Fit:
    """The offload a model loads with."""

    layers: int
    """``n_gpu_layers`` (``ALL``: every layer)."""
    devices: tuple[BackendDevice, ...]
    """The devices layers go to; empty: none (a CPU-only load)."""
    need: dict[str, int]
    """Estimated bytes per device."""
    asked: str
    note: str
    """Why this many, for the start log and the reports."""


def chosen_devices(settings: OffloadSettings, found: Sequence[BackendDevice]) -> list[BackendDevice]:
    """The offload devices ``--device`` names (all GPUs when it names none; UnknownDevice for a name not found)."""
    if settings.devices is None:
        return [d for d in found if d.offloads]
    by_name = {d.name: d for d in found}
    missing = [name for name in settings.devices if name not in by_name or by_name[name].kind == "cpu"]
    if missing:
        offered = ", ".join(d.name for d in found if d.kind != "cpu") or "none in this build"
        raise UnknownDevice(f"device '{missing[0]}' is not an offload device of this server (it has: {offered})",
                            param="device")
    return [by_name[name] for name in settings.devices]


def fit(settings: OffloadSettings, shape: ModelShape, found: Sequence[BackendDevice], used: Mapping[str, int], *,
        cells: int, n_ubatch: int) -> Fit:
    """The layers and devices a model loads with (see the module); DeviceMemoryExceeded for an explicit count
    that cannot fit."""
    asked = settings.gpu_layers
    wanted = requested_layers(asked)
    devices = chosen_devices(settings, found)
    if devices and settings.main_gpu >= len(devices):
        raise UnknownDevice(f"main_gpu {settings.main_gpu}: this server offloads to {len(devices)} device(s), "
                            f"numbered from 0", param="main_gpu")
    if settings.split_mode == "none" and devices:
        devices = [devices[min(settings.main_gpu, len(devices) - 1)]]
    if not devices or wanted == 0:
        why = "no offload device" if not devices else "-ngl 0"
        return Fit(0, (), {}, asked, f"every layer on the CPU ({why})")
    free = {d.name: min(d.free, max(d.total - used.get(d.name, 0), 0)) for d in devices}
    hosts = [pattern for pattern, buft in cpu_patterns(settings) if buft.upper().startswith("CPU")]

    def need(layers: int) -> dict[str, int]:
        placed = layer_devices(shape.n_layer, layers, devices, settings.tensor_split)
        return estimate(shape, placed, cells=cells, n_ubatch=n_ubatch, kv_offload=settings.kv_offload,
                        host_patterns=hosts)

    if wanted is not None:
        short = {d: (n, free.get(d, 0)) for d, n in need(wanted).items() if n > free.get(d, 0)}
        if short:
            device, (n, room) = next(iter(short.items()))
            raise DeviceMemoryExceeded(
                f"-ngl {asked} needs about {n // MIB:,} MiB on {device}, which has {room // MIB:,} MiB free",
                param="n_gpu_layers")
        return Fit(wanted, tuple(devices), need(wanted), asked, f"-ngl {asked}")
    margin = settings.fit_target_mib * MIB

    def fits(layers: int) -> bool:
        return all(n <= free.get(d, 0) - margin for d, n in need(layers).items())

    low, high = 0, shape.n_layer + 1  # the most layers that fit, by halving (more layers never need less)
    while low < high:
        middle = (low + high + 1) // 2
        low, high = (middle, high) if fits(middle) else (low, middle - 1)
    layers = low
    if layers == 0:
        left = ", ".join(f"{name} {max(f - margin, 0) // MIB:,} MiB" for name, f in free.items())
        return Fit(0, (), {}, asked, f"every layer on the CPU: no layer fits ({left} after the --fit-target margin)")
    return Fit(layers, tuple(devices), need(layers), asked,
               f"{layers} of {shape.n_layer + 1} layers fit (--fit-target {settings.fit_target_mib} MiB)")


# ---- the load's parameters -------------------------------------------------------------------------------


class _Override(ctypes.Structure):
    """``struct llama_model_tensor_buft_override``."""

    _fields_ = [("pattern", ctypes.c_char_p), ("buft", ctypes.c_void_p)]


@dataclass
class OffloadParams:
    """What a fit sets in ``llama_model_params``; the C arrays it points to live as long as this object."""

    keep: list[Any] = field(default_factory=list)

    def apply(self, mparams: Any, plan: Fit, settings: OffloadSettings) -> None:
        mparams.n_gpu_layers = plan.layers
        devices = (ctypes.c_void_p * (len(plan.devices) + 1))(*[d.handle for d in plan.devices], None)
        self.keep.append(devices)
        mparams.devices = ctypes.cast(devices, ctypes.c_void_p).value
        mparams.split_mode = SPLIT_MODES[settings.split_mode]
        mparams.main_gpu = 0 if settings.split_mode == "none" else settings.main_gpu
        if any(settings.tensor_split):
            split = (ctypes.c_float * int(llama_cpp.llama_max_devices()))(*settings.tensor_split)
            self.keep.append(split)
            mparams.tensor_split = split
        overrides = cpu_patterns(settings)
        if overrides and plan.devices:
            named = buffer_types()
            array = (_Override * (len(overrides) + 1))()
            for slot, (pattern, buft) in zip(array, overrides, strict=False):
                if buft not in named:
                    raise UnknownDevice(f"buffer type '{buft}' is not one of this server's "
                                        f"({', '.join(sorted(named))})", param="override_tensor")
                slot.pattern, slot.buft = pattern.encode(), named[buft][0]
            self.keep.append(array)
            mparams.tensor_buft_overrides = ctypes.cast(array, ctypes.c_void_p).value


# ---- what llama.cpp placed ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class DeviceUse:
    """The bytes one device holds for a model, by kind."""

    device: str
    weights: int = 0
    kv: int = 0
    compute: int = 0

    @property
    def total(self) -> int:
        return self.weights + self.kv + self.compute


@dataclass(frozen=True)
class Placement:
    """A loaded model's layers and bytes per device, as llama.cpp reported them (``CPU`` included)."""

    layers: int
    """Layers offloaded (of ``n_layer + 1``: the repeating layers and the output)."""
    of: int
    devices: tuple[DeviceUse, ...]
    asked: str
    note: str

    def on(self, device: str) -> int:
        return sum(use.total for use in self.devices if use.device == device)

    @property
    def device_bytes(self) -> dict[str, int]:
        """Bytes on each device other than the CPU."""
        return {use.device: use.total for use in self.devices if use.device != "CPU"}

    def summary(self) -> dict[str, Any]:
        """What /v1/models, /props and /slots show."""
        return {"layers": self.layers, "of": self.of, "n_gpu_layers": self.asked, "note": self.note,
                "devices": [{"name": u.device, "weights_bytes": u.weights, "kv_bytes": u.kv,
                             "compute_bytes": u.compute, "bytes": u.total} for u in self.devices]}


def placement(log: PlacementLog, plan: Fit, n_layer: int) -> Placement:
    """The placement a load's captured log describes (its buffers grouped by the device owning their type)."""
    owners = {name: owner for name, (_, owner) in buffer_types().items()}
    uses: dict[str, dict[str, int]] = {}
    for buffer, kind, size in log.buffers:
        device = owners.get(buffer) or next((d.name for d in plan.devices if buffer.startswith(d.name)), "CPU")
        slot = uses.setdefault(device, {"weights": 0, "kv": 0, "compute": 0})
        slot[kind] += size
    layers = log.offloaded[0] if log.offloaded is not None and plan.devices else 0
    devices = tuple(DeviceUse(name, **kinds) for name, kinds in sorted(uses.items(), key=lambda kv: kv[0] != "CPU"))
    return Placement(layers, n_layer + 1, devices, plan.asked, plan.note)


class DeviceBook:
    """What each loaded model placed on each device (any thread): the memory a device reports free is not
    always what is left (a software device reports its total)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._placed: dict[int, dict[str, int]] = {}

    def add(self, owner: object, placed: Placement) -> None:
        with self._lock:
            self._placed[id(owner)] = placed.device_bytes

    def remove(self, owner: object) -> None:
        with self._lock:
            self._placed.pop(id(owner), None)

    def used(self) -> dict[str, int]:
        with self._lock:
            total: dict[str, int] = {}
            for placed in self._placed.values():
                for device, size in placed.items():
                    total[device] = total.get(device, 0) + size
            return total

