"""The prefix cache's disk tier without a model: files found by their tokens' blocks, read back whole, written
crash-safely, bounded by the budget, and never loaded when torn, foreign or of another adapter set."""

from __future__ import annotations

import ctypes
import gc
import os
import time
from pathlib import Path

from superfluid.engine.scheduling.kv_disk import (
    BLOCK,
    WRITE_SLICE,
    KvDiskTier,
    model_digest,
    tier_name,
    write_sliced,
)


def _payload(size: int, fill: int = 7) -> ctypes.Array[ctypes.c_uint8]:
    buffer = (ctypes.c_uint8 * size)()
    ctypes.memset(buffer, fill, size)
    return buffer


def _tier(path: Path, budget: int = 1 << 30) -> KvDiskTier:
    return KvDiskTier(path, budget_bytes=budget, min_tokens=BLOCK)


def _save(tier: KvDiskTier, tokens: list[int], adapters: str = "()", size: int = 1000) -> None:
    assert tier.save(tokens, adapters, _payload(size), size)
    tier.flush()


def test_a_prompt_finds_the_longest_saved_prefix_and_reads_it_back(tmp_path: Path) -> None:
    tier = _tier(tmp_path)
    conversation = list(range(1000, 1300))
    _save(tier, conversation, size=4096)
    prompt = conversation[:250] + [5, 6, 7] * 30
    found = tier.find(prompt, "()")
    assert found is not None and found.common == 250
    loaded = tier.read(found)
    assert loaded is not None and bytes(loaded.payload) == bytes([7]) * 4096
    assert tier.find(conversation[:BLOCK - 1] + [1] * 100, "()") is None  # less than one block in common
    assert tier.find(prompt, "(adapter,)") is None  # another adapter set computes other keys and values
    tier.close()


def test_a_read_prefix_maps_the_file_until_it_is_dropped(tmp_path: Path) -> None:
    """A request waiting for a lane holds its prefix as a mapping of the file (page cache, not the process's own
    memory), and dropping it unmaps it: nothing stays behind for a request that ends."""
    tier = _tier(tmp_path)
    conversation = list(range(2000, 2200))
    _save(tier, conversation, size=3 * 4096 + 5)
    found = tier.find(conversation, "()")
    assert found is not None
    loaded = tier.read(found)
    assert loaded is not None and bytes(loaded.payload) == bytes([7]) * (3 * 4096 + 5)
    path = str(loaded.saved.path)
    assert path in Path("/proc/self/maps").read_text()
    del loaded
    gc.collect()
    assert path not in Path("/proc/self/maps").read_text()
    tier.close()


def test_a_payload_of_several_slices_is_written_in_slices_and_reads_back_whole(tmp_path: Path) -> None:
    """A lane's cells are tens of MB; one write call that size held a core in the kernel for half a second on
    the recording VM, so the payload goes out in slices, and the file still holds every byte in order."""
    sizes: list[int] = []

    class Recording:
        def write(self, data: memoryview) -> None:
            sizes.append(len(data))

    write_sliced(Recording(), memoryview(bytes(2 * WRITE_SLICE + 17)))
    assert sizes == [WRITE_SLICE, WRITE_SLICE, 17]

    tier = _tier(tmp_path)
    conversation = list(range(3000, 3100))
    size = 2 * WRITE_SLICE + 333
    payload = (ctypes.c_uint8 * size).from_buffer_copy(bytes(i % 251 for i in range(size)))
    assert tier.save(conversation, "()", payload, size)
    tier.flush()
    found = tier.find(conversation, "()")
    assert found is not None
    loaded = tier.read(found)
    assert loaded is not None and bytes(loaded.payload) == bytes(i % 251 for i in range(size))
    tier.close()


def test_files_survive_a_restart_and_torn_or_foreign_ones_are_removed(tmp_path: Path) -> None:
    tier = _tier(tmp_path)
    tokens = list(range(200))
    _save(tier, tokens)
    tier.close()
    (good,) = tmp_path.glob("*.kv")
    (tmp_path / "torn.kv").write_bytes(good.read_bytes()[:-10])  # a file cut short
    (tmp_path / "foreign.kv").write_bytes(b"not a kv file at all")
    (tmp_path / "half.tmp").write_bytes(b"a save that died")
    again = _tier(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == [good.name]
    found = again.find(tokens, "()")
    assert found is not None and found.common == 200
    again.close()


def test_a_file_changed_after_the_scan_is_removed_when_read(tmp_path: Path) -> None:
    tier = _tier(tmp_path)
    _save(tier, list(range(200)))
    found = tier.find(list(range(200)), "()")
    assert found is not None
    with found.saved.path.open("ab") as handle:
        handle.write(b"extra")
    assert tier.read(found) is None
    assert not found.saved.path.exists() and tier.find(list(range(200)), "()") is None
    tier.close()


def test_a_longer_save_of_the_same_conversation_replaces_the_shorter(tmp_path: Path) -> None:
    tier = _tier(tmp_path)
    first = list(range(300))
    _save(tier, first)
    _save(tier, [*first, *range(5000, 5200)])
    assert tier.view()["files"] == 1
    found = tier.find(first, "()")
    assert found is not None and found.common == 300
    tier.close()


def test_the_budget_keeps_the_most_recently_used(tmp_path: Path) -> None:
    size = 10_000
    tier = _tier(tmp_path, budget=3 * size + 3000)
    conversations = [list(range(n * 1000, n * 1000 + 200)) for n in range(5)]
    for tokens in conversations[:3]:
        _save(tier, tokens, size=size)
    used = tier.find(conversations[0], "()")
    assert used is not None
    tier.note_restored(used, 200)  # the first one was just used: it stays
    for tokens in conversations[3:]:
        _save(tier, tokens, size=size)
    assert tier.view()["bytes"] <= tier.budget_bytes
    assert [tier.find(tokens, "()") is not None for tokens in conversations] == [True, False, False, True, True]
    assert tier.stats.removed == 2
    tier.close()


def test_a_file_over_the_whole_budget_is_not_kept(tmp_path: Path) -> None:
    tier = _tier(tmp_path, budget=500)
    _save(tier, list(range(200)), size=1000)
    assert tier.view()["files"] == 0 and list(tmp_path.glob("*.kv")) == []
    tier.close()


def test_the_tier_name_follows_the_model_file_and_settings(tmp_path: Path) -> None:
    model = tmp_path / "model.gguf"
    model.write_bytes(b"GGUF" + bytes(3 << 20))
    first = model_digest(model)
    with model.open("r+b") as handle:  # the same size, one byte changed in the last MiB
        handle.seek((3 << 20) - 5)
        handle.write(b"\x01")
    assert model_digest(model) != first
    settings = {"model": first, "window": 4096}
    assert tier_name(settings) != tier_name({**settings, "window": 8192})
    assert tier_name(settings) == tier_name(dict(reversed(settings.items())))


def test_servers_sharing_a_directory_see_each_others_files(tmp_path: Path) -> None:
    first, second = _tier(tmp_path), _tier(tmp_path)
    tokens = list(range(300))
    assert second.find(tokens, "()") is None
    time.sleep(0.01)  # a new modification time of the directory, even on coarse clocks
    _save(first, tokens)
    found = second.find(tokens, "()")
    assert found is not None and found.common == 300
    loaded = second.read(found)
    assert loaded is not None and bytes(loaded.payload) == bytes([7]) * 1000
    found.saved.path.unlink()  # the other server removed it (its budget)
    time.sleep(0.01)
    os.utime(tmp_path)
    assert second.find(tokens, "()") is None
    first.close()
    second.close()
