"""Which adapter files a request may name (the adapters directory and start-up names only), and the header
checks that refuse files that are not LoRA adapters for the model, each with a message that says why."""

from __future__ import annotations

import asyncio
import concurrent.futures
from pathlib import Path
from typing import Any

import gguf
import numpy as np
import pytest
from conformance.lora_adapters import write_adapter

from superfluid.engine.models.gguf_header import GgufHeader
from superfluid.engine.models.lora import AdapterCatalog, ModelAdapters, check_adapter
from superfluid.errors import AdapterRefused
from superfluid.settings import Settings

SHAPES = {"blk.0.attn_q.weight": (8, 8), "blk.0.attn_v.weight": (8, 4), "token_embd.weight": (8, 32)}
MODEL = GgufHeader({"general.architecture": "llama"}, {name: shape for name, shape in SHAPES.items()})


@pytest.fixture
def adapters(tmp_path: Path) -> Path:
    directory = tmp_path / "adapters"
    write_adapter(directory / "style.gguf", shapes=SHAPES)
    write_adapter(directory / "team" / "tone.gguf", shapes=SHAPES)
    write_adapter(tmp_path / "outside.gguf", shapes=SHAPES)
    (directory / "escape.gguf").symlink_to(tmp_path / "outside.gguf")
    return directory


def test_files_under_the_directory_resolve_to_their_relative_id(adapters: Path) -> None:
    catalog = AdapterCatalog(Settings(lora_dir=adapters))
    assert catalog.resolve("style.gguf") == ("style.gguf", adapters / "style.gguf", "lora-dir")
    assert catalog.resolve("./team/../team/tone.gguf")[0] == "team/tone.gguf"
    assert catalog.resolve(str(adapters / "style.gguf"))[0] == "style.gguf"  # an absolute path inside is fine


@pytest.mark.parametrize("name, message", [
    ("../outside.gguf", "leads outside the adapters directory"),
    ("escape.gguf", "leads outside the adapters directory"),  # a symlink that points out
    ("/etc/passwd", "leads outside the adapters directory"),
    ("missing.gguf", "no adapter file 'missing.gguf'"),
    ("team", "no adapter file 'team'"),  # a directory is not a file
    ("", "must name an adapter file"),
    ("a\x00b", "must name an adapter file"),
])
def test_names_outside_the_directory_or_missing_are_refused(adapters: Path, name: str, message: str) -> None:
    with pytest.raises(AdapterRefused, match=message) as caught:
        AdapterCatalog(Settings(lora_dir=adapters)).resolve(name)
    assert caught.value.param == "path" and caught.value.status == 400


def test_start_up_adapters_are_known_by_their_name_or_path_even_outside_the_directory(adapters: Path) -> None:
    outside = adapters.parent / "outside.gguf"
    catalog = AdapterCatalog(Settings(lora_dir=adapters, lora=((str(outside), 0.5),)))
    assert catalog.resolve(str(outside)) == (str(outside), outside, "startup")
    assert catalog.resolve("../outside.gguf")[2] == "startup"  # the same file, however it is spelled


def test_without_a_directory_only_start_up_adapters_are_known(adapters: Path) -> None:
    catalog = AdapterCatalog(Settings(lora=((str(adapters / "style.gguf"), 1.0),)))
    assert catalog.resolve(str(adapters / "style.gguf"))[2] == "startup"
    with pytest.raises(AdapterRefused, match="no adapters directory"):
        catalog.resolve(str(adapters / "team" / "tone.gguf"))


def test_unload_resolves_a_file_that_no_longer_exists(adapters: Path) -> None:
    catalog = AdapterCatalog(Settings(lora_dir=adapters))
    assert catalog.resolve("gone.gguf", must_exist=False)[1] == adapters / "gone.gguf"


def test_an_adapter_that_fits_passes_and_is_identified_by_its_file_version(adapters: Path) -> None:
    file = check_adapter("style.gguf", adapters / "style.gguf", MODEL, "m")
    assert file.path == adapters / "style.gguf" and file.size == (adapters / "style.gguf").stat().st_size


def _refusal(path: Path) -> str:
    with pytest.raises(AdapterRefused) as caught:
        check_adapter(path.name, path, MODEL, "m")
    assert caught.value.param == "path" and caught.value.code == "invalid_lora_adapter"
    return caught.value.message


