"""Uploaded audio -> 16 kHz mono float32 samples, through PyAV (any container and codec ffmpeg reads)."""

from __future__ import annotations

import io
from typing import Any

import numpy as np
import numpy.typing as npt

from superfluid.errors import InvalidRequest

SAMPLE_RATE = 16_000


class NotAudio(InvalidRequest):
    """The upload has no audio PyAV can decode."""


def decode(data: bytes, *, name: str = "file") -> npt.NDArray[np.float32]:
    """All audio of the first audio stream in ``data``, resampled to 16 kHz mono float32 in [-1, 1]."""
    if not data:
        raise NotAudio("the uploaded file is empty: there is no audio to transcribe", param=name)
    import av  # with the first upload, not with the server (see whisper/model.py, ``languages``)

    try:
        with av.open(io.BytesIO(data), mode="r", metadata_errors="ignore") as container:
            if not container.streams.audio:
                raise NotAudio("the uploaded file has no audio stream", param=name)
            resampler = av.AudioResampler(format="s16", layout="mono", rate=SAMPLE_RATE)
            pieces: list[npt.NDArray[Any]] = []
            for frame in container.decode(container.streams.audio[0]):
                for out in resampler.resample(frame):
                    pieces.append(out.to_ndarray().reshape(-1))
            for out in resampler.resample(None):
                pieces.append(out.to_ndarray().reshape(-1))
    except NotAudio:
        raise
    except (av.FFmpegError, ValueError, UnicodeDecodeError) as exc:
        raise NotAudio(f"the uploaded file is not audio that can be decoded ({exc.__class__.__name__}: "
                       f"{str(exc)[:200]})", param=name) from None
    if not pieces:
        raise NotAudio("the uploaded file holds no audio samples", param=name)
    samples = np.concatenate(pieces).astype(np.float32) / 32768.0
    return samples
