"""--web takes a loopback address only; the listener answers to its own Host and Origin values."""

from __future__ import annotations

import pytest

from superfluid.web.address import WebAddress, WebAddressError


@pytest.mark.parametrize(("text", "host", "port"), [
    ("127.0.0.1:8454", "127.0.0.1", 8454), ("localhost:9000", "127.0.0.1", 9000), ("[::1]:8454", "::1", 8454),
    ("127.0.0.2:1", "127.0.0.2", 1)])
def test_loopback_addresses_are_taken(text: str, host: str, port: int) -> None:
    assert WebAddress.parse(text) == WebAddress(host, port)


@pytest.mark.parametrize("text", ["0.0.0.0:8454", "192.168.1.2:8454", "[::]:8454", "example.com:8454", "8454",
                                  ":8454", "127.0.0.1:http", "127.0.0.1:70000"])
def test_anything_else_is_refused_with_a_reason(text: str) -> None:
    with pytest.raises(WebAddressError, match="--web"):
        WebAddress.parse(text)


def test_hosts_and_origins_are_the_listeners_own() -> None:
    address = WebAddress.parse("127.0.0.1:8454")
    assert address.hosts() == {"127.0.0.1:8454", "localhost:8454"}
    assert address.origins(9000) == {"http://127.0.0.1:9000", "http://localhost:9000"}
    assert WebAddress.parse("[::1]:1").hosts() == {"[::1]:1", "localhost:1"}
    assert address.url() == "http://127.0.0.1:8454/"


def test_a_port_another_process_holds_is_reported() -> None:
    import socket

    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        problem = WebAddress.parse(f"127.0.0.1:{port}").unbindable()
    assert problem is not None and problem.startswith(f"--web 127.0.0.1:{port}: cannot listen there")
    assert WebAddress("127.0.0.1", port).unbindable() is None  # free again
