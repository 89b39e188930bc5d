"""llama.cpp's AMX kernels: the check that decides whether models load with the extra buffer types, and model
loads that leave no OpenMP pool behind (docs/models.md, CPUs with AMX)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import llama_cpp
import pytest

from superfluid.engine.models import amx, llama_model
from superfluid.engine.models.llama_model import LlamaModel
from superfluid.engine.models.model_sources import DEFAULT_MODEL, resolve
from superfluid.errors import EngineFailure


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """No remembered verdict, a cache directory of the test's own, and no setting in the environment."""
    amx.extra_buffers_usable.cache_clear()
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv(amx.ENV, raising=False)
    yield tmp_path
    amx.extra_buffers_usable.cache_clear()


def test_without_amx_kernels_extra_buffers_are_used_unchecked(fresh: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(amx, "built_with_amx", lambda: False)
    monkeypatch.setattr(amx, "_check", lambda: pytest.fail("checked a build without AMX kernels"))
    assert amx.extra_buffers_usable()


@pytest.mark.parametrize("setting, usable", [("on", True), ("1", True), ("off", False), ("0", False)])
def test_the_environment_setting_skips_the_check(fresh: Path, monkeypatch: pytest.MonkeyPatch, setting: str,
                                                 usable: bool) -> None:
    monkeypatch.setattr(amx, "built_with_amx", lambda: True)
    monkeypatch.setattr(amx, "_check", lambda: pytest.fail("checked despite the setting"))
    monkeypatch.setenv(amx.ENV, setting)
    assert amx.extra_buffers_usable() is usable


@pytest.mark.parametrize("usable", [True, False])
def test_a_conclusive_verdict_is_kept_per_build(fresh: Path, monkeypatch: pytest.MonkeyPatch, usable: bool) -> None:
    monkeypatch.setattr(amx, "built_with_amx", lambda: True)
    checks: list[bool] = []
    monkeypatch.setattr(amx, "_check", lambda: checks.append(usable) or amx.Verdict(usable, conclusive=True))
    assert amx.extra_buffers_usable() is usable
    kept = list((fresh / "superfluid").glob("amx-*"))
    assert len(kept) == 1 and json.loads(kept[0].read_text()) == {"usable": usable}
    amx.extra_buffers_usable.cache_clear()  # a later process
    assert amx.extra_buffers_usable() is usable
    assert checks == [usable]


def test_a_check_that_could_not_run_decides_for_this_process_only(fresh: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(amx, "built_with_amx", lambda: True)
    monkeypatch.setattr(amx, "_check", lambda: amx.Verdict(usable=False, conclusive=False))
    assert not amx.extra_buffers_usable()
    assert not (fresh / "superfluid").exists() or not list((fresh / "superfluid").iterdir())


def test_a_damaged_verdict_is_checked_again(fresh: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(amx, "built_with_amx", lambda: True)
    monkeypatch.setattr(amx, "_check", lambda: amx.Verdict(usable=True, conclusive=True))
    kept = amx._verdict_file()
    assert kept is not None
    kept.parent.mkdir(parents=True)
    kept.write_text("{not json")
    assert amx.extra_buffers_usable()
    assert json.loads(kept.read_text()) == {"usable": True}


def test_no_cache_directory_only_means_checking_each_time(fresh: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(amx, "built_with_amx", lambda: True)
    monkeypatch.setattr(amx, "_check", lambda: amx.Verdict(usable=True, conclusive=True))
    blocker = fresh / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))  # the cache directory cannot be made
    assert amx.extra_buffers_usable()
    amx.extra_buffers_usable.cache_clear()

    def no_home() -> Path:
        raise RuntimeError("Could not determine home directory.")

    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setattr(Path, "home", staticmethod(no_home))
    assert amx._verdict_file() is None
    assert amx.extra_buffers_usable()


@pytest.mark.parametrize("code, verdict", [
    ("pass", amx.Verdict(usable=True, conclusive=True)),
    ("import os, signal; os.kill(os.getpid(), signal.SIGSEGV)", amx.Verdict(usable=False, conclusive=True)),
    ("import os, signal; os.kill(os.getpid(), signal.SIGILL)", amx.Verdict(usable=False, conclusive=True)),
    (f"import sys; sys.exit({amx.DISAGREE})", amx.Verdict(usable=False, conclusive=True)),
    ("raise SystemExit('the bundled model is missing')", amx.Verdict(usable=False, conclusive=False)),
])
def test_what_the_childs_fate_means(code: str, verdict: amx.Verdict) -> None:
    assert amx._check([sys.executable, "-c", code]) == verdict


def test_a_child_that_never_ends_is_not_a_verdict(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(amx, "CHECK_TIMEOUT_S", 0.5)
    assert amx._check([sys.executable, "-c", "import time; time.sleep(30)"]) == amx.Verdict(False, conclusive=False)


def test_the_check_runs_the_kernels_in_a_child_and_passes_on_a_build_without_amx() -> None:
    """The real check: a child process decodes with and without the extra buffer types. Where llama.cpp has no
    AMX kernels both loads use the same kernels, so it must pass; with AMX it passes exactly when the kernels
    work, which only the child's fate can tell (a GCC 12 build without -fno-dse dies with SIGILL or SIGSEGV)."""
    done = subprocess.run([sys.executable, "-m", "superfluid.engine.models.amx"], capture_output=True, text=True,
                          timeout=amx.CHECK_TIMEOUT_S, check=False)
    if not amx.built_with_amx():
        assert done.returncode == 0, done.stderr[-2000:]
    if done.returncode == 0:
        assert "agree with the plain ones on" in done.stdout
    else:
        assert amx.built_with_amx()
        assert done.returncode < 0 or "disagree" in done.stderr, done.stderr[-2000:]


def _threads() -> set[str]:
    return set(os.listdir("/proc/self/task"))


def test_a_model_load_runs_in_a_thread_that_ends(monkeypatch: pytest.MonkeyPatch) -> None:
    """llama.cpp converts weights for the extra buffer types in an OpenMP region; the thread that opened it keeps a
    pool of workers while it lives, and a second pool (the engine thread's) throttles both to a few spins. The load
    runs in a thread that ends, taking its pool with it (on a plain build the load opens no region, so the thread
    count alone proves nothing there; the loading thread's name does)."""
    real = llama_cpp.llama_model_load_from_file
    seen: list[tuple[str, bool]] = []

    def load(path: bytes, params: Any) -> Any:
        seen.append((threading.current_thread().name, bool(params.use_extra_bufts)))
        return real(path, params)

    monkeypatch.setattr(llama_cpp, "llama_model_load_from_file", load)
    before = _threads()
    model = LlamaModel(resolve(DEFAULT_MODEL).locate(), n_ctx=512, n_seq_max=1, n_batch=64, n_threads=2)
    try:
        assert seen == [("model-load", amx.extra_buffers_usable())]
        assert _threads() <= before
        assert not [t for t in threading.enumerate() if t.name == "model-load"]
    finally:
        model.close()


@pytest.mark.parametrize("usable", [True, False])
def test_a_load_uses_the_extra_buffer_types_as_the_check_says(monkeypatch: pytest.MonkeyPatch, usable: bool) -> None:
    seen: list[bool] = []

    def load(_path: bytes, params: Any) -> None:
        seen.append(bool(params.use_extra_bufts))
        return None  # a failed load: nothing is loaded

    monkeypatch.setattr(llama_model, "extra_buffers_usable", lambda: usable)
    monkeypatch.setattr(llama_cpp, "llama_model_load_from_file", load)
    with pytest.raises(EngineFailure):
        llama_model._load(resolve(DEFAULT_MODEL).locate(), vocab_only=False)
    assert seen == [usable]


def test_a_failed_load_raises_in_the_caller() -> None:
    with pytest.raises(ValueError, match="boom"):
        llama_model._in_passing_thread(lambda: (_ for _ in ()).throw(ValueError("boom")))
    assert llama_model._in_passing_thread(lambda: 7) == 7
