"""A loaded model as the HTTP layer sees it: what it is and can do, and the three parts that serve it, each in its
own module: prompt preparation (prompts.py), admission of requests (intake.py) and the engine thread's scheduler
(scheduling/), with the disk tier and LoRA adapters beside them. ServedModel builds them, reports on them and
hands each call to the part that does it; it holds no request logic of its own."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from superfluid.engine.decoding.grammar import GrammarTokenizer
from superfluid.engine.decoding.output_plan import OutputPlan
from superfluid.engine.models.adapter_types import AdapterSet
from superfluid.engine.models.intake import Intake
from superfluid.engine.models.llama_model import LlamaModel
from superfluid.engine.models.lora import AdapterCatalog, ModelAdapters
from superfluid.engine.models.model_sources import ModelSource
from superfluid.engine.models.offload import DeviceBook, Placement
from superfluid.engine.models.profile import ModelProfile
from superfluid.engine.models.prompts import LIGHT_PROMPT_CHARS, PromptBuilder, is_light
from superfluid.engine.scheduling.checkpoints import CheckpointPolicy
from superfluid.engine.scheduling.kv_disk import Found
from superfluid.engine.scheduling.kv_disk import open_tier as open_disk_tier
from superfluid.engine.scheduling.scheduler import Scheduler
from superfluid.engine.scheduling.stats import EngineStats
from superfluid.engine.scheduling.stream import GenerationStream
from superfluid.engine.types import GenerationRequest, PreparedPrompt, TextDelta
from superfluid.settings import Settings

__all__ = ["LIGHT_PROMPT_CHARS", "ServedModel", "is_light"]

log = logging.getLogger(__name__)


class ServedModel:
    def __init__(self, profile: ModelProfile, llama: LlamaModel, settings: Settings,
                 stats: EngineStats | None = None) -> None:
        self.profile = profile
        self.id = profile.id
        self._llama = llama
        self.settings = settings
        self.template = profile.template
        self.sampling_defaults = profile.sampling_defaults
        self.model_sampling_defaults = profile.model_sampling_defaults
        self.grammar_tokenizer = GrammarTokenizer(llama.vocab, llama.meta.n_vocab, llama.eog_tokens)
        self._prompts = PromptBuilder(profile.id, llama, self.template, self.grammar_tokenizer)
        self._kv_disk = open_disk_tier(llama, settings, profile.id)
        self._scheduler = Scheduler(llama, name=profile.id, grammar=self.grammar_tokenizer,
                                   spec_draft=settings.spec_draft, stats=stats,
                                   gather_s=settings.gather_ms / 1000, kv_disk=self._kv_disk,
                                   adapt_threads=settings.threads == 0,
                                   checkpoints=CheckpointPolicy(settings.ctx_checkpoints, settings.checkpoint_min_step))
        if not llama.rollback:
            log.info("%s: %s memory (recurrent state): a lane resumes at its end or at a checkpoint (at most %d per "
                     "lane); prompt-lookup drafting is off%s", profile.id, llama.memory_kind,
                     settings.ctx_checkpoints, " (--spec-draft is ignored)" if settings.spec_draft else "")
        self._lora = ModelAdapters(profile.id, llama.path, AdapterCatalog(settings), self._scheduler)
        self._intake = Intake(self._prompts, self._scheduler, self._kv_disk, self._lora, settings,
                              sampling_defaults=self.sampling_defaults,
                              model_sampling_defaults=self.model_sampling_defaults, eog_tokens=llama.eog_tokens)

    @classmethod
    def load(cls, model_id: str, source: ModelSource, settings: Settings,
             stats: EngineStats | None = None, book: DeviceBook | None = None) -> ServedModel:
        """Load the model, its layers placed by ``settings.offload`` (``book``: what other models hold on the
        devices)."""
        path = source.locate()
        log.info("loading %s from %s", model_id, path)
        llama = LlamaModel(path, n_ctx=settings.ctx_size, n_seq_max=settings.parallel, kv_size=settings.kv_size,
                           kv_unified=settings.kv_unified, n_batch=settings.batch_size, n_threads=settings.threads,
                           overrides=settings.override_kv, flash_attn=settings.flash_attn,
                           offload=settings.offload, book=book)
        try:
            profile = ModelProfile.build(model_id, source.origin, path, llama.meta, settings, n_ctx=llama.n_ctx)
        except Exception:
            llama.close()
            raise
        return cls(profile, llama, settings, stats)

    def close(self) -> None:
        self._scheduler.close()

    # ---- LoRA adapters (docs/lora.md) -------------------------------------------------------------------------
    @property
    def adapters(self) -> AdapterSet:
        """The adapters new requests take."""
        return self._lora.active

    async def load_adapter(self, name: str, scale: float, *, apply: bool = True) -> AdapterSet:
        """Check an adapter file, load it on the engine thread and (with ``apply``) make it active."""
        return await self._lora.load(name, scale, apply=apply)

    def unload_adapter(self, name: str | None) -> AdapterSet:
        """Take one adapter off (``name``), or all of them (None)."""
        return self._lora.unload(name)

    @property
    def idle(self) -> bool:
        """No request waiting for a lane and none decoding."""
        return self._scheduler.idle

    @property
    def drafting(self) -> bool:
        """Prompt-lookup drafting is on (--spec-draft, and a memory that can drop rejected drafts)."""
        return self._scheduler.spec_draft > 0

    @property
    def placement(self) -> Placement:
        """Where llama.cpp put the model's layers and buffers."""
        return self._llama.placement

    def memory_view(self) -> dict[str, Any]:
        """What /props and /slots say of the model's sequence memory: its kind, whether a lane can be cut back to
        any token, and (for recurrent state) the checkpoint settings."""
        view: dict[str, Any] = {"kind": self._llama.memory_kind, "rollback": self._llama.rollback}
        if not self._llama.rollback:
            policy = self._scheduler.checkpoints
            view["checkpoints"] = {"max_per_lane": policy.max_per_lane, "min_step": policy.min_step}
        return view

    @property
    def n_ctx(self) -> int:
        return int(self._llama.n_ctx)

    @property
    def n_vocab(self) -> int:
        """Tokens in the vocabulary: the range a logit bias may name."""
        return int(self._llama.meta.n_vocab)

    def kv_snapshot(self) -> dict[str, int]:
        """The KV pool as /props reports it (cells in use, cached prefixes)."""
        return self._scheduler.snapshot()

    def slot_view(self) -> dict[str, Any]:
        """The lanes, the pool, the queue and the tick plan as /slots reports them."""
        return self._scheduler.slot_view()

    @property
    def kv_pool_cells(self) -> int:
        """Cells in the KV pool, all lanes together."""
        return int(self._llama.kv_size)

    def queued_by_qos(self) -> dict[str, int]:
        """Choices waiting for a lane, by QoS class (/metrics)."""
        return dict(self._scheduler.queued_by_qos)

    # ---- requests: prompts.py prepares, intake.py admits --------------------------------------------------------
    def tokenize(self, text: str, *, add_special: bool = False) -> list[int]:
        return self._prompts.tokenize(text, add_special=add_special)

    def pieces(self, tokens: list[int]) -> list[str]:
        """Each token's text as the model writes it (special tokens included)."""
        return self._prompts.pieces(tokens)

    def prepare(self, request: GenerationRequest, *, check_window: bool = True) -> PreparedPrompt:
        """Template, tokenize and compile what the request needs (call off the loop unless it ``is_light``); a
        prompt that leaves no room in the window is a 400 unless ``check_window`` is off (a count of tokens)."""
        return self._prompts.prepare(request, check_window=check_window)

    def chat_text(self, request: GenerationRequest) -> tuple[str, bool, OutputPlan]:
        """A chat request's prompt as text, whether the reply starts inside the reasoning block, and its plan."""
        return self._prompts.chat_text(request)

    def require_fim(self, *, asked: str | None = None) -> None:
        """FimUnsupported unless this model has FIM tokens (``asked``: the model the request named)."""
        self._prompts.require_fim(asked=asked)

    def disk_view(self) -> dict[str, Any] | None:
        """The disk tier's figures (as /slots shows them), or None without one."""
        return self._scheduler.disk_view()

    async def from_disk(self, request: GenerationRequest, prepared: PreparedPrompt) -> Found | None:
        """The longest prefix of the prompt the disk tier holds, read off the loop, when it beats the lanes."""
        return await self._intake.from_disk(request, prepared)

    def generate(self, request: GenerationRequest, prepared: PreparedPrompt | None = None, *,
                 direct: Callable[[TextDelta], None] | None = None, disk: Found | None = None,
                 whole: bool = False) -> GenerationStream:
        """Queue the request's choices on the engine thread (intake.py); errors in the request raise here."""
        return self._intake.generate(request, prepared, direct=direct, disk=disk, whole=whole)
