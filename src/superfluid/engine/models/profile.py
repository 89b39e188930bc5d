"""What a model is and can do, read from its GGUF metadata (no weights needed)."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from superfluid.engine.decoding.sampling import model_defaults
from superfluid.engine.models.chat_template import (
    ChatTemplate,
    TemplateCompileError,
    builtin_template_source,
    family_template_name,
)
from superfluid.engine.models.llama_model import context_window
from superfluid.engine.models.model_metadata import ModelMetadata
from superfluid.settings import Settings

log = logging.getLogger(__name__)

REASONING_LEVELS = ("minimal", "low", "medium", "high")
POOLED = ("mean", "cls", "last")
"""Pooling types an embedding request can be served with (one vector per input)."""


def embedding_window(window: int, batch_size: int) -> int:
    """Most tokens in one embedding input: a pooled sequence must fit one llama.cpp micro-batch, so the
    window is capped at the batch size (at least 512, a BERT's whole window)."""
    return min(window, max(batch_size, 512))


def text_modalities(**on: bool) -> dict[str, bool]:
    """The modalities part of a capability record: what a model takes besides text, and which Whisper tasks
    it runs. Every key is present, false unless ``on`` says otherwise."""
    record = {"text": True, "image": False, "audio": False, "whisper_transcription": False,
              "whisper_translation": False}
    record.update(on)
    return record


def check_template_file(path: Path) -> None:
    """Compile a ``--chat-template-file`` before serving: TemplateCompileError (naming the file and line) if it
    does not compile, OSError if it cannot be read."""
    ChatTemplate(Path(path).read_text("utf-8"), name=str(path), bos_token="", eos_token="")


def choose_template(meta: ModelMetadata, settings: Settings, path: Path) -> tuple[ChatTemplate, str]:
    """The chat template to serve with, and where it came from (file, builtin or gguf)."""
    tokens = {"bos_token": meta.bos_token, "eos_token": meta.eos_token}
    if settings.chat_template_file is not None:
        source = Path(settings.chat_template_file).read_text("utf-8")
        return ChatTemplate(source, name=Path(settings.chat_template_file).name, **tokens), "file"
    if settings.chat_template:
        name = settings.chat_template
        return ChatTemplate(builtin_template_source(name), name=name, **tokens), "builtin"
    if meta.chat_template:
        try:
            return ChatTemplate(meta.chat_template, name="gguf", **tokens), "gguf"
        except TemplateCompileError as exc:
            log.warning("%s: its own %s; serving it with a built-in template instead (--chat-template-file "
                        "replaces it)", path.name, exc)
    name = family_template_name(meta.architecture)
    log.info("%s has no chat template; using the built-in '%s' template", path.name, name)
    return ChatTemplate(builtin_template_source(name), name=name, **tokens), "builtin"


@dataclass(frozen=True)
class ModelProfile:
    id: str
    origin: str
    path: Path
    meta: ModelMetadata
    template: ChatTemplate
    template_origin: str
    n_ctx: int
    kind: str = "generation"
    """What llama.cpp serves the model for: generation, or embedding (a pooling encoder, or any model under
    --embedding, as llama-server does)."""
    pooling: str = "none"
    """For an embedding model: mean, cls or last (--pooling, else the GGUF's); none cannot be served."""
    fim_model: str | None = None
    """The model that answers this one's fill-in-the-middle requests (--fim-model), where it has no FIM tokens."""
    operator_sampling: tuple[tuple[str, float], ...] = ()
    """The operator's sampling flags (Settings.sampling)."""

    runtime = "llamacpp"

    @classmethod
    def build(cls, model_id: str, origin: str, path: Path, meta: ModelMetadata, settings: Settings,
              n_ctx: int | None = None) -> ModelProfile:
        template, template_origin = choose_template(meta, settings, path)
        embedding = meta.pooling_embeddings or settings.embedding
        window = n_ctx if n_ctx is not None else context_window(settings.ctx_size, meta.n_ctx_train)
        if embedding and n_ctx is None:
            window = embedding_window(window, settings.batch_size)
        pooling = (settings.pooling or meta.pooling) if embedding else "none"
        fim_model = settings.fim_model if meta.fim is None and settings.fim_model != model_id else None
        return cls(model_id, origin, path, meta, template, template_origin, window,
                   kind="embedding" if embedding else "generation", pooling=pooling,
                   fim_model=None if embedding else fim_model, operator_sampling=settings.sampling)

    # What every runtime's profile answers (see engine.models.registry.AnyProfile).
    @property
    def name(self) -> str:
        return self.meta.name

    @property
    def family(self) -> str:
        return self.meta.architecture

    @property
    def n_ctx_train(self) -> int:
        return self.meta.n_ctx_train

    @property
    def n_params(self) -> int | None:
        return self.meta.n_params

    @property
    def size_bytes(self) -> int:
        return self.meta.size_bytes

    @property
    def input_modalities(self) -> list[str]:
        return ["text"]

    @property
    def sampling_defaults(self) -> dict[str, float]:
        """What a request that names no sampling field runs with: the operator's flags over the model's."""
        return model_defaults(self.meta.sampling_defaults, dict(self.operator_sampling))

    @property
    def model_sampling_defaults(self) -> dict[str, float]:
        """The model's own defaults, without the operator's flags (what a batch line runs with)."""
        return model_defaults(self.meta.sampling_defaults)

    def dialect(self) -> dict[str, Any]:
        return {
            "enable_thinking": self.template.thinks,
            "reasoning_effort": self.template.reasoning_levels,
            "reasoning_effort_levels": list(REASONING_LEVELS) if self.template.reasoning_levels else [],
            "fim": self.meta.fim is not None,
            "fim_model": self.fim_model,
        }

    def capabilities(self) -> dict[str, Any]:
        embedding = self.kind == "embedding"
        return {
            "workload": {"generation": not embedding, "embedding": embedding and self.pooling in POOLED},
            "modalities": text_modalities(),
            "pooling": self.pooling if embedding else None,
            "chat_template": not embedding,
            "tools": self.template.supports_tools,
            "dialect": self.dialect(),
        }
