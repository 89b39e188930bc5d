"""Start the servers the scheduler benchmark compares: superfluid, llama.cpp's llama-server, and
llama-cpp-python's own server, all on the same GGUF with the same thread count."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from conformance.server import free_port, wait_healthy

from superfluid.engine.models.amx import extra_buffers_usable
from superfluid.engine.models.llama_model import flash_attention

BUILD = Path(__file__).resolve().parent / ".build"
LLAMA_SERVER = BUILD / "cmake" / "bin" / "llama-server"
LCPP_VENV = BUILD / "lcpp-venv"


@dataclass
class Peer:
    name: str
    base_url: str
    process: subprocess.Popen[bytes]
    model: str

    def rss_bytes(self) -> int:
        """Resident memory of the server process (and its children)."""
        total = 0
        for pid in [self.process.pid, *_children(self.process.pid)]:
            try:
                for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1]) * 1024
            except OSError:
                continue
        return total

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()


def _children(pid: int) -> list[int]:
    try:
        return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def _wait(peer: Peer, health: str, timeout_s: float = 240) -> Peer:
    status = wait_healthy(peer.process, peer.base_url + health, timeout_s=timeout_s, poll_timeout_s=2,
                          interval_s=0.3)
    if status == "up":
        return peer
    if status == "exited":
        raise RuntimeError(f"{peer.name} exited with {peer.process.returncode}")
    peer.stop()
    raise RuntimeError(f"{peer.name} did not come up in {timeout_s}s")


def _spawn(cmd: list[str], log: Path, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    return subprocess.Popen(cmd, stdout=log.open("wb"), stderr=subprocess.STDOUT,
                            env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})})


def superfluid(model_id: str, *, threads: int, lanes: int | None, window: int | None, logs: Path,
               name: str = "superfluid", env: dict[str, str] | None = None, flags: tuple[str, ...] = (),
               also: tuple[str, ...] = ()) -> Peer:
    """``env`` and ``name`` let one run compare two builds (PYTHONPATH at another checkout's src); ``also`` serves
    more models beside ``model_id``; ``lanes`` and ``window`` None keep the server's defaults."""
    port = free_port()
    cmd = [sys.executable, "-m", "superfluid.cli", "serve", model_id, *also, "--port", str(port), "--threads",
           str(threads)]
    if lanes is not None and window is not None:
        cmd += ["--parallel", str(lanes), "--ctx-size", str(window), "--kv-size", str(window * lanes)]
    cmd += flags
    peer = Peer(name, f"http://127.0.0.1:{port}", _spawn(cmd, logs / f"{name}.log", env), model_id)
    return _wait(peer, "/health")


def no_repack() -> list[str]:
    """The llama.cpp tools' flag for loading weights as superfluid does where its build's AMX kernels fault
    (docs/models.md): without the extra buffer types. Empty elsewhere, so both sides use the same kernels (the
    tools are built with the same -fno-dse as the README's install)."""
    return [] if extra_buffers_usable() else ["--no-repack"]


def flash_attn() -> str:
    """llama-server's ``-fa`` value for the flash attention superfluid's ``--flash-attn auto`` chooses for a chat
    model whose lanes have a KV stream each, the benchmarks' layout (off; docs/performance.md, "Flash
    attention"), so that both sides run the same kernels. Every benchmark that starts llama-server through
    ``llama_server`` gets it unless it names another; results recorded before session 25 ran both sides with
    llama.cpp's default (on)."""
    return flash_attention("auto")


def llama_server(gguf: Path, *, threads: int, lanes: int, window: int, logs: Path,
                 binary: Path = LLAMA_SERVER, fa: str | None = None, name: str = "llama-server",
                 env: dict[str, str] | None = None, extra: tuple[str, ...] = ()) -> Peer:
    """``fa``: llama-server's ``-fa`` (None: what superfluid's default is here, ``flash_attn()``); ``env``: added to
    its environment; ``extra``: more of its flags."""
    if not binary.exists():
        raise FileNotFoundError(f"{binary} is missing: run benchmarks/build_llama_server.sh first")
    port = free_port()
    cmd = [str(binary), "-m", str(gguf), "--port", str(port), "-t", str(threads), "-tb", str(threads),
           "-np", str(lanes), "-c", str(window * lanes), "--no-webui", "-fa", fa or flash_attn(), *no_repack(),
           *extra]
    peer = Peer(name, f"http://127.0.0.1:{port}", _spawn(cmd, logs / f"{name}.log", env), gguf.stem)
    return _wait(peer, "/health")


def ensure_lcpp_venv() -> Path:
    python = LCPP_VENV / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(LCPP_VENV)], check=True)
        import importlib.metadata

        version = importlib.metadata.version("llama-cpp-python")
        subprocess.run([str(python), "-m", "pip", "install", "-q", f"llama-cpp-python[server]=={version}"],
                       check=True)
    return python


def llama_cpp_python(gguf: Path, *, threads: int, window: int, logs: Path) -> Peer:
    python = ensure_lcpp_venv()
    port = free_port()
    cmd = [str(python), "-m", "llama_cpp.server", "--model", str(gguf), "--port", str(port), "--n_threads",
           str(threads), "--n_ctx", str(window), "--model_alias", "bench"]
    peer = Peer("llama-cpp-python", f"http://127.0.0.1:{port}", _spawn(cmd, logs / "llama-cpp-python.log"),
                "bench")
    return _wait(peer, "/v1/models")
