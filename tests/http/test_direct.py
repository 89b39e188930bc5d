"""Streams the engine thread writes itself (superfluid.http.direct).

The writer alone over a socket pair: frames stay whole and in order across threads, what comes before ``open``
waits behind the lead, a full socket never blocks the writing thread, a closed peer ends the output. Then the
real app under a real uvicorn (as ``superfluid serve`` runs it) over a fake model whose deltas arrive from
another thread: the direct path is taken, and its bytes are the ones the ordinary path sends.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import httpx
import pytest
from starlette.testclient import TestClient

from superfluid.app import create_app
from superfluid.engine.types import GenerationRequest, TextDelta
from superfluid.http.direct import ChunkWriter, DeltaHook, direct_connection, write_holding_gil
from superfluid.settings import Settings
from tests.conftest import FakeModel, FakeServices, ScriptedStream, served_by_uvicorn


def _read_all(sock: socket.socket) -> bytes:
    sock.settimeout(10)
    data = bytearray()
    while chunk := sock.recv(1 << 16):
        data += chunk
    return bytes(data)


def _chunk(payload: bytes) -> bytes:
    return b"%x\r\n%b\r\n" % (len(payload), payload)


def test_frames_before_open_wait_behind_the_lead() -> None:
    async def scenario() -> bytes:
        ours, theirs = socket.socketpair()
        ours.setblocking(False)
        writer = ChunkWriter(asyncio.get_running_loop())
        writer.write(b"one")
        other = threading.Thread(target=writer.write, args=(b"two",))
        other.start()
        other.join()
        writer.write(b"")  # an empty chunk would end an HTTP body: never written
        writer.open(ours.fileno(), b"lead")
        writer.write(b"three")
        await writer.drain()
        writer.close()
        ours.sendall(b"end")  # the writer closed its duplicate descriptor, not the connection
        ours.close()
        return _read_all(theirs)

    assert asyncio.run(scenario()) == _chunk(b"lead") + _chunk(b"one") + _chunk(b"two") + _chunk(b"three") + b"end"


def test_a_full_socket_parks_frames_without_blocking_the_writer() -> None:
    frames = [b"%05d:" % i + b"x" * 200 for i in range(20000)]  # ~4 MB, far more than the socket buffers hold

    async def scenario() -> tuple[bytes, float]:
        ours, theirs = socket.socketpair()
        ours.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
        theirs.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        ours.setblocking(False)
        writer = ChunkWriter(asyncio.get_running_loop())
        writer.open(ours.fileno())

        def produce() -> None:
            for frame in frames:
                writer.write(frame)

        producer = threading.Thread(target=produce)
        started = time.monotonic()
        producer.start()
        await asyncio.to_thread(producer.join)  # nobody reads yet: the writes must return regardless
        elapsed = time.monotonic() - started
        reader = asyncio.ensure_future(asyncio.to_thread(_read_all, theirs))
        await writer.drain()
        writer.close()
        ours.close()
        return await reader, elapsed

    data, elapsed = asyncio.run(scenario())
    assert data == b"".join(_chunk(frame) for frame in frames)
    assert elapsed < 30  # generous: what matters is that it returned with no reader at all


def test_a_closed_peer_ends_the_output_and_reports_it_once() -> None:
    reports: list[str] = []

    async def scenario() -> ChunkWriter:
        ours, theirs = socket.socketpair()
        ours.setblocking(False)
        theirs.close()
        writer = ChunkWriter(asyncio.get_running_loop())
        writer.on_failure(lambda: reports.append("before"))
        writer.open(ours.fileno(), b"lead")
        await asyncio.to_thread(writer.write, b"gone")
        await writer.drain()  # returns: nothing will ever be sent
        writer.write(b"dropped")
        writer.fail()
        await asyncio.sleep(0.05)
        writer.on_failure(lambda: reports.append("after"))  # registered once already lost: runs at once
        writer.close()
        ours.close()
        return writer

    assert asyncio.run(scenario()).failed
    assert reports == ["before", "after"]


def test_a_render_that_fails_ends_the_output_instead_of_raising() -> None:
    async def scenario() -> ChunkWriter:
        writer = ChunkWriter(asyncio.get_running_loop())

        def render(delta: TextDelta) -> bytes:
            raise ValueError("broken")

        DeltaHook(writer, render)(TextDelta(0, content="x"))  # on the engine thread this must not raise
        return writer

    assert asyncio.run(scenario()).failed


def test_without_a_uvicorn_connection_there_is_no_direct_path() -> None:
    assert direct_connection({}) is None
    assert direct_connection({"superfluid.raw_send": object()}) is None


# ---- the real app under uvicorn --------------------------------------------------------------------------------

DELTAS = [TextDelta(0, content=f"w{i} ", completion_tokens=i + 1) for i in range(300)]


class _Model(FakeModel):
    id = "fake"
    n_vocab = 100
    template = SimpleNamespace(variables=frozenset(), thinks=False, name="fake")

    def __init__(self) -> None:
        self.hooks: list[Any] = []
        self.streams: list[ScriptedStream] = []
        self.deltas = DELTAS
        self.admit_delay_s = 0.0

    def generate(self, request: GenerationRequest, prepared: Any = None, direct: Any = None,
                 disk: Any = None, whole: bool = False) -> ScriptedStream:
        self.hooks.append(direct)
        self.streams.append(ScriptedStream(self.deltas, direct, admit_delay_s=self.admit_delay_s))
        return self.streams[-1]


class _Services(FakeServices):
    def __init__(self, settings: Settings) -> None:
        super().__init__(settings)
        self.model = _Model()
        self._counter = 0

    @property
    def models(self) -> Any:
        model = self.model

        class Registry:
            async def get(self, model_id: str) -> _Model:
                return model

        return Registry()

    def next_id(self, prefix: str) -> str:
        return f"{prefix}-test"


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[str, _Services]]:
    """The app as ``superfluid serve`` runs it: uvicorn with the connection-limited httptools protocol, the
    connection exposed."""
    settings = Settings(keepalive_s=30)
    services = _Services(settings)
    with served_by_uvicorn(settings, services) as base_url:
        yield base_url, services


ROUTES = {
    "/v1/chat/completions": {"model": "fake", "messages": [{"role": "user", "content": "hi"}], "stream": True},
    "/v1/completions": {"model": "fake", "prompt": "hi", "stream": True, "echo": True},
}


def _sse_events(raw: bytes) -> list[Any]:
    text = raw.decode()
    assert text.endswith("data: [DONE]\n\n")
    return [json.loads(block[6:]) for block in text.split("\n\n") if block.startswith("data: {")]


@pytest.mark.parametrize("path", ROUTES)
def test_direct_stream_carries_the_same_frames_as_the_ordinary_path(served: tuple[str, _Services],
                                                                    path: str) -> None:
    base_url, services = served
    with httpx.Client(base_url=base_url, timeout=30) as client, \
            client.stream("POST", path, json=ROUTES[path]) as response:
        assert response.status_code == 200
        assert response.headers["transfer-encoding"] == "chunked"
        direct = _sse_events(response.read())
    assert services.model.hooks[-1] is not None, "the stream under uvicorn did not take the direct path"

    ordinary_services = _Services(Settings(keepalive_s=30))
    app = create_app(ordinary_services.settings, services=ordinary_services)  # type: ignore[arg-type]
    with TestClient(app) as client:
        ordinary = _sse_events(client.post(path, json=ROUTES[path]).content)
    assert ordinary_services.model.hooks[-1] is None  # no uvicorn connection: the ordinary path
    for chunk in direct + ordinary:
        chunk.pop("created")  # the clock's second may turn between the two requests
    assert direct == ordinary
    texts = [c["choices"][0].get("text", c["choices"][0].get("delta", {}).get("content")) for c in direct]
    assert "".join(t or "" for t in texts).endswith("".join(d.content for d in DELTAS))
    assert direct[-1]["choices"][0]["finish_reason"] == "length"


MANY = [TextDelta(0, content=f"{i:06d}" + "x" * 200, completion_tokens=i + 1) for i in range(40000)]


def test_a_slow_reader_gets_every_frame_in_order(served: tuple[str, _Services]) -> None:
    """The reader waits before reading: the socket fills, the writer parks the rest and the loop finishes it."""
    base_url, services = served
    services.model.deltas = MANY
    host, port = base_url.removeprefix("http://").split(":")
    body = json.dumps(ROUTES["/v1/chat/completions"]).encode()
    with socket.create_connection((host, int(port))) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 16)
        sock.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
                     b"content-length: %d\r\nconnection: close\r\n\r\n%b" % (len(body), body))
        time.sleep(1.0)
        raw = _read_all(sock)
    services.model.deltas = DELTAS
    assert services.model.hooks[-1].writer.parked > 0, "the socket never filled: the test proves nothing"
    head, _, chunked = raw.partition(b"\r\n\r\n")
    assert b"transfer-encoding: chunked" in head.lower()
    payload, pos = bytearray(), 0
    while True:  # undo the chunked framing, checking it as we go
        end = chunked.index(b"\r\n", pos)
        size = int(chunked[pos:end], 16)
        if size == 0:
            break
        payload += chunked[end + 2:end + 2 + size]
        assert chunked[end + 2 + size:end + 4 + size] == b"\r\n"
        pos = end + 4 + size
    events = _sse_events(bytes(payload))
    assert events[0]["choices"][0]["delta"] == {"role": "assistant"}
    assert [e["choices"][0]["delta"].get("content") for e in events[1:-1]] == [d.content for d in MANY]


def test_a_client_that_leaves_before_the_head_cancels_the_generation(served: tuple[str, _Services]) -> None:
    """The body's generators never start then, so the response itself cancels what is still generating."""
    base_url, services = served
    services.model.admit_delay_s = 0.5
    host, port = base_url.removeprefix("http://").split(":")
    body = json.dumps(ROUTES["/v1/chat/completions"]).encode()
    try:
        with socket.create_connection((host, int(port))) as sock:
            sock.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
                         b"content-length: %d\r\n\r\n%b" % (len(body), body))
            time.sleep(0.1)  # the handler is waiting for admission when the client goes
        deadline = time.monotonic() + 10
        while not services.model.streams[-1].cancelled:
            assert time.monotonic() < deadline, "the abandoned generation was never cancelled"
            time.sleep(0.05)
    finally:
        services.model.admit_delay_s = 0.0


