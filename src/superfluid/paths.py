"""Where the sessions directory lives when ``--sessions`` does not say (``Settings.sessions_path``).

The user's data directory by each platform's convention, then ``superfluid/sessions`` inside it:

* Linux and other Unixes: ``$XDG_DATA_HOME`` when set to an absolute path, else ``~/.local/share``
  (the XDG Base Directory specification);
* macOS: ``~/Library/Application Support``;
* Windows: ``%LOCALAPPDATA%``, else ``~/AppData/Local``.

These three rules are all platformdirs would add for this one path, so it is not a dependency.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path

APP_DIR = "superfluid"
SESSIONS_DIR = "sessions"


def user_data_dir(env: Mapping[str, str] | None = None, platform: str | None = None,
                  home: Path | None = None) -> Path:
    """The platform's per-user data directory (not superfluid's folder inside it)."""
    env = os.environ if env is None else env
    platform = sys.platform if platform is None else platform
    home = Path.home() if home is None else home
    if platform == "win32":
        local = env.get("LOCALAPPDATA")
        return Path(local) if local else home / "AppData" / "Local"
    if platform == "darwin":
        return home / "Library" / "Application Support"
    xdg = env.get("XDG_DATA_HOME", "")
    # The specification ignores a relative path here.
    return Path(xdg) if xdg and os.path.isabs(xdg) else home / ".local" / "share"


def default_sessions_dir(env: Mapping[str, str] | None = None, platform: str | None = None,
                         home: Path | None = None) -> Path:
    return user_data_dir(env, platform, home) / APP_DIR / SESSIONS_DIR
