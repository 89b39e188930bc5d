"""A loaded Whisper model on faster-whisper (CTranslate2, int8 on CPU), run off the event loop.

Each model has its own worker threads (``--audio-concurrency``, one by default): a transcription takes a
worker for its whole run, later ones wait in order, and past ``--queue-size`` waiting a request is a 429.
Segments travel to the event loop as they are decoded, so a stream shows text while the audio is still being
worked through; a consumer that goes away stops the work at the next segment.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import threading
from collections.abc import AsyncIterator, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from superfluid.engine.models.model_sources import ModelSource
from superfluid.engine.models.profile import text_modalities
from superfluid.engine.whisper.audio import SAMPLE_RATE
from superfluid.errors import ConcurrencyLimited, EngineFailure, InvalidRequest
from superfluid.settings import Settings

log = logging.getLogger(__name__)

@functools.cache
def languages() -> frozenset[str]:
    """The language codes Whisper knows (faster-whisper is imported when speech is first used, not with the
    server: a server that never transcribes needs neither it nor CTranslate2 loaded)."""
    from faster_whisper.tokenizer import _LANGUAGE_CODES

    return frozenset(_LANGUAGE_CODES)
TEMPERATURE_FALLBACK = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
TEXT_WINDOW = 448
"""Whisper's decoder context, in tokens."""


@dataclass(frozen=True)
class SpeechProfile:
    """What a Whisper model is and can do, from its config.json (no weights read)."""

    id: str
    origin: str
    path: Path
    multilingual: bool
    size_bytes: int
    kind = "speech"
    runtime = "whisper"
    family = "whisper"
    n_ctx = TEXT_WINDOW
    n_ctx_train = TEXT_WINDOW
    n_params: int | None = None
    input_modalities = ["audio"]  # noqa: RUF012 - read-only, shared by every profile
    pooling = "none"
    name = "Whisper base"

    @property
    def sampling_defaults(self) -> dict[str, float]:
        return {}

    @classmethod
    def read(cls, model_id: str, origin: str, config: Path, size_bytes: int) -> SpeechProfile:
        lang_ids = json.loads(config.read_text()).get("lang_ids") or []
        return cls(model_id, origin, config.parent, multilingual=len(lang_ids) > 1, size_bytes=size_bytes)

    def capabilities(self) -> dict[str, Any]:
        return {
            "workload": {"generation": False, "embedding": False},
            "modalities": text_modalities(text=False, audio=True, whisper_transcription=True,
                                          whisper_translation=self.multilingual),
            "pooling": None,
            "chat_template": False,
            "tools": False,
            "dialect": {"enable_thinking": False, "reasoning_effort": False, "reasoning_effort_levels": [],
                        "fim": False, "fim_model": None},
        }


@dataclass(frozen=True)
class SpeechRequest:
    audio: npt.NDArray[np.float32]
    task: str = "transcribe"
    """transcribe, or translate (into English)"""
    language: str | None = None
    prompt: str | None = None
    temperature: float = 0.0
    words: bool = False


@dataclass(frozen=True)
class Word:
    start: float
    end: float
    word: str


@dataclass(frozen=True)
class Segment:
    id: int
    seek: int
    start: float
    end: float
    text: str
    tokens: tuple[int, ...]
    temperature: float
    avg_logprob: float
    compression_ratio: float
    no_speech_prob: float
    words: tuple[Word, ...] = ()


@dataclass(frozen=True)
class Transcript:
    language: str
    duration: float
    segments: tuple[Segment, ...]

    @property
    def text(self) -> str:
        return "".join(s.text for s in self.segments).strip()


