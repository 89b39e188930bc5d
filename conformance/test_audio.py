"""Speech to text on the bundled Whisper base, through the openai SDK and httpx, on speech espeak-ng makes in
the test, against a plain `superfluid serve` (the README's command)."""

from __future__ import annotations

import json
import re

import httpx
import pytest
from openai import OpenAI

from conformance.reference import validate_openai
from conformance.speech import speak

WHISPER = "whisper-base"
SENTENCE = "The quick brown fox jumps over the lazy dog."
WORDS = ("quick", "brown", "fox", "lazy", "dog")


@pytest.fixture(scope="module")
def speech() -> bytes:
    return speak(SENTENCE, "en")


def _heard(text: str) -> None:
    lowered = text.lower()
    missing = [w for w in WORDS if w not in lowered]
    assert len(missing) <= 1, f"transcript {text!r} misses {missing}"


def test_json(media_openai: OpenAI, media_http: httpx.Client, speech: bytes) -> None:
    reply = media_openai.audio.transcriptions.create(model=WHISPER, file=("speech.wav", speech, "audio/wav"))
    _heard(reply.text)
    raw = media_http.post("/v1/audio/transcriptions", files={"file": ("speech.wav", speech, "audio/wav")},
                   data={"model": WHISPER, "language": "en"})
    assert raw.status_code == 200, raw.text
    validate_openai("CreateTranscriptionResponseJson", raw.json())


def test_text(media_openai: OpenAI, speech: bytes) -> None:
    text = media_openai.audio.transcriptions.create(model=WHISPER, file=("speech.wav", speech), response_format="text")
    assert isinstance(text, str)
    _heard(text)


def test_srt(media_openai: OpenAI, speech: bytes) -> None:
    srt = media_openai.audio.transcriptions.create(model=WHISPER, file=("speech.wav", speech), response_format="srt")
    assert re.match(r"1\n\d\d:\d\d:\d\d,\d{3} --> \d\d:\d\d:\d\d,\d{3}\n", srt), srt
    _heard(srt)


def test_vtt(media_openai: OpenAI, speech: bytes) -> None:
    vtt = media_openai.audio.transcriptions.create(model=WHISPER, file=("speech.wav", speech), response_format="vtt")
    assert vtt.startswith("WEBVTT\n\n")
    assert re.search(r"\d\d:\d\d:\d\d\.\d{3} --> \d\d:\d\d:\d\d\.\d{3}\n", vtt), vtt
    _heard(vtt)


def test_verbose_json_with_words(media_openai: OpenAI, media_http: httpx.Client, speech: bytes) -> None:
    reply = media_openai.audio.transcriptions.create(model=WHISPER, file=("speech.wav", speech),
                                            response_format="verbose_json",
                                            timestamp_granularities=["word", "segment"])
    _heard(reply.text)
    assert reply.language == "en" and reply.duration > 1
    assert reply.segments and reply.segments[0].start >= 0
    assert reply.words and any("fox" in w.word.lower() for w in reply.words)
    raw = media_http.post("/v1/audio/transcriptions", files={"file": ("speech.wav", speech)},
                   data={"model": WHISPER, "response_format": "verbose_json"})
    validate_openai("CreateTranscriptionResponseVerboseJson", raw.json())


def test_stream(media_openai: OpenAI, speech: bytes) -> None:
    events = list(media_openai.audio.transcriptions.create(model=WHISPER, file=("speech.wav", speech), stream=True))
    kinds = [e.type for e in events]
    assert kinds[-1] == "transcript.text.done" and kinds.count("transcript.text.done") == 1
    deltas = [e.delta for e in events if e.type == "transcript.text.delta"]
    assert deltas
    _heard(events[-1].text)
    assert "".join(deltas).strip() == events[-1].text
    for event in events:
        validate_openai("CreateTranscriptionResponseStreamEvent", event.model_dump(exclude_none=True))


def test_translation_of_german_speech(media_openai: OpenAI) -> None:
    german = speak("Guten Morgen. Ich trinke gern Kaffee mit Milch.", "de")
    reply = media_openai.audio.translations.create(model=WHISPER, file=("german.wav", german))
    lowered = reply.text.lower()
    assert "morning" in lowered and ("coffee" in lowered or "milk" in lowered), reply.text
    original = media_openai.audio.transcriptions.create(model=WHISPER, file=("german.wav", german), language="de")
    assert "kaffee" in original.text.lower() or "morgen" in original.text.lower(), original.text


# ---- errors -----------------------------------------------------------------------------------------


def _error(reply: httpx.Response, status: int = 400) -> dict[str, str]:
    assert reply.status_code == status, reply.text
    error: dict[str, str] = reply.json()["error"]
    return error


@pytest.mark.parametrize("upload", [b"this is plain text, not audio", b"", b"RIFF\x00\x00\x00\x00WAVEjunk"])
def test_non_audio_upload(media_http: httpx.Client, upload: bytes) -> None:
    error = _error(media_http.post("/v1/audio/transcriptions", files={"file": ("notes.txt", upload)},
                            data={"model": WHISPER}))
    assert error["param"] == "file" and "audio" in error["message"]


def test_other_models_do_not_transcribe(media_http: httpx.Client, speech: bytes) -> None:
    for model in ("smollm2-135m-instruct", "all-minilm-l6-v2"):
        error = _error(media_http.post("/v1/audio/translations", files={"file": ("speech.wav", speech)},
                                data={"model": model}))
        assert error["code"] == "unsupported_model"


def test_bad_fields(media_http: httpx.Client, speech: bytes) -> None:
    assert _error(media_http.post("/v1/audio/transcriptions", files={"file": ("s.wav", speech)},
                           data={"model": WHISPER, "language": "klingon"}))["param"] == "language"
    assert _error(media_http.post("/v1/audio/transcriptions", files={"file": ("s.wav", speech)},
                           data={"model": WHISPER, "response_format": "mp3"}))
    missing = _error(media_http.post("/v1/audio/transcriptions", files={"model": (None, WHISPER)}))
    assert missing["param"] == "file"
    assert media_http.post("/v1/audio/transcriptions", files={"file": ("s.wav", speech)},
                    data={"model": "no-such-model"}).status_code == 404


def test_over_the_body_limit_is_413(media_http: httpx.Client) -> None:
    big = b"\x00" * (101 * 1024 * 1024)
    reply = media_http.post("/v1/audio/transcriptions", files={"file": ("big.wav", big)}, data={"model": WHISPER})
    assert reply.status_code == 413
    assert json.loads(reply.text)["error"]["code"] == "payload_too_large"