def test_a_delta_that_cannot_be_rendered_aborts_the_stream(served: tuple[str, _Services]) -> None:
    """The client must see a body cut short, not a clean end, and the generation must stop."""
    base_url, services = served
    broken: Any = object()  # content that JSON cannot encode
    services.model.deltas = [*DELTAS[:5], TextDelta(0, content=broken), *DELTAS[5:]]
    try:
        with httpx.Client(base_url=base_url, timeout=30) as client, \
                client.stream("POST", "/v1/chat/completions", json=ROUTES["/v1/chat/completions"]) as response, \
                pytest.raises(httpx.RemoteProtocolError):
            response.read()
        deadline = time.monotonic() + 10
        while not services.model.streams[-1].cancelled:
            assert time.monotonic() < deadline, "the generation went on after its output was lost"
            time.sleep(0.05)
    finally:
        services.model.deltas = DELTAS


def test_write_holding_gil_writes_and_raises_as_os_write_does() -> None:
    ours, theirs = socket.socketpair()
    ours.setblocking(False)
    try:
        assert write_holding_gil(ours.fileno(), b"hello") == 5
        assert theirs.recv(16) == b"hello"
        with pytest.raises(BlockingIOError):  # a full socket: the writer parks the rest for the loop
            while True:
                write_holding_gil(ours.fileno(), b"x" * 65536)
        theirs.close()
        with pytest.raises(BrokenPipeError):
            while True:
                write_holding_gil(ours.fileno(), b"x" * 65536)
    finally:
        ours.close()
        theirs.close()
