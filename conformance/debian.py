"""Debian programs the suite drives (espeak-ng for speech, chromium for the chat page), installed when missing.

A test that needs one calls ``program``: it returns the program's path, installing its packages with apt-get
first if it is absent. If that cannot be done (no root, no package index) the test fails with a message that
says how to install it; it never skips.
"""

from __future__ import annotations

import functools
import shutil
import subprocess

import pytest


@functools.cache
def program(name: str, *packages: str) -> str:
    """The path of ``name``, after installing ``packages`` (default: a package called ``name``) if needed."""
    packages = packages or (name,)
    hint = f"install it with: apt-get update && apt-get install -y {' '.join(packages)}"
    found = shutil.which(name)
    if found:
        return found
    apt = shutil.which("apt-get")
    if apt is not None:
        for step in ([apt, "update", "-qq"], [apt, "install", "-y", "-qq", *packages]):
            done = subprocess.run(step, capture_output=True, text=True, timeout=900, check=False,
                                  env={"DEBIAN_FRONTEND": "noninteractive", "PATH": "/usr/sbin:/usr/bin:/sbin:/bin"})
            if done.returncode != 0:
                pytest.fail(f"{name} is needed by this test and could not be installed "
                            f"({' '.join(step)}: {done.stderr.strip()[-300:]}); {hint}")
        found = shutil.which(name)
    if not found:
        pytest.fail(f"{name} is needed by this test; {hint}")
    return found
