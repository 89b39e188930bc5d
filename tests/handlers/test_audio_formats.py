"""Transcripts in srt, vtt and verbose_json."""

from __future__ import annotations

from superfluid.engine.whisper.model import Segment, Transcript, Word
from superfluid.handlers.openai import audio_formats


def _transcript() -> Transcript:
    first = Segment(0, 0, 0.0, 1.5, " Hello there.", (1, 2), 0.0, -0.2, 1.1, 0.01,
                    (Word(0.0, 0.5, " Hello"), Word(0.6, 1.4, " there.")))
    second = Segment(1, 0, 3661.25, 3662.0, " Bye.", (3,), 0.0, -0.3, 1.0, 0.02)
    return Transcript("en", 3662.0, (first, second))


def test_srt() -> None:
    assert audio_formats.srt(_transcript()) == ("1\n00:00:00,000 --> 00:00:01,500\nHello there.\n\n"
                                                "2\n01:01:01,250 --> 01:01:02,000\nBye.\n")


def test_vtt() -> None:
    assert audio_formats.vtt(_transcript()) == ("WEBVTT\n\n00:00:00.000 --> 00:00:01.500\nHello there.\n\n"
                                                "01:01:01.250 --> 01:01:02.000\nBye.\n")


def test_verbose_json() -> None:
    body = audio_formats.verbose_json(_transcript(), task="transcribe", words=True, segments=False)
    assert body["text"] == "Hello there. Bye." and body["language"] == "en"
    assert "segments" not in body
    assert body["words"] == [{"word": "Hello", "start": 0.0, "end": 0.5}, {"word": "there.", "start": 0.6,
                                                                            "end": 1.4}]
