"""Embeddings per second, superfluid against llama-server --embedding on the same GGUF (the bundled
all-MiniLM-L6-v2 as superfluid converts it), for requests of 1, 16 and 64 short texts; and the real-time factor
of transcribing espeak-ng speech with the bundled Whisper base.

Both servers run side by side in one run with the same thread count; rounds alternate between them so that
load from other processes on a shared machine falls on both. Run:

    python -m benchmarks.embeddings [--build] [--rounds 5] [--threads 2]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from conformance.server import free_port

from benchmarks import peers
from benchmarks.recording import record
from superfluid.engine.models import minilm
from superfluid.engine.models.model_sources import _cache_dir

TEXTS = [f"short text number {i} about {topic}" for i, topic in
         enumerate(["cats", "stock markets", "the weather", "music", "databases", "cooking", "trains", "space"] * 8)]
BATCHES = (1, 16, 64)


def _superfluid(threads: int, logs: Path) -> peers.Peer:
    port = free_port()
    cmd = [sys.executable, "-m", "superfluid.cli", "serve", "all-minilm-l6-v2", "whisper-base", "--port",
           str(port), "--threads", str(threads), "--parallel", "1"]
    peer = peers.Peer("superfluid", f"http://127.0.0.1:{port}", peers._spawn(cmd, logs / "superfluid.log"),
                      "all-minilm-l6-v2")
    return peers._wait(peer, "/health")


def _llama_server(gguf: Path, threads: int, logs: Path) -> peers.Peer:
    port = free_port()
    cmd = [str(peers.LLAMA_SERVER), "-m", str(gguf), "--port", str(port), "-t", str(threads), "-tb", str(threads),
           "--embedding", "-c", "4096", "-b", "4096", "-ub", "512", "--no-webui", *peers.no_repack()]
    peer = peers.Peer("llama-server", f"http://127.0.0.1:{port}", peers._spawn(cmd, logs / "llama-server.log"),
                      "minilm")
    return peers._wait(peer, "/health")


def _rate(client: httpx.Client, peer: peers.Peer, batch: int, seconds: float) -> float:
    """Texts embedded per second by back-to-back requests of ``batch`` texts, for about ``seconds``."""
    done, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        texts = [TEXTS[(done + i) % len(TEXTS)] for i in range(batch)]
        reply = client.post(peer.base_url + "/v1/embeddings", json={"model": peer.model, "input": texts})
        reply.raise_for_status()
        done += batch
    return done / (time.perf_counter() - start)


def _rtf(base_url: str) -> tuple[float, float]:
    """(audio seconds, wall seconds / audio seconds) for one espeak-ng paragraph."""
    text = ("Benchmarks compare ratios measured side by side in one run. The quick brown fox jumps over the lazy "
            "dog, and the server writes down what it heard, segment by segment, while the audio is decoded.")
    with tempfile.TemporaryDirectory() as tmp:
        wav = Path(tmp) / "speech.wav"
        subprocess.run(["espeak-ng", "-v", "en", "-w", str(wav), text], check=True)
        data = wav.read_bytes()
    with httpx.Client(timeout=600) as client:
        client.post(base_url + "/v1/audio/transcriptions", files={"file": ("s.wav", data)},
                    data={"model": "whisper-base"}).raise_for_status()  # load and warm
        start = time.perf_counter()
        reply = client.post(base_url + "/v1/audio/transcriptions", files={"file": ("s.wav", data)},
                            data={"model": "whisper-base", "response_format": "verbose_json"})
        wall = time.perf_counter() - start
    duration = float(reply.json()["duration"])
    return duration, wall / duration


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--build", action="store_true", help="build llama-server first")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=4.0, help="per batch size, per round, per server")
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    if args.build or not peers.LLAMA_SERVER.exists():
        subprocess.run(["bash", str(Path(__file__).parent / "build_llama_server.sh")], check=True)
    gguf = minilm.gguf_path(_cache_dir())
    logs = Path(tempfile.mkdtemp(prefix="bench-embeddings-"))
    ours, theirs = _superfluid(args.threads, logs), _llama_server(gguf, args.threads, logs)
    rates: dict[tuple[str, int], list[float]] = {}
    try:
        with httpx.Client(timeout=120) as client:
            for peer in (ours, theirs):
                _rate(client, peer, 16, 1.0)  # warm
            for round_ in range(args.rounds):
                for batch in BATCHES:
                    for peer in (ours, theirs) if round_ % 2 == 0 else (theirs, ours):
                        rates.setdefault((peer.name, batch), []).append(_rate(client, peer, batch, args.seconds))
        audio_s, rtf = _rtf(ours.base_url)
    finally:
        ours.stop()
        theirs.stop()
    lines = [f"embeddings/s, all-MiniLM-L6-v2 F16 GGUF, {args.threads} threads each, {args.rounds} alternating "
             f"rounds of {args.seconds:g} s per batch size (median)",
             f"{'batch':>6} {'superfluid':>11} {'llama-server':>13} {'ratio':>6}"]
    for batch in BATCHES:
        a = statistics.median(rates[("superfluid", batch)])
        b = statistics.median(rates[("llama-server", batch)])
        lines.append(f"{batch:>6} {a:>11.1f} {b:>13.1f} {a / b:>6.2f}")
    lines.append(f"transcription: whisper-base int8, {audio_s:.1f} s of espeak-ng speech, real-time factor "
                 f"{rtf:.3f} (wall / audio; below 1 is faster than real time)")
    report = "\n".join(lines)
    print(report)
    print("written to", record("embeddings", report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