def test_files_that_are_not_lora_adapters_for_this_model_are_refused(tmp_path: Path) -> None:
    text = tmp_path / "text.gguf"
    text.write_text("not a model")
    assert "not a GGUF LoRA adapter" in _refusal(text)
    assert "general.type is 'model'" in _refusal(write_adapter(tmp_path / "m.gguf", general_type="model",
                                                               shapes=SHAPES))
    assert "for the 'gemma3' architecture; model 'm' is 'llama'" in _refusal(
        write_adapter(tmp_path / "g.gguf", arch="gemma3", shapes=SHAPES))
    bigger = {name: (n_in * 2, n_out) for name, (n_in, n_out) in SHAPES.items()}
    assert "does not fit tensor 'blk.0.attn_q.weight'" in _refusal(write_adapter(tmp_path / "s.gguf", shapes=bigger))
    assert "which this model does not have" in _refusal(
        write_adapter(tmp_path / "x.gguf", shapes={"blk.9.attn_q.weight": (8, 8)}))
    assert "cannot be read" in _refusal(tmp_path / "absent.gguf")


def _embedding_adapter(path: Path, a_rows: int) -> Path:
    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_type("adapter")
    writer.add_string("adapter.type", "lora")
    writer.add_tensor("token_embd.weight.lora_a", np.zeros((a_rows, 4), dtype=np.float32))  # ne (4, a_rows)
    writer.add_tensor("token_embd.weight.lora_b", np.zeros((8, 4), dtype=np.float32))  # ne (4, 8)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


def test_the_embedding_pair_is_checked_the_other_way_round(tmp_path: Path) -> None:
    # llama.cpp looks token rows up in lora_a (one row per vocabulary entry) and projects them with lora_b.
    check_adapter("e.gguf", _embedding_adapter(tmp_path / "e.gguf", a_rows=32), MODEL, "m")
    assert "does not fit tensor 'token_embd.weight'" in _refusal(_embedding_adapter(tmp_path / "w.gguf", a_rows=8))


class _EngineThread:
    """Stands in for the scheduler: records the adapter files it is asked to load."""

    def __init__(self) -> None:
        self.loaded: list[Path] = []

    def load_adapter(self, file: Any) -> concurrent.futures.Future[None]:
        self.loaded.append(file.path)
        done: concurrent.futures.Future[None] = concurrent.futures.Future()
        done.set_result(None)
        return done


def test_load_rescale_and_unload_change_the_active_set_in_order(adapters: Path, tmp_path: Path) -> None:
    model_path = write_adapter(tmp_path / "model-header.gguf", shapes=SHAPES)  # only its header is read
    engine = _EngineThread()
    lora = ModelAdapters("m", model_path, AdapterCatalog(Settings(lora_dir=adapters)), engine)  # type: ignore[arg-type]
    lora._model_header = MODEL

    async def run() -> None:
        await lora.load("style.gguf", 1.0)
        await lora.load("team/tone.gguf", 0.5)
        assert [(a.id, a.scale) for a in lora.active] == [("style.gguf", 1.0), ("team/tone.gguf", 0.5)]
        await lora.load("style.gguf", -0.25)  # a new scale replaces the adapter where it stands
        assert [(a.id, a.scale) for a in lora.active] == [("style.gguf", -0.25), ("team/tone.gguf", 0.5)]
        assert [a.id for a in lora.unload("style.gguf")] == ["team/tone.gguf"]
        with pytest.raises(AdapterRefused, match=r"'style\.gguf' is not active on model 'm'"):
            lora.unload("style.gguf")
        assert lora.unload(None) == ()
        await lora.load("style.gguf", 1.0, apply=False)  # loaded on the engine thread, not applied
        assert lora.active == ()

    asyncio.run(run())
    assert engine.loaded == [adapters / "style.gguf", adapters / "team" / "tone.gguf", adapters / "style.gguf",
                             adapters / "style.gguf"]


def test_names_the_file_system_cannot_take_are_refused(adapters: Path) -> None:
    (adapters / "loop.gguf").symlink_to(adapters / "loop.gguf")
    catalog = AdapterCatalog(Settings(lora_dir=adapters))
    for name in ("a" * 5000, "loop.gguf"):
        with pytest.raises(AdapterRefused) as caught:
            catalog.resolve(name)
        assert caught.value.param == "path"
