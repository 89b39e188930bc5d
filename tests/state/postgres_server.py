"""A throwaway PostgreSQL server for the state tests: Debian's package, installed when missing, started in a
temporary directory on a Unix socket only, stopped at the end of the session."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

PACKAGE = "postgresql"


def _bin_dir() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    return Path(found[-1]).parent if found else None


def install() -> Path:
    """The server's bin directory, installing Debian's package first when it is not there."""
    found = _bin_dir()
    if found is not None:
        return found
    apt = shutil.which("apt-get")
    if apt is None:
        raise RuntimeError("PostgreSQL is not installed and there is no apt-get to install it: install the "
                           f"'{PACKAGE}' package (the PostgreSQL state tests need its server)")
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.PIPE, "env": {**os.environ,
                                                                            "DEBIAN_FRONTEND": "noninteractive"}}
    for step in ([apt, "update"], [apt, "install", "-y", "--no-install-recommends", PACKAGE]):
        done = subprocess.run(step, check=False, **quiet)  # type: ignore[call-overload]
        if done.returncode != 0:
            raise RuntimeError(f"could not install PostgreSQL ({' '.join(step)}): {done.stderr.decode()[-500:]}")
    found = _bin_dir()
    if found is None:
        raise RuntimeError(f"the '{PACKAGE}' package installed no server under /usr/lib/postgresql")
    return found


def _as_owner(argv: list[str]) -> list[str]:
    """PostgreSQL refuses to run as root: run it as the package's postgres user then."""
    return ["runuser", "-u", "postgres", "--", *argv] if os.geteuid() == 0 else argv


def _pg_ctl(base: Path, *argv: str) -> None:
    subprocess.run(_as_owner([str(install() / "pg_ctl"), "-D", str(base / "data"), *argv]), check=True,
                   stdout=subprocess.DEVNULL)


def _start(base: Path, port: int) -> None:
    options = f"-c listen_addresses='' -k {base / 'sockets'} -p {port} -c fsync=off"
    _pg_ctl(base, "-o", options, "-w", "-l", str(base / "server.log"), "start")


@contextmanager
def running(base: Path, port: int) -> Iterator[str]:
    """A server on a socket in ``base``; yields a URL of its ``postgres`` database."""
    bin_dir = install()
    data, sockets = base / "data", base / "sockets"
    for folder in (data, sockets):
        folder.mkdir(parents=True)
    if os.geteuid() == 0:
        shutil.chown(base, "postgres")
        for folder in (data, sockets):
            shutil.chown(folder, "postgres")
    user = "postgres" if os.geteuid() == 0 else os.environ.get("USER", "postgres")
    subprocess.run(_as_owner([str(bin_dir / "initdb"), "-D", str(data), "-U", user, "-A", "trust"]), check=True,
                   stdout=subprocess.DEVNULL)
    _start(base, port)
    try:
        yield f"postgresql://{user}@/postgres?host={sockets}&port={port}"
    finally:
        subprocess.run(_as_owner([str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"]),
                       check=False, stdout=subprocess.DEVNULL)


@contextmanager
def stopped(base: Path, port: int) -> Iterator[None]:
    """The server ``running(base, port)`` started, shut down for as long as the block runs (fast: every session
    is cut, as at a restart), then started again on the same data directory and port."""
    _pg_ctl(base, "-m", "fast", "-w", "stop")
    try:
        yield
    finally:
        _start(base, port)


def fresh_database(url: str) -> str:
    """A new, empty database on the server of ``url``; returns its URL."""
    import psycopg

    name = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")  # a generated name
    return url.replace("/postgres?", f"/{name}?")
