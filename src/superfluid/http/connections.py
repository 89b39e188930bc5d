"""Connection limits: uvicorn's httptools protocol with bounded request heads, read timeouts and a connection cap.

uvicorn reads request heads of any size (httptools gathers a header value in memory until it ends), waits
forever for a head or a body that never completes, and accepts connections until the process runs out of file
descriptors, after which every client fails and nothing is logged. This protocol adds, per connection:

* **head limits**: more than ``--max-header-count`` header fields, or a request line and headers over
  ``--max-header-bytes``, is answered 431 and the connection closed; at most one network read beyond the limit
  is ever held in memory.
* **head timeout**: a request head must be complete within ``--timeout-headers`` seconds of the connection
  opening or of the request's first byte (slowloris). A client that sent part of a head gets 408; one that sent
  nothing is closed silently, as uvicorn closes an idle keep-alive connection (``--timeout-keep-alive``).
* **body timeout**: a request body that goes ``--timeout-body`` seconds without a byte is answered 408 (or, when
  a response has already begun, the connection is closed). Time while the server itself holds back reading
  (flow control) does not count.

and per server, a **connection cap** (``--max-connections``): a new connection over the cap closes the connection
that has been idle longest (no request running: a client between requests, or one still sending a head), as
nginx reuses keep-alive connections when it runs short; with none idle, the new connection gets 503 and is
closed. Refusals are logged (at most one line per ten seconds, with a count), so an idle-connection flood
neither exhausts descriptors nor locks out ``/health``.

Only the protocol changes: the request cycle is uvicorn's own, so direct streams (http/direct.py) find it.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import httptools
from uvicorn.protocols.http.httptools_impl import STATUS_LINE, HttpToolsProtocol

from superfluid.errors import HeaderFieldsTooLarge, RequestTimeout, SuperfluidError, TooManyConnections
from superfluid.http.dialect import Dialect, error_body
from superfluid.settings import Settings

log = logging.getLogger(__name__)

LOG_EVERY_S = 10.0
LINGER_S = 2.0
"""After answering a request it refuses mid-stream (431, 408), the server reads and drops what the client still
sends for up to this long before closing: closing with unread input makes the kernel reset the connection, and
the client may never see the answer (nginx's lingering close)."""
LINGER_BYTES = 8 * 1024 * 1024
"""...and reads at most this much before closing anyway: a client still sending past it is not listening."""


@dataclass(frozen=True)
class ConnectionLimits:
    max_connections: int = 1024
    max_header_count: int = 100
    max_header_bytes: int = 64 * 1024
    timeout_headers_s: float = 30.0
    timeout_body_s: float = 30.0

    @classmethod
    def from_settings(cls, settings: Settings) -> ConnectionLimits:
        return cls(max_connections=settings.max_connections, max_header_count=settings.max_header_count,
                   max_header_bytes=settings.max_header_bytes, timeout_headers_s=settings.timeout_headers_s,
                   timeout_body_s=settings.timeout_body_s)

    @property
    def sweep_s(self) -> float:
        """How often the timeouts are checked: a quarter of the shorter one, between 0.05 and 1 s."""
        return max(0.05, min(1.0, min(self.timeout_headers_s, self.timeout_body_s) / 4))


class _HeadTooLarge(Exception):
    """Raised from a parser callback to stop parsing a head over the limits."""


class _RateLimitedLog:
    """A warning logged at most once per LOG_EVERY_S, counting what happened in between."""

    def __init__(self, message: str) -> None:
        self.message = message
        self.count = 0
        self.last = -LOG_EVERY_S

    def note(self, detail: str) -> None:
        self.count += 1
        now = time.monotonic()
        if now - self.last >= LOG_EVERY_S:
            log.warning("%s: %d since the last report; %s", self.message, self.count, detail)
            self.count, self.last = 0, now


class ConnectionTable:
    """The open connections of one server (event-loop thread only); the idle ones in the order they became idle."""

    def __init__(self, limits: ConnectionLimits) -> None:
        self.limits = limits
        self.open: set[LimitedHttpToolsProtocol] = set()
        self.idle: OrderedDict[LimitedHttpToolsProtocol, None] = OrderedDict()
        self.evicted = 0
        self.refused = 0
        self._sweeping = False
        self._evictions = _RateLimitedLog("closed idle connections to admit new ones (--max-connections)")
        self._refusals = _RateLimitedLog("refused connections: 503 (--max-connections)")

    def admit(self, protocol: LimitedHttpToolsProtocol) -> bool:
        """Room for a new connection: evict the longest-idle one if at the cap; False when none can go."""
        if len(self.open) >= self.limits.max_connections:
            if not self.idle:
                self.refused += 1
                self._refusals.note(f"{len(self.open)} open, every one busy with a request")
                return False
            victim, _ = self.idle.popitem(last=False)
            self.open.discard(victim)
            victim.evict()
            self.evicted += 1
            self._evictions.note(f"cap {self.limits.max_connections}")
        self.open.add(protocol)
        self.idle[protocol] = None
        if not self._sweeping:
            self._sweeping = True
            asyncio.get_running_loop().call_later(self.limits.sweep_s, self._sweep)
        return True

    def busy(self, protocol: LimitedHttpToolsProtocol) -> None:
        self.idle.pop(protocol, None)

    def resting(self, protocol: LimitedHttpToolsProtocol) -> None:
        if protocol in self.open:
            self.idle[protocol] = None
            self.idle.move_to_end(protocol)

    def gone(self, protocol: LimitedHttpToolsProtocol) -> None:
        self.open.discard(protocol)
        self.idle.pop(protocol, None)

    def _sweep(self) -> None:
        now = time.monotonic()
        for protocol in list(self.open):
            protocol.check_timeouts(now)
        if self.open:
            asyncio.get_running_loop().call_later(self.limits.sweep_s, self._sweep)
        else:
            self._sweeping = False


class LimitedHttpToolsProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with the limits above; ``table`` is set on the subclass ``protocol_class``
    makes for one server."""

    table: ConnectionTable

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._in_head = True
        self._in_body = False
        self._head_started = time.monotonic()
        self._head_bytes = 0
        self._header_count = 0
        self._head_size = 0
        self._last_body = 0.0
        self._limited = False
        self._dropped = 0

    # ---- connection -------------------------------------------------------------------------------
    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if not self.table.admit(self):
            error = TooManyConnections(f"the server has {self.table.limits.max_connections} connections open, "
                                       "each with a request running; try again shortly",
                                       headers={"retry-after": "1"})
            self._answer_and_close(error, "", linger=False)  # a flood must not hold descriptors

    def connection_lost(self, exc: Exception | None) -> None:
        self.table.gone(self)
        super().connection_lost(exc)

    def evict(self) -> None:
        """Close this idle connection to make room for another."""
        self._limited = True
        if not self.transport.is_closing():
            self.transport.close()

    # ---- bytes in ---------------------------------------------------------------------------------
    def data_received(self, data: bytes) -> None:
        if self._limited:
            self._dropped += len(data)
            if self._dropped > LINGER_BYTES and not self.transport.is_closing():
                self.transport.close()
            return
        self._unset_keepalive_if_required()
        if self._in_body:
            self._last_body = time.monotonic()
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserCallbackError as exc:
            if isinstance(exc.__context__, _HeadTooLarge):
                self._head_too_large(str(exc.__context__))
                return
            self._bad_request()
            return
        except httptools.HttpParserError:
            self._bad_request()
            return
        except httptools.HttpParserUpgrade:
            if self._should_upgrade():
                self.handle_websocket_upgrade()
            else:
                self._unsupported_upgrade_warning()
            return
        if self._in_head and not self._limited:
            self._head_bytes += len(data)  # a head still incomplete: httptools holds it all in memory
            if self._head_bytes > self.table.limits.max_header_bytes:
                self._head_too_large(self._size_message())

    def _bad_request(self) -> None:
        msg = "Invalid HTTP request received."
        self.logger.warning(msg)
        self._limited = True
        self.send_400_response(msg)

    # ---- parser callbacks -------------------------------------------------------------------------
    def on_message_begin(self) -> None:
        super().on_message_begin()
        if not self._in_head:
            self._in_head, self._head_started, self._head_bytes = True, time.monotonic(), 0
        self._header_count, self._head_size = 0, 0

    def on_url(self, url: bytes) -> None:
        self._head_size += len(url)
        if self._head_size > self.table.limits.max_header_bytes:
            raise _HeadTooLarge(self._size_message())
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        limits = self.table.limits
        self._header_count += 1
        self._head_size += len(name) + len(value) + 4
        if self._header_count > limits.max_header_count:
            raise _HeadTooLarge(f"the request has more than {limits.max_header_count} header fields "
                                "(--max-header-count)")
        if self._head_size > limits.max_header_bytes:
            raise _HeadTooLarge(self._size_message())
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        self._in_head = False
        self.table.busy(self)
        self._in_body = _has_body(self.headers)
        self._last_body = time.monotonic()
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        self._in_body = False
        super().on_message_complete()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if self.timeout_keep_alive_task is not None:  # nothing pipelined: the connection rests until the next
            self._in_head = False
            self.table.resting(self)

    # ---- limits -----------------------------------------------------------------------------------
    def check_timeouts(self, now: float) -> None:
        """Called by the table's sweep: close a connection whose head or body is overdue."""
        if self._limited or self.transport is None or self.transport.is_closing() or self.flow.read_paused:
            return
        limits = self.table.limits
        if self._in_head and now - self._head_started > limits.timeout_headers_s:
            if self._head_bytes or self._head_size:
                self._answer_and_close(RequestTimeout(
                    f"the request head was not complete within {limits.timeout_headers_s:g} s "
                    "(--timeout-headers)"), self._path())
            else:
                self._limited = True
                self.transport.close()
        elif self._in_body and now - self._last_body > limits.timeout_body_s:
            self._answer_and_close(RequestTimeout(
                f"the request body stalled: no byte for {limits.timeout_body_s:g} s (--timeout-body)"),
                self._path())

    def _size_message(self) -> str:
        limit = self.table.limits.max_header_bytes
        return f"the request line and headers are larger than {limit:,} bytes (--max-header-bytes)"

    def _head_too_large(self, message: str) -> None:
        self._answer_and_close(HeaderFieldsTooLarge(message), self._path())

    def _path(self) -> str:
        url = getattr(self, "url", b"") or b""
        return bytes(url).split(b"?", 1)[0].decode("latin-1")

    def _answer_and_close(self, error: SuperfluidError, path: str, *, linger: bool = True) -> None:
        """Answer ``error`` in the path's dialect (unless a response already began) and close the connection."""
        self._limited = True
        self._in_head = self._in_body = False
        cycle = self.cycle
        started = cycle is not None and not cycle.response_complete and cycle.response_started
        if cycle is not None and not cycle.response_complete:
            cycle.disconnected = True  # the app's later sends go nowhere; its receive() hears a disconnect
            cycle.message_event.set()
        transport = self.transport
        if started or transport.is_closing():
            if not transport.is_closing():
                transport.close()
            return
        body = json.dumps(error_body(Dialect.for_path(path), error)).encode()
        head = [STATUS_LINE[error.status], b"content-type: application/json\r\n",
                b"content-length: %d\r\n" % len(body), b"connection: close\r\n"]
        head += [b"%s: %s\r\n" % (k.encode(), v.encode()) for k, v in error.headers.items()]
        transport.write(b"".join([*head, b"\r\n", body]))
        if not linger:
            transport.close()
            return
        if transport.can_write_eof():
            transport.write_eof()  # the answer is whole; what the client still sends is read and dropped
        self.flow.resume_reading()
        self.loop.call_later(LINGER_S, transport.close)


def _has_body(headers: list[tuple[bytes, bytes]]) -> bool:
    for name, value in headers:
        if name == b"transfer-encoding":
            return True
        if name == b"content-length":
            return value.strip() not in (b"", b"0")
    return False


def fit_descriptors(limits: ConnectionLimits) -> ConnectionLimits:
    """Make room for the cap in the process's file-descriptor limit: each connection takes one descriptor, and
    one more while a direct stream writes to it, besides a reserve for models, pipes and logs. The soft limit is
    raised toward the hard one; when even that is too low, the cap is lowered (with a warning)."""
    import resource

    reserve = 256
    wanted = 2 * limits.max_connections + reserve
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):
            pass
    if soft != resource.RLIM_INFINITY and soft < wanted:
        fitted = max(16, (soft - reserve) // 2)
        log.warning("the file-descriptor limit is %d: --max-connections lowered from %d to %d", soft,
                    limits.max_connections, fitted)
        return ConnectionLimits(**{**limits.__dict__, "max_connections": fitted})
    return limits


def protocol_class(limits: ConnectionLimits) -> type[LimitedHttpToolsProtocol]:
    """A protocol class for one server: its connections share one table."""
    return type("ServerHttpToolsProtocol", (LimitedHttpToolsProtocol,), {"table": ConnectionTable(limits)})
