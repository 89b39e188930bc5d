"""Operator files (the --models file, the --key-policy file): TOML, YAML or JSON, chosen by extension."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any


class ConfigFileError(ValueError):
    """A file that cannot be read or parsed; the message names it and says why."""


def read_document(path: Path) -> Any:
    """The content of a ``.toml``, ``.yaml``/``.yml`` or ``.json`` file."""
    try:
        text = path.read_text()
    except OSError as exc:
        raise ConfigFileError(f"cannot read {path}: {exc.strerror}") from None
    suffix = path.suffix.lower()
    try:
        if suffix == ".toml":
            return tomllib.loads(text)
        if suffix in (".yaml", ".yml"):
            import yaml

            return yaml.safe_load(text)
        if suffix == ".json":
            return json.loads(text)
    except Exception as exc:
        raise ConfigFileError(f"{path} is not valid {suffix[1:].upper()}: {exc}") from None
    raise ConfigFileError(f"{path}: expected a .toml, .yaml, .yml or .json file")
