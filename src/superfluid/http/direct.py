"""Token streams written to the client's socket by the engine thread.

On the ordinary path a streamed token goes engine thread -> event loop (a wake-up through a pipe) -> the
stream's async generators -> Starlette -> uvicorn -> socket. On a small CPU that trip costs the loop about
0.2 ms per token, taken from the cores llama.cpp decodes on, plus a wake-up on the engine thread's side of every
decode: together some 2-3% of single-stream decode speed (docs/performance.md).

For a plain HTTP/1.1 connection served by uvicorn's httptools protocol, a stream can skip the trip: the engine
thread renders each delta itself and writes the HTTP chunk to the connection's socket (a duplicate of its file
descriptor, non-blocking) just before its next decode. The loop still writes the response head, the first frame,
the final frames, keep-alives and errors; everything of the body goes through one ChunkWriter, whose lock keeps
the frames whole and in order. A socket that will not take a write (a slow client) parks the rest in the writer,
and the loop sends it when the socket is writable again; later frames queue behind it, so nothing jumps ahead.

Anything else (TLS, another server or protocol, an ASGI test client) keeps the ordinary path, and so do streams
whose deltas need state only the loop has.
"""

from __future__ import annotations

import asyncio
import ctypes
import logging
import os
import threading
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from starlette.responses import StreamingResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from superfluid.engine import TextDelta

log = logging.getLogger(__name__)

RAW_SEND = "superfluid.raw_send"
"""Scope key under which expose_connection keeps the server's own ``send`` callable."""

_HTTPTOOLS_CYCLE = "uvicorn.protocols.http.httptools_impl"

T = TypeVar("T")


class _WriteHoldingGil(ctypes._CFuncPtr):  # type: ignore[name-defined,misc]
    """libc's ``write`` called without releasing the GIL, errno kept (what PYFUNCTYPE cannot ask for)."""

    _argtypes_ = (ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t)
    _restype_ = ctypes.c_ssize_t
    _flags_ = ctypes._FUNCFLAG_CDECL | ctypes._FUNCFLAG_PYTHONAPI | ctypes._FUNCFLAG_USE_ERRNO  # type: ignore[attr-defined]


_libc_write = _WriteHoldingGil(ctypes.cast(ctypes.CDLL(None).write, ctypes.c_void_p).value)


def write_holding_gil(fd: int, data: bytes) -> int:
    """``os.write`` on a non-blocking descriptor, without letting the GIL go.

    ``os.write`` releases the GIL and takes it back; while another thread is busy in Python (the loop rendering
    many streams, a worker validating a big body) taking it back waits up to the switch interval, once per
    stream per token on the engine thread. A non-blocking write to a socket takes microseconds, so it keeps the
    GIL instead. Raises as ``os.write`` does (BlockingIOError when the socket is full).
    """
    written = int(_libc_write(fd, data, len(data)))
    if written < 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))  # the errno's own subclass: BlockingIOError, BrokenPipeError...
    return written


def _chunk(payload: bytes) -> bytes:
    """One HTTP/1.1 chunk."""
    return b"%x\r\n%b\r\n" % (len(payload), payload)


