"""The floor under any Python server that keeps generation off its event loop: CPU per streamed chunk.

A bare ASGI app under uvicorn (uvloop + httptools, as ``superfluid serve`` runs) streams chunks that another
thread hands over with ``call_soon_threadsafe``, one every 4 ms, to a plain-socket client. The event loop
thread's CPU time per chunk is the cost of the hand-off, the wake-up and the ``send``, with none of superfluid's
code in the path.

Run: ``python -m benchmarks.loop_floor [--chunks 2000] [--record]``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import subprocess
import sys
import threading
import time
from typing import Any

import uvicorn
from conformance.server import free_port

from benchmarks.proc import cpu_seconds
from benchmarks.recording import record

CHUNK = b'data: {"choices":[{"index":0,"delta":{"content":" word"}}]}\n\n'


def make_app(chunks: int) -> Any:
    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[bytes | None] = asyncio.Queue()

        def producer() -> None:
            for _ in range(chunks):
                time.sleep(0.004)
                loop.call_soon_threadsafe(queue.put_nowait, CHUNK)
            loop.call_soon_threadsafe(queue.put_nowait, None)

        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"text/event-stream")]})
        threading.Thread(target=producer, daemon=True).start()
        while (chunk := await queue.get()) is not None:
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    return app


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=2000)
    parser.add_argument("--record", action="store_true")
    parser.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        uvicorn.run(make_app(args.chunks), host="127.0.0.1", port=args.serve, log_level="warning")
        return
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "benchmarks.loop_floor", "--serve", str(port),
                               "--chunks", str(args.chunks)])
    try:
        for _ in range(100):
            try:
                sock = socket.create_connection(("127.0.0.1", port))
                break
            except OSError:
                time.sleep(0.1)
        before = cpu_seconds(server.pid, server.pid)
        with sock:
            sock.sendall(b"GET / HTTP/1.1\r\nhost: bench\r\n\r\n")
            while (data := sock.recv(1 << 16)) and not data.endswith(b"0\r\n\r\n"):
                pass
        per_chunk_us = (cpu_seconds(server.pid, server.pid) - before) / args.chunks * 1e6
    finally:
        server.terminate()
        server.wait(timeout=10)
    report = (f"machine: {os.cpu_count()} cores; uvicorn {uvicorn.__version__}; {args.chunks} chunks, one per 4 ms\n"
              f"event loop thread CPU per streamed chunk: {per_chunk_us:.0f} us")
    print(report)
    if args.record:
        record("loop_floor", report)


if __name__ == "__main__":
    main()
