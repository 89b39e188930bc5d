"""A transcript in each of OpenAI's response formats: json, verbose_json, text, srt and vtt."""

from __future__ import annotations

from typing import Any

from superfluid.engine import Segment, Transcript


def _clock(seconds: float, separator: str) -> str:
    millis = max(0, round(seconds * 1000))
    hours, rest = divmod(millis, 3_600_000)
    minutes, rest = divmod(rest, 60_000)
    secs, millis = divmod(rest, 1000)
    return f"{hours:02d}:{minutes:02d}:{secs:02d}{separator}{millis:03d}"


def srt(transcript: Transcript) -> str:
    cues = [f"{i}\n{_clock(s.start, ',')} --> {_clock(s.end, ',')}\n{s.text.strip()}\n"
            for i, s in enumerate(transcript.segments, 1)]
    return "\n".join(cues)


def vtt(transcript: Transcript) -> str:
    cues = [f"{_clock(s.start, '.')} --> {_clock(s.end, '.')}\n{s.text.strip()}\n" for s in transcript.segments]
    return "WEBVTT\n\n" + "\n".join(cues)


def _segment(segment: Segment) -> dict[str, Any]:
    return {"id": segment.id, "seek": segment.seek, "start": segment.start, "end": segment.end,
            "text": segment.text, "tokens": list(segment.tokens), "temperature": segment.temperature,
            "avg_logprob": segment.avg_logprob, "compression_ratio": segment.compression_ratio,
            "no_speech_prob": segment.no_speech_prob}


def verbose_json(transcript: Transcript, *, task: str, words: bool, segments: bool) -> dict[str, Any]:
    body: dict[str, Any] = {"task": task, "language": transcript.language, "duration": transcript.duration,
                            "text": transcript.text}
    if segments:
        body["segments"] = [_segment(s) for s in transcript.segments]
    if words:
        body["words"] = [{"word": w.word.strip(), "start": w.start, "end": w.end}
                         for s in transcript.segments for w in s.words]
    body["usage"] = {"type": "duration", "seconds": round(transcript.duration, 3)}
    return body
