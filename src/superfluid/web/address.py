"""The web listener's address (``--web HOST:PORT``): loopback only, and the Host and Origin values it answers to."""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass


class WebAddressError(ValueError):
    """--web names an address the web listener may not use; serve stops with this message."""


@dataclass(frozen=True)
class WebAddress:
    host: str
    """What the listener binds: a loopback IP address (``localhost`` binds 127.0.0.1)."""
    port: int

    @classmethod
    def parse(cls, text: str) -> WebAddress:
        """``127.0.0.1:8454``, ``[::1]:8454`` or ``localhost:8454``; any address that is not loopback is refused."""
        host, sep, port_text = text.rpartition(":")
        if not sep or not host:
            raise WebAddressError(f"--web takes HOST:PORT, such as 127.0.0.1:8454; got '{text}'")
        try:
            port = int(port_text)
        except ValueError:
            raise WebAddressError(f"--web '{text}': the port must be a number") from None
        if not 0 < port < 65536:
            raise WebAddressError(f"--web '{text}': the port must be between 1 and 65535")
        host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
        if host == "localhost":
            return cls("127.0.0.1", port)
        try:
            ip = ipaddress.ip_address(host)
        except ValueError:
            raise WebAddressError(f"--web '{text}': the host must be a loopback address (127.0.0.1, ::1 or "
                                  "localhost), not a name") from None
        if not ip.is_loopback:
            raise WebAddressError(f"--web '{text}': the web listener is loopback-only (127.0.0.1, ::1 or "
                                  f"localhost); {host} is not a loopback address")
        return cls(str(ip), port)

    def unbindable(self) -> str | None:
        """Why the listener cannot bind its address now (say, another process holds the port), or None."""
        family = socket.AF_INET6 if ipaddress.ip_address(self.host).version == 6 else socket.AF_INET
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind((self.host, self.port))
            except OSError as exc:
                return f"--web {self.host}:{self.port}: cannot listen there: {exc.strerror or exc}"
        return None

    def hosts(self, port: int | None = None) -> frozenset[str]:
        """The exact ``Host`` header values a browser sends to this listener (``port``: the bound one, when the
        listener was asked for port 0)."""
        port = port or self.port
        ip = ipaddress.ip_address(self.host)
        literal = f"[{self.host}]" if ip.version == 6 else self.host
        return frozenset({f"{literal}:{port}", f"localhost:{port}"})

    def origins(self, port: int | None = None) -> frozenset[str]:
        return frozenset(f"http://{host}" for host in self.hosts(port))

    def url(self, port: int | None = None) -> str:
        ip = ipaddress.ip_address(self.host)
        literal = f"[{self.host}]" if ip.version == 6 else self.host
        return f"http://{literal}:{port or self.port}/"