class SpeechModel:
    def __init__(self, profile: SpeechProfile, whisper: Any, settings: Settings) -> None:
        """``whisper``: the ``faster_whisper.WhisperModel``."""
        self.profile = profile
        self.id = profile.id
        self.n_ctx = TEXT_WINDOW
        self._whisper = whisper
        self._workers = ThreadPoolExecutor(max_workers=settings.audio_concurrency,
                                           thread_name_prefix=f"whisper-{profile.id}")
        self._queue_limit = settings.queue_size + settings.audio_concurrency
        self._pending = 0
        """Transcriptions running or waiting, as the event loop counts them."""
        self._working = 0
        """Transcriptions a worker thread is running (one may outlive its request until its next segment)."""
        self._working_lock = threading.Lock()

    @classmethod
    def load(cls, profile: SpeechProfile, source: ModelSource, settings: Settings) -> SpeechModel:
        folder = source.locate()
        log.info("loading %s from %s (faster-whisper, int8 on CPU)", profile.id, folder)
        from faster_whisper import WhisperModel

        whisper = WhisperModel(str(folder), device="cpu", compute_type="int8", cpu_threads=settings.audio_threads,
                               num_workers=settings.audio_concurrency, local_files_only=True)
        return cls(profile, whisper, settings)

    @property
    def idle(self) -> bool:
        """No transcription running or waiting."""
        return self._pending == 0 and self._working == 0

    def close(self) -> None:
        self._workers.shutdown(wait=True, cancel_futures=True)

    def check(self, request: SpeechRequest) -> None:
        """Refuse what this model cannot do before any work is queued."""
        if request.language is not None and request.language not in languages():
            raise InvalidRequest(f"language '{request.language}' is not one Whisper knows (ISO-639-1 codes such "
                                 "as en, de, fr)", param="language")
        if request.task == "translate" and not self.profile.multilingual:
            raise InvalidRequest(f"model '{self.id}' is English-only and cannot translate", param="model")

    async def segments(self, request: SpeechRequest) -> AsyncIterator[Segment | Transcript]:
        """Segments as they are decoded, then the whole Transcript. Stops the work when the consumer leaves."""
        self.check(request)
        if self._pending >= self._queue_limit:
            raise ConcurrencyLimited(f"model '{self.id}' has {self._pending} transcriptions running or waiting",
                              retry_after_s=1.0)
        loop = asyncio.get_running_loop()
        out: asyncio.Queue[Segment | Transcript | BaseException] = asyncio.Queue()
        stop = threading.Event()

        def work() -> None:
            if stop.is_set():  # its request went away while it waited for a worker
                return
            with self._working_lock:
                self._working += 1
            try:
                for item in self._run(request, stop):
                    loop.call_soon_threadsafe(out.put_nowait, item)
            except BaseException as exc:
                loop.call_soon_threadsafe(out.put_nowait, exc)
            finally:
                with self._working_lock:
                    self._working -= 1

        self._pending += 1
        future = loop.run_in_executor(self._workers, work)
        try:
            while True:
                item = await out.get()
                if isinstance(item, BaseException):
                    if isinstance(item, InvalidRequest):
                        raise item
                    raise EngineFailure(f"transcription failed: {item}") from item
                yield item
                if isinstance(item, Transcript):
                    return
        finally:
            stop.set()
            self._pending -= 1
            future.add_done_callback(lambda _f: None)

    async def transcribe(self, request: SpeechRequest) -> Transcript:
        async for item in self.segments(request):
            if isinstance(item, Transcript):
                return item
        raise EngineFailure("the transcription ended without a result")

    def _run(self, request: SpeechRequest, stop: threading.Event) -> Iterator[Segment | Transcript]:
        temperature = TEMPERATURE_FALLBACK if request.temperature == 0 else (request.temperature,)
        pieces, info = self._whisper.transcribe(
            request.audio, language=request.language, task=request.task, initial_prompt=request.prompt or None,
            temperature=list(temperature), word_timestamps=request.words, beam_size=5, vad_filter=False)
        done: list[Segment] = []
        for piece in pieces:
            if stop.is_set():
                return
            words = tuple(Word(w.start, w.end, w.word) for w in piece.words or ())
            segment = Segment(piece.id - 1, piece.seek, piece.start, piece.end, piece.text, tuple(piece.tokens),
                              float(piece.temperature or 0.0), piece.avg_logprob, piece.compression_ratio,
                              piece.no_speech_prob, words)
            done.append(segment)
            yield segment
        duration = float(info.duration or len(request.audio) / SAMPLE_RATE)
        yield Transcript(info.language, duration, tuple(done))
