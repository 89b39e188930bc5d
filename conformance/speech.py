"""Speech made in the test with espeak-ng (a Debian package), installed when missing (conformance/debian.py)."""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

from conformance.debian import program


def espeak() -> str:
    return program("espeak-ng")


def speak(text: str, voice: str = "en") -> bytes:
    """``text`` spoken by espeak-ng's ``voice``, as a WAV file's bytes."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "speech.wav"
        subprocess.run([espeak(), "-v", voice, "-s", "150", "-w", str(out), text], check=True, capture_output=True,
                       timeout=60)
        return out.read_bytes()
