"""The models a server knows at start: CLI references and the ``--models`` file, each with its serving settings.

A models file is TOML (``.toml``), YAML (``.yaml``, ``.yml``) or JSON (``.json``) holding a list ``models`` of
entries::

    [[models]]
    model = "smollm2-135m-instruct"   # a reference: bundled id, .gguf path or owner/repo[:QUANT]
    alias = "small"                   # public id (default: derived from the reference)
    ctx_size = 4096                   # these four default to the server's flags
    kv_size = 0
    parallel = 2
    idle_timeout = 300                # seconds unused before unloading; 0: never
    eager = true                      # load at start-up (the default model always does)
    n_gpu_layers = "auto"             # and llama-server's other offload flags, by their long names
    device = "Vulkan0"                # (offload.OFFLOAD_FIELDS; default: the server's flags)

Relative paths in a file are read from the file's folder.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from superfluid.config_files import ConfigFileError, read_document
from superfluid.engine.models.model_sources import ModelSource, ModelSourceError, resolve
from superfluid.engine.models.offload import OFFLOAD_FIELDS, offload_from
from superfluid.settings import Settings

_ENTRY_KEYS = frozenset({"model", "alias", "ctx_size", "kv_size", "parallel", "idle_timeout", "eager",
                         *OFFLOAD_FIELDS})
_INT_KEYS = ("ctx_size", "kv_size", "parallel")


@dataclass(frozen=True)
class ModelEntry:
    """One known model: where it comes from and how it is served."""

    id: str
    source: ModelSource
    settings: Settings
    """The server's settings with this model's context, KV pool and lanes."""
    eager: bool = False
    idle_timeout_s: float = 0.0
    """Seconds unused before the model unloads; 0 never."""


def entry_for(reference: str, settings: Settings, *, alias: str | None = None, ctx_size: int | None = None,
              kv_size: int | None = None, parallel: int | None = None, idle_timeout_s: float | None = None,
              eager: bool = False, base: Path | None = None, offload: Mapping[str, Any] | None = None) -> ModelEntry:
    """Resolve one reference with its overrides (``offload``: any of ``OFFLOAD_FIELDS``, over the server's
    flags); ModelSourceError says why it cannot be."""
    try:
        placed = offload_from(settings.offload, offload or {})
    except ValueError as exc:
        raise ModelSourceError(str(exc)) from None
    if base is not None and not Path(reference).is_absolute() and (base / reference).exists():
        reference = str(base / reference)
    source = resolve(reference, hf_cache=settings.hf_cache)
    own = replace(settings,
                  ctx_size=settings.ctx_size if ctx_size is None else ctx_size,
                  kv_size=settings.kv_size if kv_size is None else kv_size,
                  parallel=settings.parallel if parallel is None else parallel, offload=placed)
    timeout = settings.idle_timeout_s if idle_timeout_s is None else idle_timeout_s
    return ModelEntry(id=alias or source.id, source=source, settings=own, eager=eager, idle_timeout_s=timeout)


def entries(settings: Settings) -> list[ModelEntry]:
    """The CLI's models in order (the first with --alias), then the models file's."""
    found = [entry_for(reference, settings, alias=settings.alias if i == 0 else None)
             for i, reference in enumerate(settings.models)]
    if settings.models_file is not None:
        found += _file_entries(settings.models_file, settings)
    seen: set[str] = set()
    for entry in found:
        if entry.id in seen:
            raise ModelSourceError(f"two models have the id '{entry.id}'; give one an alias")
        seen.add(entry.id)
    if not found:
        raise ModelSourceError("no model to serve: name one, or list some in --models FILE")
    return found


def _file_entries(path: Path, settings: Settings) -> list[ModelEntry]:
    try:
        document = read_document(path)
    except ConfigFileError as exc:
        raise ModelSourceError(str(exc)) from None
    items = document.get("models") if isinstance(document, Mapping) else None
    if not isinstance(items, list):
        raise ModelSourceError(f"{path}: expected a list named 'models'")
    return [_file_entry(item, i, path, settings) for i, item in enumerate(items)]


def _file_entry(item: Any, i: int, path: Path, settings: Settings) -> ModelEntry:
    where = f"{path}: models[{i}]"
    if not isinstance(item, Mapping) or not isinstance(item.get("model"), str):
        raise ModelSourceError(f"{where} needs a 'model' reference")
    unknown = set(item) - _ENTRY_KEYS
    if unknown:
        raise ModelSourceError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}; "
                               f"known: {', '.join(sorted(_ENTRY_KEYS))}")
    for key in _INT_KEYS:
        if key in item and (not isinstance(item[key], int) or isinstance(item[key], bool) or item[key] < 0):
            raise ModelSourceError(f"{where}.{key} must be a whole number >= 0")
    if item.get("parallel") == 0:
        raise ModelSourceError(f"{where}.parallel must be at least 1")
    timeout = item.get("idle_timeout")
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, int | float)
                                or timeout < 0 or not math.isfinite(timeout)):
        raise ModelSourceError(f"{where}.idle_timeout must be a number of seconds >= 0")
    if "eager" in item and not isinstance(item["eager"], bool):
        raise ModelSourceError(f"{where}.eager must be true or false")
    alias = item.get("alias")
    if alias is not None and (not isinstance(alias, str) or not alias):
        raise ModelSourceError(f"{where}.alias must be a non-empty string")
    try:
        return entry_for(item["model"], settings, alias=alias, ctx_size=item.get("ctx_size"),
                         kv_size=item.get("kv_size"), parallel=item.get("parallel"),
                         idle_timeout_s=None if timeout is None else float(timeout),
                         eager=bool(item.get("eager", False)), base=path.parent,
                         offload={key: item[key] for key in OFFLOAD_FIELDS if key in item})
    except ModelSourceError as exc:
        raise ModelSourceError(f"{where}: {exc}") from None
