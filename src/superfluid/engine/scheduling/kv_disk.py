"""The prefix cache's disk tier: a lane's KV cells saved to a file before they are dropped, and loaded back for a
later prompt that repeats their tokens (docs/scheduling.md, "The RAM and disk tiers").

**What is saved.** When admission is about to drop cached tokens of a lane (another conversation takes it), and
at shutdown, the lane's sequence state (``llama_state_seq_get_data``: its cells' keys and values) is copied on
the engine thread and written by this module's writer thread, if the lane holds at least ``min_tokens`` tokens
and ``BLOCK`` more than the file it was last saved to or loaded from.

**Where.** ``<sessions>/kv/<tier>/<hash>.kv``. ``tier`` is a digest of everything besides the tokens that
changes the cells: the model file (size, modification time, and SHA-256 of its first and last MiB), llama.cpp's
version, the context settings (window, KV pool layout and cell types, flash attention). The file's own header
holds the LoRA adapters (each file's path, size, time and scale) and the tokens. So a changed model, adapter set
or KV setting never finds an old file.

**Recurrent state.** A lane of a recurrent or hybrid model cannot be cut back (engine/scheduling/checkpoints.py):
its file also holds the lane's checkpoints, and a prompt is served from the file's end or from one of them, never
from a token between.

**Which file serves a prompt.** The index maps the chained SHA-256 of every ``BLOCK`` tokens of every file (under
its adapter set) to the file; a prompt walks its own chain and takes the longest hit, then the exact common
prefix with that file's tokens. The read happens off the event loop and off the engine thread (``read``); the
engine thread only copies the bytes into the lane (``llama_state_seq_set_data``).

**Crash safety.** A file is written to ``.tmp``, fsynced, renamed, and the directory fsynced. A header that does
not parse, a payload of the wrong length, a file llama.cpp refuses: removed, never loaded. ``.tmp`` leftovers are
removed at start.

**Bounds.** ``budget_bytes`` over the tier's files: the least recently used (written or loaded) go first.
Saves wait in a queue of at most ``MAX_PENDING_BYTES``; past it a save is dropped (counted).
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import hashlib
import json
import logging
import mmap
import os
import queue
import struct
import threading
import time
import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from superfluid.engine.models.native import byte_buffer
from superfluid.engine.scheduling.checkpoints import Checkpoint, checkpoint_at, resume_point
from superfluid.engine.scheduling.checkpoints import clear as clear_lane
from superfluid.engine.scheduling.checkpoints import load as load_checkpoint
from superfluid.engine.scheduling.job import common_prefix
from superfluid.engine.scheduling.kv_ram import Held, RamTier

log = logging.getLogger(__name__)

BLOCK = 64
"""Tokens per hashed block: a prompt finds a file by a whole number of blocks, then by exact tokens."""
MAGIC = b"superfluid-kv\x01"
MAX_PENDING_BYTES = 1 << 30
_HEADER = struct.Struct("<II")  # header JSON bytes, token count
_DIGEST_SPAN = 1 << 20
WRITE_SLICE = 1 << 20
"""A saved payload goes to the file in ``write`` calls of at most this many bytes. One 46 MB ``write`` (2,000
tokens of SmolLM2's cells) took ~500 ms of kernel time on the recording VM (ext4, kernel 6.18, no kernel
preemption) against ~12 ms for the same bytes in 1 MiB calls; and a core held that long in the kernel stalls
llama.cpp's threads at their barrier, so a request loaded from disk while another lane's save was written took
~600 ms to its first token instead of ~130 ms (docs/scheduling.md, "The RAM and disk tiers")."""


def model_digest(path: Path) -> str:
    """A digest that changes when the file does: size, mtime and the SHA-256 of its first and last MiB."""
    stat = path.stat()
    sha = hashlib.sha256(f"{stat.st_size}:{stat.st_mtime_ns}".encode())
    with path.open("rb") as handle:
        sha.update(handle.read(_DIGEST_SPAN))
        if stat.st_size > _DIGEST_SPAN:
            handle.seek(max(stat.st_size - _DIGEST_SPAN, _DIGEST_SPAN))
            sha.update(handle.read(_DIGEST_SPAN))
    return sha.hexdigest()


def tier_name(settings: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(settings, sort_keys=True).encode()).hexdigest()[:20]


def _chain(adapters: str, tokens: Sequence[int]) -> list[bytes]:
    """The chained digest after each whole block of ``tokens`` (index i: the first (i + 1) * BLOCK tokens)."""
    out = []
    digest = hashlib.sha256(adapters.encode()).digest()
    for start in range(0, len(tokens) - BLOCK + 1, BLOCK):
        digest = hashlib.sha256(digest + struct.pack(f"<{BLOCK}i", *tokens[start:start + BLOCK])).digest()
        out.append(digest)
    return out


@dataclass
class Saved:
    """One file of the tier."""

    path: Path
    tokens: list[int]
    adapters: str
    size: int
    used: float
    chain: list[bytes] = field(default_factory=list)
    checkpoints: tuple[tuple[int, int], ...] = ()
    """The lane's checkpoints saved after its cells: (token count, bytes) each, in token order."""
    refused: bool = False
    """llama.cpp did not take its cells once (a pool with no room, or a bad file): not offered again."""
    on_disk: bool = True
    """Its file is written (else only the RAM tier holds it, until the writer gets to it or for good when the
    disk tier is off)."""


