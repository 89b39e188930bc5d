"""The default sessions directory on each platform."""

from __future__ import annotations

from pathlib import Path

from superfluid.paths import default_sessions_dir

HOME = Path("/home/ada")


def test_linux_honours_xdg_data_home() -> None:
    assert default_sessions_dir({"XDG_DATA_HOME": "/data"}, "linux", HOME) == Path("/data/superfluid/sessions")


def test_linux_without_xdg_uses_local_share() -> None:
    assert default_sessions_dir({}, "linux", HOME) == HOME / ".local/share/superfluid/sessions"


def test_a_relative_xdg_data_home_is_ignored() -> None:
    assert default_sessions_dir({"XDG_DATA_HOME": "rel"}, "linux", HOME) == HOME / ".local/share/superfluid/sessions"


def test_macos_uses_application_support() -> None:
    assert default_sessions_dir({}, "darwin", HOME) == HOME / "Library/Application Support/superfluid/sessions"


def test_windows_uses_local_app_data() -> None:
    assert default_sessions_dir({"LOCALAPPDATA": "C:/Users/ada/AppData/Local"}, "win32", HOME) == Path(
        "C:/Users/ada/AppData/Local/superfluid/sessions")
    assert default_sessions_dir({}, "win32", HOME) == HOME / "AppData/Local/superfluid/sessions"
