"""Connection limits (superfluid.http.connections) under a real uvicorn, over a small ASGI app.

Each limit is met with raw sockets, as a hostile client would: too many or too large headers (431), a head sent
one byte at a time and a body that stalls (408), a silent connection (closed), a connection flood over the cap
(the longest-idle connections close, a new client still gets its answer), and a cap full of busy connections
(503 for the next). conformance/test_hostile.py repeats the point of each against the real server.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
import uvicorn

from superfluid.http.connections import ConnectionLimits, ConnectionTable, fit_descriptors, protocol_class

LIMITS = ConnectionLimits(max_connections=20, max_header_count=10, max_header_bytes=2048, timeout_headers_s=0.6,
                          timeout_body_s=0.6)


async def _app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] != "http":
        return
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return
        size += len(message.get("body", b""))
        if not message.get("more_body"):
            break
    if scope["path"] == "/hold":  # a request that keeps its connection busy
        while (await receive())["type"] != "http.disconnect":
            pass
        return
    body = json.dumps({"path": scope["path"], "size": size}).encode()
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[tuple[str, int], type[Any]]]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    protocol = protocol_class(LIMITS)
    server = uvicorn.Server(uvicorn.Config(_app, host="127.0.0.1", port=port, log_level="warning", http=protocol,
                                           timeout_keep_alive=1, lifespan="off"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "uvicorn did not start"
        time.sleep(0.02)
    yield ("127.0.0.1", port), protocol
    server.should_exit = True
    thread.join(timeout=10)


def _exchange(address: tuple[str, int], data: bytes, *, wait_s: float = 5.0, pause_s: float = 0.0) -> bytes:
    """Send ``data`` (one byte per ``pause_s`` when set), then read until the server closes."""
    with socket.create_connection(address) as sock:
        sock.settimeout(wait_s)
        try:
            if pause_s:
                for byte in data:
                    sock.sendall(bytes([byte]))
                    time.sleep(pause_s)
            else:
                sock.sendall(data)
        except OSError:
            pass  # the server closed while we were still sending: read what it said
        out = bytearray()
        try:
            while chunk := sock.recv(65536):
                out += chunk
        except (TimeoutError, ConnectionResetError):
            pass
        return bytes(out)


def _get(path: str = "/ok", headers: bytes = b"") -> bytes:
    return b"GET " + path.encode() + b" HTTP/1.1\r\nhost: t\r\n" + headers + b"\r\n"


def test_a_plain_request_is_answered(server: tuple[tuple[str, int], Any]) -> None:
    address, _ = server
    assert _exchange(address, _get("/ok", b"connection: close\r\n")).startswith(b"HTTP/1.1 200 ")


def test_too_many_header_fields_is_431_in_the_dialect_of_the_path(server: tuple[tuple[str, int], Any]) -> None:
    address, _ = server
    fields = b"".join(b"x-f%d: v\r\n" % i for i in range(11))
    reply = _exchange(address, _get("/api/tags", fields))
    assert reply.startswith(b"HTTP/1.1 431 ")
    body = json.loads(reply.split(b"\r\n\r\n", 1)[1])
    assert "more than 10 header fields" in body["error"]  # Ollama's shape: {"error": "..."}


def test_oversized_head_is_431_without_reading_it_all(server: tuple[tuple[str, int], Any]) -> None:
    address, _ = server
    reply = _exchange(address, _get("/v1/models", b"x-big: " + b"a" * 5_000_000 + b"\r\n"))
    assert reply.startswith(b"HTTP/1.1 431 ")
    error = json.loads(reply.split(b"\r\n\r\n", 1)[1])["error"]
    assert error["code"] == "request_header_fields_too_large" and "2,048 bytes" in error["message"]


def test_a_head_sent_too_slowly_is_408(server: tuple[tuple[str, int], Any]) -> None:
    address, _ = server
    started = time.monotonic()
    reply = _exchange(address, _get("/ok", b"x-slow: " + b"s" * 40 + b"\r\n"), pause_s=0.05)
    assert reply.startswith(b"HTTP/1.1 408 "), reply[:80]
    assert time.monotonic() - started < 3
    assert b"--timeout-headers" in reply


def test_a_silent_connection_is_closed(server: tuple[tuple[str, int], Any]) -> None:
    address, _ = server
    started = time.monotonic()
    assert _exchange(address, b"") == b""
    assert 0.5 < time.monotonic() - started < 3


def test_a_stalled_body_is_408(server: tuple[tuple[str, int], Any]) -> None:
    address, _ = server
    head = b"POST /v1/chat/completions HTTP/1.1\r\nhost: t\r\ncontent-length: 100\r\n\r\n"
    reply = _exchange(address, head + b'{"model":')
    assert reply.startswith(b"HTTP/1.1 408 ")
    assert b"--timeout-body" in reply


def test_a_slow_but_moving_body_is_read(server: tuple[tuple[str, int], Any]) -> None:
    address, _ = server
    body = b"x" * 12
    head = b"POST /ok HTTP/1.1\r\nhost: t\r\nconnection: close\r\ncontent-length: 12\r\n\r\n"
    with socket.create_connection(address) as sock:
        sock.settimeout(5)
        sock.sendall(head)
        for byte in body:  # 12 bytes over ~1.2 s: no gap reaches the 0.6 s timeout
            time.sleep(0.1)
            sock.sendall(bytes([byte]))
        reply = sock.recv(65536)
    assert reply.startswith(b"HTTP/1.1 200 ") and b'"size": 12' in reply


def test_an_idle_flood_evicts_the_longest_idle_and_a_new_client_is_served(
        server: tuple[tuple[str, int], Any]) -> None:
    address, protocol = server
    table: ConnectionTable = protocol.table
    flood = [socket.create_connection(address) for _ in range(3 * LIMITS.max_connections)]
    try:
        time.sleep(0.1)
        assert len(table.open) <= LIMITS.max_connections
        assert table.evicted >= 2 * LIMITS.max_connections - 1
        assert _exchange(address, _get("/ok", b"connection: close\r\n")).startswith(b"HTTP/1.1 200 ")
        closed = 0
        for sock in flood[:LIMITS.max_connections]:  # the oldest were closed to make room
            sock.settimeout(2)
            try:
                closed += sock.recv(1) == b""
            except OSError:
                closed += 1
        assert closed == LIMITS.max_connections
    finally:
        for sock in flood:
            sock.close()


def test_a_cap_full_of_busy_connections_answers_503(server: tuple[tuple[str, int], Any]) -> None:
    address, protocol = server
    time.sleep(1.0)  # let the last test's connections go
    busy = []
    try:
        for _ in range(LIMITS.max_connections):
            sock = socket.create_connection(address)
            sock.sendall(_get("/hold"))
            busy.append(sock)
        deadline = time.monotonic() + 5
        while len(protocol.table.idle) and time.monotonic() < deadline:
            time.sleep(0.02)
        refused_before = protocol.table.refused
        reply = _exchange(address, _get("/ok"))
        assert reply.startswith(b"HTTP/1.1 503 "), reply[:80]
        assert json.loads(reply.split(b"\r\n\r\n", 1)[1])["error"]["code"] == "too_many_connections"
        assert protocol.table.refused == refused_before + 1
    finally:
        for sock in busy:
            sock.close()


def test_the_descriptor_limit_makes_room_for_the_cap() -> None:
    import resource

    fitted = fit_descriptors(ConnectionLimits(max_connections=64))
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    assert fitted.max_connections <= 64
    assert soft == resource.RLIM_INFINITY or soft >= 2 * fitted.max_connections + 256 or fitted.max_connections < 64