def expose_connection(app: ASGIApp) -> ASGIApp:
    """Wrap the outermost app so that a stream can find its connection (the server's own ``send``)."""

    async def wrapped(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            scope[RAW_SEND] = send
        await app(scope, receive, send)

    return wrapped


@dataclass(frozen=True)
class Connection:
    """The uvicorn request cycle behind one HTTP request, and its transport."""

    cycle: Any
    transport: asyncio.Transport

    def live_fd(self) -> int:
        """The socket's descriptor while the connection is open, else -1. Call it on the loop and use the answer
        before the next ``await``: only the loop closes the transport, and a closed descriptor's number may soon
        belong to another client's connection."""
        if self.cycle.disconnected or self.transport.is_closing():
            return -1
        sock = self.transport.get_extra_info("socket")
        return sock.fileno() if sock is not None else -1


def direct_connection(scope: Mapping[str, Any]) -> Connection | None:
    """The request's connection if its stream may be written directly: uvicorn's httptools cycle, plain TCP."""
    cycle = getattr(scope.get(RAW_SEND), "__self__", None)
    if cycle is None or type(cycle).__module__ != _HTTPTOOLS_CYCLE:
        return None
    transport = getattr(cycle, "transport", None)
    if transport is None or transport.get_extra_info("sslcontext") is not None:
        return None
    connection = Connection(cycle, transport)
    return connection if connection.live_fd() >= 0 else None


class ChunkWriter:
    """HTTP/1.1 chunks of one response body, written in order from any thread.

    It starts *held*: frames queue until ``open`` (the loop, once the head is on the wire) puts the response's
    first frame in front of them and starts writing to the socket.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._lock = threading.Lock()
        self._pending = bytearray()
        self._fd = -1
        self._state = "held"  # held -> open -> closed
        self._watching = False
        self._drained: asyncio.Future[None] | None = None
        self.failed = False
        """The output is lost (the socket refused a write, or a frame could not be rendered); later frames are
        dropped, and the body can no longer end cleanly."""
        self._on_failure: Callable[[], None] | None = None
        self.parked = 0
        """Times the socket was full and frames waited for the loop (a slow client)."""

    def write(self, payload: bytes) -> None:
        """Queue one chunk (any thread); written at once when nothing is waiting ahead of it."""
        if not payload:  # an empty chunk would end the body
            return
        frame = _chunk(payload)
        with self._lock:
            if self._state == "closed" or self.failed:
                return
            if self._state == "held" or self._pending:
                self._pending += frame
                return
            self._send(frame)

    def on_failure(self, callback: Callable[[], None]) -> None:
        """On the loop: run ``callback`` once if the output is lost (now, if it already is)."""
        with self._lock:
            now = self.failed
            self._on_failure = None if now else callback
        if now:
            callback()

    def fail(self) -> None:
        """Any thread: the output is lost; the loop is told."""
        with self._lock:
            self.failed = True
        self._tell_loop(self._settle)

    def open(self, fd: int, lead: bytes = b"") -> None:
        """On the loop: start writing to ``fd`` (duplicated), ``lead`` ahead of every queued frame."""
        with self._lock:
            if self._state != "held":
                return
            self._fd = os.dup(fd)
            self._state = "open"
            queued = (_chunk(lead) if lead else b"") + bytes(self._pending)
            self._pending.clear()
            if queued:
                self._send(queued)

    def _send(self, data: bytes) -> None:
        """Write now (lock held, nothing pending); what the socket does not take waits for the loop."""
        try:
            written = write_holding_gil(self._fd, data)
        except BlockingIOError:
            written = 0
        except OSError:
            self.failed = True
            self._tell_loop(self._settle)
            return
        if written < len(data):
            self._pending += data[written:]
            self.parked += 1
            self._tell_loop(self._watch)

    def _tell_loop(self, callback: Callable[[], None]) -> None:
        try:
            self._loop.call_soon_threadsafe(callback)
        except RuntimeError:  # the loop is gone (shutting down): nobody will send the rest
            self.failed = True

    def _watch(self) -> None:
        with self._lock:
            if self._pending and self._state == "open" and not self.failed and not self._watching:
                self._loop.add_writer(self._fd, self._on_writable)
                self._watching = True

    def _on_writable(self) -> None:
        with self._lock:
            if self._pending and not self.failed and self._state == "open":
                try:
                    written = os.write(self._fd, self._pending)
                    del self._pending[:written]
                except BlockingIOError:
                    return
                except OSError:
                    self.failed = True
            if self._pending and not self.failed:
                return
        self._settle()

    def _settle(self) -> None:
        """On the loop: nothing is waiting any more (or never will be sent): stop watching, wake ``drain``; a
        lost output is reported once."""
        with self._lock:
            if self._watching:
                self._loop.remove_writer(self._fd)
                self._watching = False
            report = None
            if self.failed:
                self._pending.clear()
                report, self._on_failure = self._on_failure, None
        if report is not None:
            report()
        if self._drained is not None and not self._drained.done():
            self._drained.set_result(None)

    async def drain(self) -> None:
        """Wait until every queued frame is on the socket, or the socket failed."""
        while True:
            with self._lock:
                if not self._pending or self.failed or self._state != "open":
                    return
                self._drained = self._loop.create_future()
            await self._drained

    def close(self) -> None:
        """On the loop: no more writes; the duplicate descriptor is closed."""
        with self._lock:
            if self._watching:
                self._loop.remove_writer(self._fd)
                self._watching = False
            if self._fd >= 0:
                os.close(self._fd)
                self._fd = -1
            self._state = "closed"
            self._pending.clear()


class DeltaHook(Generic[T]):
    """Called on the engine thread with each delta: renders it and writes the frame. A render that fails ends
    the stream's output (the client sees the body stop short of its end) rather than raising into the engine."""

    def __init__(self, writer: ChunkWriter, render: Callable[[T], bytes | None]) -> None:
        self.writer = writer
        self._render = render

    def __call__(self, delta: T) -> None:
        if self.writer.failed:
            return
        try:
            payload = self._render(delta)
            if payload:
                self.writer.write(payload)
        except Exception:
            log.exception("rendering a streamed delta failed; the stream ends here")
            self.writer.fail()


class _Stream(StreamingResponse):
    """A streaming response that calls ``cancel`` once it is over, however it ended: a client that left before
    the body began never runs the body's generators, so their own clean-up cannot be relied on."""

    def __init__(self, content: AsyncIterator[bytes], *, cancel: Callable[[], None], media_type: str,
                 headers: Mapping[str, str] | None) -> None:
        super().__init__(content, media_type=media_type, headers=headers)
        self._cancel = cancel

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self._cancel()


class DirectStream(_Stream):
    """A streaming response whose body goes through a ChunkWriter the engine thread also writes to.

    ``lead`` goes out first, ahead of every delta the engine queued while the head was on its way; then what
    the body iterator yields (the frames the loop writes itself: the end of the reply, keep-alives, errors).
    """

    def __init__(self, content: AsyncIterator[bytes], *, writer: ChunkWriter, connection: Connection, lead: bytes,
                 cancel: Callable[[], None], media_type: str, headers: Mapping[str, str] | None) -> None:
        super().__init__(content, cancel=cancel, media_type=media_type, headers=headers)
        self._content = content  # typed as bytes, unlike Starlette's body_iterator
        self._lead = lead
        self.writer = writer
        self.connection = connection

    async def stream_response(self, send: Send) -> None:
        await send({"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers})
        cycle, transport = self.connection.cycle, self.connection.transport
        self.writer.on_failure(self._abandon)
        try:
            if cycle.disconnected:
                return  # the client left before the head went out; __call__ cancels the generation
            if cycle.chunked_encoding is not True:  # uvicorn chunks every body of unknown length; guard anyway
                raise RuntimeError("a direct stream needs a chunked response")
            while transport.get_write_buffer_size() and not cycle.disconnected:
                await asyncio.sleep(0.002)  # the head is still in uvicorn's buffer; our bytes go after it
            fd = self.connection.live_fd()
            if fd < 0:
                return
            self.writer.open(fd, self._lead)  # no await since live_fd: the descriptor is this connection's
            async for chunk in self._content:
                self.writer.write(chunk)
            await self.writer.drain()
            if self.writer.failed:  # the connection is being aborted; uvicorn's notice cancels this task
                for _ in range(100):
                    if cycle.disconnected:
                        return
                    await asyncio.sleep(0.01)
                return
        finally:
            # A cancelled stream (the client left) had the cancellation thrown through its generators, whose own
            # clean-up cancels the generation; the response's __call__ cancels it too. Here only the descriptor
            # is left to close.
            self.writer.close()
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    def _abandon(self) -> None:
        """The output is lost mid-body: stop generating, and abort the connection so that the client sees a
        body cut short (never a clean end) and uvicorn does not reuse the connection."""
        self._cancel()
        self.connection.transport.abort()


class DeltaStream:
    """One streamed reply: written directly when its connection allows (see the module), else the usual way.

    Make it before the generation starts, pass ``hook(render)`` to ``ServedModel.generate`` as ``direct``, and
    answer with ``response``. ``render`` turns a delta into the bytes of its frame (None: nothing to send); it
    runs on the engine thread when the stream is direct, so it must only read state fixed before the start.
    """

    def __init__(self, scope: Mapping[str, Any], *, allowed: bool = True) -> None:
        self.connection = direct_connection(scope) if allowed else None
        self.writer = ChunkWriter(asyncio.get_running_loop()) if self.connection else None

    def hook(self, render: Callable[[TextDelta], bytes | None]) -> DeltaHook[TextDelta] | None:
        return DeltaHook(self.writer, render) if self.writer is not None else None

    def response(self, lead: bytes, body: AsyncIterator[bytes], *, cancel: Callable[[], None], media_type: str,
                 headers: Mapping[str, str] | None = None) -> StreamingResponse:
        """The response: ``lead`` (frames that precede every delta), then the body iterator's frames; ``cancel``
        (the generation's) runs when the response is over, and stops whatever is still generating."""
        if self.writer is not None and self.connection is not None:
            return DirectStream(body, writer=self.writer, connection=self.connection, lead=lead, cancel=cancel,
                                media_type=media_type, headers=headers)
        return _Stream(_after(lead, body), cancel=cancel, media_type=media_type, headers=headers)


async def _after(lead: bytes, body: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
    if lead:
        yield lead
    async for chunk in body:
        yield chunk
