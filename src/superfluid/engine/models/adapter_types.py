"""The types a LoRA adapter is known by: its file, an adapter as applied, the set a request runs under. The
scheduler needs only these, not the catalog or the loading (models/lora.py), so they live apart from them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

Origin = Literal["lora-dir", "startup"]


@dataclass(frozen=True)
class AdapterFile:
    """One version of an adapter file: a changed file (new mtime or size) is a different adapter."""

    path: Path
    mtime_ns: int
    size: int


@dataclass(frozen=True)
class ActiveAdapter:
    id: str
    """The name requests use: the path relative to the adapters directory, or the start-up name as given."""
    file: AdapterFile
    scale: float
    origin: Origin


AdapterSet = tuple[ActiveAdapter, ...]
"""Adapters applied together, in order. The empty set is the base model."""