@dataclass(frozen=True)
class Found:
    """A file that holds ``common`` leading tokens of a prompt; ``payload`` once read."""

    saved: Saved
    common: int
    payload: Any = None
    checkpoints: tuple[Checkpoint, ...] = ()
    """The file's checkpoints, once read."""
    from_ram: bool = False
    """The payload came from the RAM tier (no file read)."""

    def resume_point(self, limit: int) -> int:
        """The most tokens a lane of a rollback-free model can keep from this file for a prompt of which it holds
        ``common`` (``limit``: the prompt's tokens before its last): its end, else a checkpoint's count."""
        marks = [Checkpoint(n, None, size) for n, size in self.saved.checkpoints]
        return resume_point(self.saved.tokens, marks, self.common, limit)


@dataclass
class TierStats:
    saves: int = 0
    saved_bytes: int = 0
    dropped_saves: int = 0
    restores: int = 0
    restored_tokens: int = 0
    removed: int = 0
    """Files removed: over budget, superseded by a longer save of the same tokens, or unusable."""


class KvDiskTier:
    """The files of one model under one set of KV settings. ``find`` and ``note_*`` from any thread."""

    def __init__(self, directory: Path, *, budget_bytes: int, min_tokens: int, ram_bytes: int = 0) -> None:
        """``budget_bytes``: the files' bound (0: nothing is written); ``ram_bytes``: the RAM tier's (kv_ram.py; 0:
        off, negative: unbounded)."""
        self.directory = directory
        self.budget_bytes = budget_bytes
        self.ram = RamTier(ram_bytes, evicted=self._ram_evicted)
        self.min_tokens = max(min_tokens, BLOCK)
        self.stats = TierStats()
        self._lock = threading.Lock()
        self._files: dict[Path, Saved] = {}
        self._index: dict[bytes, Saved] = {}
        self._pending = 0
        self._listed = 0
        """The directory's modification time when it was last listed: another server's new file changes it."""
        self._queue: queue.SimpleQueue[tuple[list[int], str, Any, int, tuple[Checkpoint, ...]] | threading.Event
                                       | None] = queue.SimpleQueue()
        directory.mkdir(parents=True, exist_ok=True)
        self._scan()
        self._writer = threading.Thread(target=self._write_loop, name="superfluid-kv-disk", daemon=True)
        self._writer.start()

    # ---- the index ----

    def view(self) -> dict[str, Any]:
        """What /slots and /metrics show of the tier."""
        with self._lock:
            on_disk = [saved for saved in self._files.values() if saved.on_disk]
            files, size = len(on_disk), sum(saved.size for saved in on_disk)
            ram = self.ram.view()
        stats = self.stats
        return {"directory": str(self.directory), "files": files, "bytes": size, "budget_bytes": self.budget_bytes,
                "saves": stats.saves, "dropped_saves": stats.dropped_saves, "restores": stats.restores,
                "restored_tokens": stats.restored_tokens, "removed": stats.removed, **ram}

    def _scan(self, *, fresh: bool = True) -> None:
        """Index the directory's files. At start (``fresh``) a leftover of a save cut short is removed; later (a
        rescan for files other servers sharing the directory wrote) only new complete files are added."""
        with contextlib.suppress(OSError):
            self._listed = self.directory.stat().st_mtime_ns
        for path in self.directory.iterdir():
            if not fresh:
                if path.suffix == ".kv" and path not in self._files:
                    saved = _read_header(path)
                    if saved is not None:
                        self._add(saved)
                continue
            if path.suffix != ".kv":
                with contextlib.suppress(OSError):
                    path.unlink()  # a save the process died in the middle of
                continue
            saved = _read_header(path)
            if saved is None:
                log.warning("removing unusable KV file %s", path)
                with contextlib.suppress(OSError):
                    path.unlink()
                continue
            self._add(saved)

    def _add(self, saved: Saved) -> None:
        saved.chain = saved.chain or _chain(saved.adapters, saved.tokens)
        self._files[saved.path] = saved
        for digest in saved.chain:
            self._index[digest] = saved

    def _drop(self, saved: Saved) -> None:
        """Forget the saved prefix: its file removed, its RAM copy let go."""
        self._drop_index(saved)
        self.ram.forget(saved.path)
        if saved.on_disk:
            with contextlib.suppress(OSError):
                saved.path.unlink()
        self.stats.removed += 1

    def _ram_evicted(self, path: Path) -> None:
        """The RAM tier let ``path`` go for room: an entry with no file is gone (under the lock)."""
        saved = self._files.get(path)
        if saved is not None and not saved.on_disk:
            self._drop_index(saved)

    def find(self, tokens: Sequence[int], adapters: str) -> Found | None:
        """The file holding the longest prefix of ``tokens`` under ``adapters`` (at least min_tokens), or None."""
        if len(tokens) < self.min_tokens:
            return None
        chain = _chain(adapters, tokens)
        with self._lock:
            self._rescan_if_changed()
            for digest in reversed(chain):
                saved = self._index.get(digest)
                if saved is not None and not saved.refused:
                    common = common_prefix(saved.tokens, tokens)
                    return Found(saved, common) if common >= self.min_tokens else None
        return None

    def _rescan_if_changed(self) -> None:
        """Servers sharing the directory (a fleet's replicas) see each other's files: a changed directory is
        listed again (one stat per lookup otherwise)."""
        try:
            listed = self.directory.stat().st_mtime_ns
        except OSError:
            return
        if listed != self._listed:
            try:
                self._scan(fresh=False)
            except OSError as exc:
                log.warning("could not list %s: %s", self.directory, exc)
            gone = [path for path in self._files if not path.exists() and not self.ram.holds(path)]
            for path in gone:  # removed by another server
                self._drop_index(self._files[path])

    def read(self, found: Found) -> Found | None:
        """``found`` with its payload: from the RAM tier, else read from disk (any thread but the loop's); None if
        the file is unusable."""
        saved = found.saved
        with self._lock:
            held = self.ram.get(saved.path)
        if held is not None:
            return Found(saved, found.common, held.payload, held.checkpoints, from_ram=True)
        try:
            with saved.path.open("rb") as handle:
                head = handle.read(len(MAGIC) + _HEADER.size)
                if not head.startswith(MAGIC):
                    raise ValueError("not a superfluid KV file")
                header_len, n_tokens = _HEADER.unpack(head[len(MAGIC):])
                header = json.loads(handle.read(header_len))
                offset = len(MAGIC) + _HEADER.size + header_len + 4 * n_tokens
                size = int(header["payload"])
                marks = _checkpoint_marks(header)
                if os.fstat(handle.fileno()).st_size != offset + size + sum(n for _, n in marks):
                    raise ValueError("the payload is not the length its header gives")
                whole = _mapped(handle.fileno(), offset, size + sum(n for _, n in marks))
        except (OSError, ValueError, KeyError, TypeError, struct.error) as exc:
            log.warning("removing unusable KV file %s: %s", saved.path, exc)
            with self._lock:
                self._drop(saved)
            return None
        payload = (ctypes.c_uint8 * size).from_buffer(whole)
        checkpoints = []
        at = size
        for n_tokens, length in marks:
            checkpoints.append(Checkpoint(n_tokens, (ctypes.c_uint8 * length).from_buffer(whole, at), length))
            at += length
        return Found(saved, found.common, payload, tuple(checkpoints))

    def note_restored(self, found: Found, tokens: int) -> None:
        self.stats.restores += 1
        if found.from_ram:
            self.ram.restores += 1
        self.stats.restored_tokens += tokens
        found.saved.used = time.time()
        with contextlib.suppress(OSError):
            os.utime(found.saved.path)  # the order of use survives a restart

    def note_refused(self, found: Found) -> None:
        """llama.cpp did not take the file's cells: this process does not offer it again (the file stays: the
        pool may only have been short of room)."""
        found.saved.refused = True

    # ---- saving ----

    def save(self, tokens: list[int], adapters: str, payload: Any, size: int,
             checkpoints: Sequence[Checkpoint] = ()) -> bool:
        """Queue a save of ``payload`` (a ctypes buffer the caller no longer touches) for ``tokens``, with the
        lane's ``checkpoints``; False when the queue is too full and the save is dropped. The RAM tier keeps the
        payload at once (a later prompt finds it before its file is written)."""
        size_all = size + sum(cp.size for cp in checkpoints)
        path = self._path(tokens, adapters)
        with self._lock:
            if self.ram.keep(path, Held(payload, size, tuple(checkpoints))):
                self._register(Saved(path, list(tokens), adapters, size_all, time.time(), _chain(adapters, tokens),
                                     tuple((cp.n_tokens, cp.size) for cp in checkpoints), on_disk=False))
            if self.budget_bytes <= 0:
                return True
            if self._pending + size_all > MAX_PENDING_BYTES:
                self.stats.dropped_saves += 1
                return False
            self._pending += size_all
        self._queue.put((list(tokens), adapters, payload, size, tuple(checkpoints)))
        return True

    def _path(self, tokens: Sequence[int], adapters: str) -> Path:
        name = hashlib.sha256(adapters.encode() + struct.pack(f"<{len(tokens)}i", *tokens)).hexdigest()[:32]
        return self.directory / f"{name}.kv"

    def _register(self, saved: Saved) -> None:
        """Index ``saved`` (under the lock), in place of an entry for the same path (whose file it keeps, if
        written), dropping shorter entries whose tokens it starts with: they serve nothing it does not."""
        old = self._files.get(saved.path)
        if old is not None:
            saved.on_disk = saved.on_disk or old.on_disk
            self._drop_index(old)
        shorter = {id(f): f for f in (self._index.get(d) for d in saved.chain) if f is not None}
        self._add(saved)
        for other in shorter.values():
            if other is not saved and len(other.tokens) <= len(saved.tokens) \
                    and other.tokens == saved.tokens[:len(other.tokens)]:
                self._drop(other)

    def flush(self) -> None:
        """Wait until every queued save is on disk."""
        done = threading.Event()
        self._queue.put(done)
        done.wait(timeout=120)

    def close(self) -> None:
        self.flush()
        self._queue.put(None)
        self._writer.join(timeout=10)

    def _write_loop(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            if isinstance(item, threading.Event):
                item.set()
                continue
            tokens, adapters, payload, size, checkpoints = item
            try:
                self._write(tokens, adapters, payload, size, checkpoints)
            except OSError as exc:
                log.warning("could not save KV cells to %s: %s", self.directory, exc)
            finally:
                with self._lock:
                    self._pending -= size + sum(cp.size for cp in checkpoints)

    def _write(self, tokens: list[int], adapters: str, payload: Any, size: int,
               checkpoints: tuple[Checkpoint, ...] = ()) -> None:
        path = self._path(tokens, adapters)
        marks = tuple((cp.n_tokens, cp.size) for cp in checkpoints)
        header = json.dumps({"adapters": adapters, "payload": size,
                             **({"checkpoints": marks} if marks else {})}).encode()
        temporary = path.with_suffix(".tmp")
        with temporary.open("wb") as handle:
            handle.write(MAGIC + _HEADER.pack(len(header), len(tokens)) + header)
            handle.write(struct.pack(f"<{len(tokens)}i", *tokens))
            write_sliced(handle, memoryview(payload).cast("B")[:size])
            for checkpoint in checkpoints:
                write_sliced(handle, memoryview(checkpoint.payload).cast("B")[:checkpoint.size])
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
        _fsync_directory(self.directory)
        saved = Saved(path, tokens, adapters, path.stat().st_size, time.time(), _chain(adapters, tokens), marks)
        with self._lock:
            self._register(saved)
            self.stats.saves += 1
            self.stats.saved_bytes += saved.size
            self._hold_budget(keep=saved)

    def _drop_index(self, saved: Saved) -> None:
        """Forget the file (its bytes stay)."""
        self._files.pop(saved.path, None)
        for digest in saved.chain:
            if self._index.get(digest) is saved:
                del self._index[digest]

    def _hold_budget(self, keep: Saved) -> None:
        files = [saved for saved in self._files.values() if saved.on_disk]
        total = sum(saved.size for saved in files)
        for saved in sorted(files, key=lambda s: s.used):
            if total <= self.budget_bytes:
                return
            if saved is keep:
                continue
            total -= saved.size
            self._drop_file(saved)
        if total > self.budget_bytes:  # the new file alone is over the budget
            self._drop_file(keep)

    def _drop_file(self, saved: Saved) -> None:
        """Remove the file; an entry the RAM tier still holds stays (only in memory now)."""
        if not self.ram.holds(saved.path):
            self._drop(saved)
            return
        with contextlib.suppress(OSError):
            saved.path.unlink()
        saved.on_disk = False
        self.stats.removed += 1


def _mapped(fd: int, offset: int, size: int) -> Any:
    """``size`` bytes of the file from ``offset`` as a ctypes array over a private, read-only mapping of it, which
    the kernel is asked to read ahead, unmapped when the array is dropped. A request waiting for a lane holds its
    prefix this way: the bytes sit in the page cache, which the system can take back, not in this process's memory
    (a queue of requests each holding a read copy of megabytes of cells grew the soak's RSS with the queue)."""
    start = offset - offset % mmap.ALLOCATIONGRANULARITY
    length = offset + size - start
    libc = _libc()
    address = libc.mmap(None, length, mmap.PROT_READ, mmap.MAP_PRIVATE, fd, start)
    if address is None or address == _MAP_FAILED:
        raise OSError(ctypes.get_errno(), "could not map the file")
    libc.madvise(address, length, mmap.MADV_WILLNEED)
    array = (ctypes.c_uint8 * size).from_address(address + offset - start)
    weakref.finalize(array, libc.munmap, address, length)
    return array


_MAP_FAILED = ctypes.c_void_p(-1).value


@functools.cache
def _libc() -> Any:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
    libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    return libc


def _read_header(path: Path) -> Saved | None:
    try:
        size = path.stat().st_size
        with path.open("rb") as handle:
            head = handle.read(len(MAGIC) + _HEADER.size)
            if not head.startswith(MAGIC) or len(head) != len(MAGIC) + _HEADER.size:
                return None
            header_len, n_tokens = _HEADER.unpack(head[len(MAGIC):])
            header = json.loads(handle.read(header_len))
            raw = handle.read(4 * n_tokens)
            if len(raw) != 4 * n_tokens:
                return None
            tokens = list(struct.unpack(f"<{n_tokens}i", raw))
        marks = _checkpoint_marks(header)
        if size != len(MAGIC) + _HEADER.size + header_len + 4 * n_tokens + int(header["payload"]) + sum(
                n for _, n in marks):
            return None
        return Saved(path, tokens, str(header["adapters"]), size, path.stat().st_mtime, checkpoints=marks)
    except (OSError, ValueError, KeyError, TypeError, struct.error):
        return None


def _checkpoint_marks(header: dict[str, Any]) -> tuple[tuple[int, int], ...]:
    """The (token count, bytes) of each checkpoint a file's header lists, in order (a file of an attention-only
    model has none)."""
    return tuple((int(n), int(size)) for n, size in header.get("checkpoints", ()))


def write_sliced(handle: Any, data: memoryview) -> None:
    """Write ``data`` to ``handle`` in calls of at most ``WRITE_SLICE`` bytes (why: ``WRITE_SLICE``)."""
    for start in range(0, len(data), WRITE_SLICE):
        handle.write(data[start:start + WRITE_SLICE])


def _fsync_directory(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


# ---- on the engine thread ----

def spill(tier: KvDiskTier | None, lane: Any) -> None:
    """Save ``lane``'s cells (and its checkpoints) before they are dropped, unless the tier already holds nearly
    all of its tokens."""
    n = len(lane.tokens)
    if tier is None or n < tier.min_tokens:
        return
    adapters = repr(lane.adapters)
    found = tier.find(lane.tokens, adapters)
    if found is not None and found.common >= n - BLOCK:
        return
    import llama_cpp

    size = int(llama_cpp.llama_state_seq_get_size(lane.ctx, lane.seq))
    if size <= 0:
        return
    buffer = byte_buffer(size)
    written = int(llama_cpp.llama_state_seq_get_data(lane.ctx, buffer, size, lane.seq))
    if written > 0:
        tier.save(lane.tokens, adapters, buffer, written, lane.checkpoints)


def restore(tier: KvDiskTier, found: Found, lane: Any, keep: int, *, rollback: bool = True) -> bool:
    """Load ``found``'s cells into ``lane`` (emptied by the caller) and keep its first ``keep`` tokens; False if
    llama.cpp refused them (then the lane is empty, and the file is not offered again by this process). Without
    ``rollback`` (a recurrent state), ``keep`` is the file's end or one of its checkpoints (``Found.resume_point``),
    whose state is loaded over the end's."""
    import llama_cpp

    payload = found.payload
    loaded = int(llama_cpp.llama_state_seq_set_data(lane.ctx, payload, len(payload), lane.seq))
    if loaded <= 0:
        llama_cpp.llama_memory_seq_rm(lane.memory, lane.seq, -1, -1)
        tier.note_refused(found)
        return False
    lane.tokens = list(found.saved.tokens)
    lane.checkpoints = [cp for cp in found.checkpoints if cp.n_tokens <= keep]
    if rollback or keep == len(found.saved.tokens):
        llama_cpp.llama_memory_seq_rm(lane.memory, lane.seq, keep, -1)
        del lane.tokens[keep:]
    else:
        checkpoint = checkpoint_at(found.checkpoints, keep)
        if checkpoint is None or not load_checkpoint(lane, checkpoint):
            clear_lane(lane)
            tier.note_refused(found)
            return False
    tier.note_restored(found, keep)
    return True


def open_tier(llama: Any, settings: Any, model_id: str) -> KvDiskTier | None:
    """The disk tier of a generation model under ``settings`` (--kv-disk-bytes, --sessions), or None when off
    or when its directory cannot be made (logged: the model serves without it)."""
    if (settings.kv_disk_bytes <= 0 and settings.cache_ram_bytes == 0) or llama.pooling is not None:
        return None
    import llama_cpp

    try:
        key = {"model": model_digest(llama.path), "llama_cpp": llama_cpp.__version__, "window": llama.n_ctx,
               "kv_size": llama.kv_size, "unified": llama.kv_unified, "flash_attn": llama.flash_attn_type,
               "overrides": repr(settings.override_kv), "format": MAGIC.decode("latin-1")}
        root = settings.sessions_path() / "kv"
        return KvDiskTier(root / tier_name(key), budget_bytes=settings.kv_disk_bytes,
                          min_tokens=settings.kv_disk_min_tokens, ram_bytes=settings.cache_ram_bytes)
    except OSError as exc:
        log.warning("%s: the prefix cache's disk tier is off: %s", model_id, exc)
        return None
