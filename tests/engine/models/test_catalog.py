"""The models a server knows at start: CLI references and the --models file."""

from __future__ import annotations

from pathlib import Path

import pytest

from superfluid.engine.models.catalog import entries
from superfluid.engine.models.model_sources import DEFAULT_MODEL, ModelSourceError
from superfluid.settings import Settings


@pytest.fixture
def gguf(tmp_path: Path) -> Path:
    path = tmp_path / "weights" / "tiny.gguf"
    path.parent.mkdir()
    path.write_bytes(b"GGUF")
    return path


def test_cli_models_then_file_models_with_their_own_settings(tmp_path: Path, gguf: Path) -> None:
    models = tmp_path / "models.toml"
    models.write_text("""
[[models]]
model = "weights/tiny.gguf"
alias = "tiny"
ctx_size = 1024
parallel = 2
idle_timeout = 30
eager = true

[[models]]
model = "weights/tiny.gguf"
alias = "tiny-wide"
kv_size = 8192
""")
    settings = Settings(models=(DEFAULT_MODEL,), models_file=models, idle_timeout_s=5, parallel=4)
    found = entries(settings)
    assert [e.id for e in found] == [DEFAULT_MODEL, "tiny", "tiny-wide"]
    default, tiny, wide = found
    assert (default.settings.parallel, default.idle_timeout_s, default.eager) == (4, 5, False)
    assert (tiny.settings.ctx_size, tiny.settings.parallel, tiny.idle_timeout_s, tiny.eager) == (1024, 2, 30, True)
    assert tiny.source.locate() == gguf.resolve()  # relative to the file's folder
    assert (wide.settings.kv_size, wide.settings.parallel, wide.idle_timeout_s) == (8192, 4, 5)


def test_a_models_file_alone_names_the_default(tmp_path: Path, gguf: Path) -> None:
    models = tmp_path / "models.yaml"
    models.write_text(f"models:\n  - model: {gguf}\n  - model: {DEFAULT_MODEL}\n")
    found = entries(Settings(models=(), models_file=models))
    assert [e.id for e in found] == ["tiny", DEFAULT_MODEL]


@pytest.mark.parametrize(("text", "message"), [
    ("[[models]]\nalias = 'x'\n", "needs a 'model' reference"),
    ("[[models]]\nmodel = 'weights/tiny.gguf'\ncolour = 1\n", "unknown key(s) colour"),
    ("[[models]]\nmodel = 'weights/tiny.gguf'\nparallel = 0\n", "parallel must be at least 1"),
    ("[[models]]\nmodel = 'weights/tiny.gguf'\nctx_size = -1\n", "ctx_size must be a whole number"),
    ("[[models]]\nmodel = 'weights/tiny.gguf'\nidle_timeout = 'soon'\n", "idle_timeout must be a number"),
    ("[[models]]\nmodel = 'weights/tiny.gguf'\neager = 'yes'\n", "eager must be true or false"),
    ("[[models]]\nmodel = 'weights/missing.gguf'\n", "no such model file"),
    ("[[models]]\nmodel = 'weights/tiny.gguf'\n[[models]]\nmodel = 'weights/tiny.gguf'\n", "two models have the id"),
    ("models = 3\n", "expected a list named 'models'"),
    ("[[models]\n", "not valid TOML"),
])
def test_models_file_errors_say_where_and_why(tmp_path: Path, gguf: Path, text: str, message: str) -> None:
    models = tmp_path / "models.toml"
    models.write_text(text)
    with pytest.raises(ModelSourceError) as caught:
        entries(Settings(models=(), models_file=models))
    assert message in str(caught.value)


def test_an_unknown_extension_and_no_models_are_refused(tmp_path: Path) -> None:
    odd = tmp_path / "models.ini"
    odd.write_text("")
    with pytest.raises(ModelSourceError, match=r"expected a \.toml"):
        entries(Settings(models=(), models_file=odd))
    with pytest.raises(ModelSourceError, match="no model to serve"):
        entries(Settings(models=()))
