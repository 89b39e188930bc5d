"""Speech made in the test with espeak-ng (a Debian package), installed here when missing.

If espeak-ng is absent and cannot be installed (no root, no package index), the tests that need speech fail
with a message that says how to install it; they never skip.
"""

from __future__ import annotations

import functools
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

INSTALL_HINT = "install it with: apt-get update && apt-get install -y espeak-ng"


@functools.cache
def espeak() -> str:
    found = shutil.which("espeak-ng")
    if found:
        return found
    apt = shutil.which("apt-get")
    if apt is not None:
        for step in ([apt, "update", "-qq"], [apt, "install", "-y", "-qq", "espeak-ng"]):
            done = subprocess.run(step, capture_output=True, text=True, timeout=600, check=False,
                                  env={"DEBIAN_FRONTEND": "noninteractive", "PATH": "/usr/sbin:/usr/bin:/sbin:/bin"})
            if done.returncode != 0:
                pytest.fail(f"espeak-ng is needed to make test speech and could not be installed "
                            f"({' '.join(step)}: {done.stderr.strip()[-300:]}); {INSTALL_HINT}")
        found = shutil.which("espeak-ng")
    if not found:
        pytest.fail(f"espeak-ng is needed to make test speech; {INSTALL_HINT}")
    return found


def speak(text: str, voice: str = "en") -> bytes:
    """``text`` spoken by espeak-ng's ``voice``, as a WAV file's bytes."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "speech.wav"
        subprocess.run([espeak(), "-v", voice, "-s", "150", "-w", str(out), text], check=True, capture_output=True,
                       timeout=60)
        return out.read_bytes()
