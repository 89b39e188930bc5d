"""Uploads decode to 16 kHz mono float32 through PyAV; what is not audio is a 400 naming the file."""

from __future__ import annotations

import io
import wave

import numpy as np
import pytest

from superfluid.engine.whisper.audio import SAMPLE_RATE, NotAudio, decode


def _wav(rate: int, channels: int, seconds: float) -> bytes:
    t = np.arange(int(rate * seconds)) / rate
    tone = (0.5 * np.sin(2 * np.pi * 440 * t) * 32767).astype("<i2")
    frames = np.repeat(tone[:, None], channels, axis=1).tobytes()
    out = io.BytesIO()
    with wave.open(out, "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(frames)
    return out.getvalue()


@pytest.mark.parametrize(("rate", "channels"), [(8000, 2), (16000, 1), (44100, 1)])
def test_resampled_to_16k_mono(rate: int, channels: int) -> None:
    samples = decode(_wav(rate, channels, 1.0))
    assert samples.dtype == np.float32 and samples.ndim == 1
    assert abs(len(samples) - SAMPLE_RATE) < SAMPLE_RATE * 0.02
    assert 0.3 < float(np.abs(samples).max()) <= 1.0


@pytest.mark.parametrize("data", [b"", b"plain text, no audio here", b"RIFF\x00\x00\x00\x00WAVEfmt junk"])
def test_not_audio(data: bytes) -> None:
    with pytest.raises(NotAudio) as caught:
        decode(data, name="file")
    assert caught.value.param == "file" and caught.value.status == 400
