"""POST /v1/audio/transcriptions and /v1/audio/translations (multipart): speech to text on a Whisper model.

The upload is decoded with PyAV (any container ffmpeg reads, resampled to 16 kHz mono); a file that holds no
audio is a 400. The reply is the transcript in ``response_format``, or with ``stream`` an SSE stream: one
``transcript.text.delta`` per decoded segment, then ``transcript.text.done`` with the whole text.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from starlette.datastructures import UploadFile
from starlette.responses import JSONResponse, PlainTextResponse, Response, StreamingResponse

from superfluid.engine import SpeechModel, SpeechRequest, Transcript, decode_audio
from superfluid.errors import InvalidRequest
from superfluid.handlers.context import services
from superfluid.handlers.generation import unless_client_leaves
from superfluid.handlers.openai import audio_formats as formats
from superfluid.http.dialect import Dialect, sse

FORMATS = ("json", "text", "srt", "verbose_json", "vtt")


async def transcriptions(body: dict[str, Any] | None = None, file: UploadFile | None = None) -> Response:
    return await _run(body, file, task="transcribe")


async def translations(body: dict[str, Any] | None = None, file: UploadFile | None = None) -> Response:
    return await _run(body, file, task="translate")


def _granularities(body: dict[str, Any]) -> set[str]:
    raw = body.get("timestamp_granularities[]") or body.get("timestamp_granularities") or []
    return {raw} if isinstance(raw, str) else set(raw)


async def _request(body: dict[str, Any], file: UploadFile | None, task: str) -> SpeechRequest:
    if file is None or not isinstance(file, UploadFile):
        raise InvalidRequest("file is required: a multipart upload of the audio", param="file")
    data = await file.read()
    audio = await asyncio.to_thread(decode_audio, data, name="file")
    granularities = _granularities(body)
    return SpeechRequest(audio=audio, task=task, language=body.get("language") or None,
                         prompt=body.get("prompt") or None, temperature=float(body.get("temperature") or 0.0),
                         words="word" in granularities)


async def _run(body: dict[str, Any] | None, file: UploadFile | None, *, task: str) -> Response:
    body = body or {}
    if not isinstance(body.get("model"), str):
        raise InvalidRequest("model is required: a multipart form field naming a Whisper model", param="model")
    model = await services().models.transcriber(body["model"])
    response_format = body.get("response_format") or "json"
    if response_format not in FORMATS:
        raise InvalidRequest(f"response_format must be one of {', '.join(FORMATS)}", param="response_format")
    request = await _request(body, file, task)
    model.check(request)
    if body.get("stream"):
        return await _stream(model, request)
    transcript = await unless_client_leaves(model.transcribe(request))
    return _render(transcript, response_format, task, _granularities(body))


def _render(transcript: Transcript, response_format: str, task: str, granularities: set[str]) -> Response:
    if response_format == "text":
        return PlainTextResponse(transcript.text + "\n")
    if response_format == "srt":
        return PlainTextResponse(formats.srt(transcript))
    if response_format == "vtt":
        return PlainTextResponse(formats.vtt(transcript), media_type="text/vtt")
    if response_format == "verbose_json":
        words = "word" in granularities
        segments = "segment" in granularities or not words
        return JSONResponse(formats.verbose_json(transcript, task=task, words=words, segments=segments))
    return JSONResponse({"text": transcript.text, "usage": {"type": "duration",
                                                             "seconds": round(transcript.duration, 3)}})


async def _stream(model: SpeechModel, request: SpeechRequest) -> Response:
    segments = model.segments(request)

    async def frames() -> AsyncIterator[dict[str, Any]]:
        async for item in segments:
            if isinstance(item, Transcript):
                yield {"type": "transcript.text.done", "text": item.text}
            else:
                yield {"type": "transcript.text.delta", "delta": item.text}

    body = sse(frames(), Dialect.OPENAI, keepalive_s=services().settings.keepalive_s,
               event_name=lambda frame: frame.get("type"))
    return StreamingResponse(body, media_type=Dialect.OPENAI.media_type, headers={"cache-control": "no-cache"})
