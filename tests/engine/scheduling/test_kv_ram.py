"""The prefix cache's RAM tier, alone and under the disk tier's index: a saved lane is found and read from memory
before its file is written, the least recently used goes first past the budget, and with the disk tier off a
prefix lives as long as its RAM copy."""

from __future__ import annotations

import ctypes
import threading
from pathlib import Path

from superfluid.engine.scheduling.kv_disk import BLOCK, KvDiskTier
from superfluid.engine.scheduling.kv_ram import Held, RamTier


def _payload(size: int, fill: int = 7) -> ctypes.Array[ctypes.c_uint8]:
    buffer = (ctypes.c_uint8 * size)()
    ctypes.memset(buffer, fill, size)
    return buffer


def test_the_least_recently_used_goes_first_past_the_budget() -> None:
    gone: list[Path] = []
    ram = RamTier(2500, evicted=gone.append)
    for name in "abc":
        assert ram.keep(Path(name), Held(_payload(1000), 1000, ()))
    assert gone == [Path("a")] and not ram.holds(Path("a"))
    assert ram.get(Path("b")) is not None  # now the most recently used
    ram.keep(Path("d"), Held(_payload(1000), 1000, ()))
    assert gone == [Path("a"), Path("c")] and ram.holds(Path("b"))
    assert not ram.keep(Path("e"), Held(_payload(3000), 3000, ()))  # larger than the whole budget
    assert not RamTier(0).keep(Path("f"), Held(_payload(10), 10, ()))  # --cache-ram 0: off
    assert RamTier(-1).keep(Path("g"), Held(_payload(10**6), 10**6, ()))  # -1: no bound


def test_a_save_is_found_and_read_from_memory_before_its_file_is_written(tmp_path: Path) -> None:
    tier = KvDiskTier(tmp_path, budget_bytes=1 << 30, min_tokens=BLOCK, ram_bytes=1 << 20)
    conversation = list(range(100, 400))
    written = threading.Event()
    original = tier._write

    def slow_write(*args: object) -> None:  # the writer holds the save until the test lets it go
        written.wait(timeout=30)
        original(*args)  # type: ignore[arg-type]

    tier._write = slow_write  # type: ignore[method-assign]
    assert tier.save(conversation, "()", _payload(4096, fill=3), 4096)
    found = tier.find([*conversation, 1, 2, 3], "()")
    assert found is not None and found.common == len(conversation)
    loaded = tier.read(found)
    assert loaded is not None and loaded.from_ram and bytes(loaded.payload) == bytes([3]) * 4096
    assert tier.view()["files"] == 0 and tier.view()["ram_entries"] == 1
    written.set()
    tier.flush()
    assert tier.view()["files"] == 1  # written too: it outlives the process
    tier.note_restored(loaded, len(conversation))
    assert tier.view()["ram_restores"] == 1
    tier.close()


def test_with_the_disk_tier_off_a_prefix_lives_as_long_as_its_ram_copy(tmp_path: Path) -> None:
    tier = KvDiskTier(tmp_path, budget_bytes=0, min_tokens=BLOCK, ram_bytes=5000)
    first, second = list(range(1000, 1200)), list(range(2000, 2200))
    assert tier.save(first, "()", _payload(4000), 4000)
    assert tier.find(first, "()") is not None
    assert tier.save(second, "()", _payload(4000), 4000)  # over the budget: the first goes
    assert tier.find(first, "()") is None and tier.find(second, "()") is not None
    tier.flush()
    assert not list(tmp_path.glob("*.kv"))  # nothing written
    tier.close()
