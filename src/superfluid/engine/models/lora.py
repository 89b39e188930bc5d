"""LoRA adapters of a served model: which files may be applied, whether one fits the model, the active set.

"basert bundles only" (the product document): an adapter is a known local file, one under the adapters
directory (``--lora-dir``) or one named at start-up (``--lora``, ``--lora-scaled``); never a remote name, and
never a path that leads out of the directory (``..``, an absolute path elsewhere, a symlink pointing out).

The active set changes on the event loop only. A request takes the set active when it is queued and keeps it
to its end: the scheduler decodes lanes under different sets in different ticks (engine/scheduling/adapters.py).
See docs/lora.md.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

from superfluid.engine.models.adapter_types import ActiveAdapter, AdapterFile, AdapterSet, Origin
from superfluid.engine.models.gguf_header import GgufError, GgufHeader, read_header
from superfluid.errors import AdapterRefused
from superfluid.settings import Settings

if TYPE_CHECKING:
    from superfluid.engine.scheduling.scheduler import Scheduler

def settings_problem(settings: Settings) -> str | None:
    """What is wrong with the adapter flags before anything loads (the CLI exits with it), or None."""
    if settings.lora_dir is not None and not settings.lora_dir.is_dir():
        return f"--lora-dir {settings.lora_dir} is not a directory"
    for name, _ in settings.lora:
        if not Path(name).is_file():
            return f"the LoRA adapter {name} named at start-up is not a file"
    return None


class AdapterCatalog:
    """Which adapter files this server may apply, from its settings."""

    def __init__(self, settings: Settings) -> None:
        self.directory = settings.lora_dir.resolve() if settings.lora_dir is not None else None
        self.startup = {name: Path(name).resolve() for name, _ in settings.lora}

    def resolve(self, name: str, *, must_exist: bool = True) -> tuple[str, Path, Origin]:
        """(id, resolved path, origin) of the adapter a request names; AdapterRefused says why not."""
        if not name or "\x00" in name:
            raise AdapterRefused("path must name an adapter file")
        if name in self.startup:
            return name, self.startup[name], "startup"
        try:
            return self._resolve(name, must_exist)
        except (OSError, RuntimeError) as exc:  # a name too long for the file system, a symlink loop
            raise AdapterRefused(f"'{name}' cannot be an adapter file here: {exc}") from None

    def _resolve(self, name: str, must_exist: bool) -> tuple[str, Path, Origin]:
        by_path = {path: given for given, path in self.startup.items()}
        candidate = ((self.directory or Path.cwd()) / name).resolve()  # an absolute name replaces the base
        if candidate in by_path:
            return by_path[candidate], candidate, "startup"
        if self.directory is None:
            named = ", ".join(sorted(self.startup)) or "none"
            raise AdapterRefused(f"'{name}' is not an adapter this server knows: it has no adapters directory "
                                 f"(--lora-dir), and the adapters named at start-up are: {named}")
        if not candidate.is_relative_to(self.directory):
            raise AdapterRefused(f"'{name}' leads outside the adapters directory; name a file under it by its "
                                 "path relative to the directory")
        if must_exist and not candidate.is_file():
            raise AdapterRefused(f"there is no adapter file '{name}' in the adapters directory")
        return str(candidate.relative_to(self.directory)), candidate, "lora-dir"


def check_adapter(name: str, path: Path, model: GgufHeader, model_id: str) -> AdapterFile:
    """The file's identity, once its header shows a LoRA adapter that fits the model (llama.cpp's own checks,
    made first so that the response can say what is wrong)."""
    try:
        stat = path.stat()
        header = read_header(path)
    except GgufError as exc:
        raise AdapterRefused(f"'{name}' is not a GGUF LoRA adapter: {exc}") from None
    except OSError as exc:
        raise AdapterRefused(f"'{name}' cannot be read: {exc.strerror}") from None
    kind, adapter = header.text("general.type"), header.text("adapter.type")
    if kind != "adapter" or adapter != "lora":
        raise AdapterRefused(f"'{name}' is not a LoRA adapter: its general.type is '{kind}' and its adapter.type "
                             f"'{adapter}' (a LoRA adapter has 'adapter' and 'lora')")
    arch, model_arch = header.text("general.architecture"), model.text("general.architecture")
    if arch != model_arch:
        raise AdapterRefused(f"'{name}' is an adapter for the '{arch}' architecture; model '{model_id}' is "
                             f"'{model_arch}'")
    _check_tensors(name, header.tensors, model.tensors)
    return AdapterFile(path, stat.st_mtime_ns, stat.st_size)


def _check_tensors(name: str, tensors: dict[str, tuple[int, ...]], base: dict[str, tuple[int, ...]]) -> None:
    pairs: dict[str, dict[str, tuple[int, ...]]] = {}
    for tensor, shape in tensors.items():
        if tensor.endswith((".lora_a", ".lora_b")):
            pairs.setdefault(tensor[:-7], {})[tensor[-1]] = shape
        elif not tensor.endswith("_norm.weight"):  # llama.cpp skips norm vectors too
            raise AdapterRefused(f"'{name}' holds tensor '{tensor}', which is neither a lora_a nor a lora_b")
    for target, pair in sorted(pairs.items()):
        if set(pair) != {"a", "b"}:
            raise AdapterRefused(f"'{name}' has only one half of the lora_a/lora_b pair for '{target}'")
        if target not in base:
            raise AdapterRefused(f"'{name}' adapts tensor '{target}', which this model does not have: the adapter "
                                 "was made for another model")
        shape, a, b = base[target], pair["a"], pair["b"]
        if len(shape) < 2 or len(a) < 2 or len(b) < 2:
            raise AdapterRefused(f"'{name}' adapts tensor '{target}' with a pair that is not two matrices")
        if target.endswith("token_embd.weight"):  # llama.cpp applies the embedding's pair the other way round
            fits = shape[0] == b[1] and shape[1] == a[1]
        else:
            fits = shape[0] == a[0] and shape[1] == b[1] and a[1] == b[0]
        if not fits:
            raise AdapterRefused(f"'{name}' does not fit tensor '{target}' ({shape[0]}x{shape[1]} in the model; "
                                 f"lora_a {a[0]}x{a[1]}, lora_b {b[0]}x{b[1]}): the adapter was made for another "
                                 "model")


class ModelAdapters:
    """The adapters of one served model: load (check, then load on the engine thread, then activate), unload,
    and the active set that new requests take."""

    def __init__(self, model_id: str, model_path: Path, catalog: AdapterCatalog, scheduler: Scheduler) -> None:
        self.model_id = model_id
        self.model_path = model_path
        self.catalog = catalog
        self.scheduler = scheduler
        self.active: AdapterSet = ()
        self._model_header: GgufHeader | None = None
        self._lock = asyncio.Lock()

    async def load(self, name: str, scale: float, *, apply: bool = True) -> AdapterSet:
        """Make ``name`` part of the active set at ``scale`` (a new scale for one already active replaces it
        in place). Requests queued before keep the set they started with."""
        ident, path, origin = self.catalog.resolve(name)
        async with self._lock:
            file = await asyncio.to_thread(self._check, name, path)
            await asyncio.wrap_future(self.scheduler.load_adapter(file))
            if apply:
                adapter = ActiveAdapter(ident, file, scale, origin)
                kept = [adapter if a.file.path == path else a for a in self.active]
                self.active = tuple(kept) if adapter in kept else (*kept, adapter)
        return self.active

    def unload(self, name: str | None) -> AdapterSet:
        """Take ``name`` out of the active set, or every adapter when ``name`` is None."""
        if name is None:
            self.active = ()
            return self.active
        _, path, _ = self.catalog.resolve(name, must_exist=False)
        remaining = tuple(a for a in self.active if a.file.path != path)
        if len(remaining) == len(self.active):
            raise AdapterRefused(f"'{name}' is not active on model '{self.model_id}'")
        self.active = remaining
        return self.active

    def _check(self, name: str, path: Path) -> AdapterFile:
        if self._model_header is None:
            self._model_header = read_header(self.model_path)
        return check_adapter(name, path, self._model_header, self.model_id)
