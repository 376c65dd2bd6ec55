"""The fault-injection proxy on real loopback sockets: pass, drop and blackhole, and healing."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator

import pytest

from tests.harness.chaos.proxy import Mode, ProxyHub


@pytest.fixture
def echo() -> Iterator[int]:
    """An echo server on 127.0.0.1; yields its port."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.2)
    stop = threading.Event()

    def serve(conn: socket.socket) -> None:
        with conn:
            while data := conn.recv(4096):
                conn.sendall(data)

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            threading.Thread(target=serve, args=(conn,), daemon=True).start()

    t = threading.Thread(target=accept, daemon=True)
    t.start()
    yield server.getsockname()[1]
    stop.set()
    t.join(5)
    server.close()


@pytest.fixture
def hub() -> Iterator[ProxyHub]:
    h = ProxyHub()
    yield h
    h.close()


def roundtrip(port: int, payload: bytes, timeout: float = 2.0) -> bytes:
    with socket.create_connection(("127.0.0.4", port), timeout=timeout) as s:
        s.sendall(payload)
        return s.recv(4096)


def test_pass_forwards_both_ways(hub: ProxyHub, echo: int) -> None:
    link = hub.add("l", ("127.0.0.4", 0), ("127.0.0.1", echo))
    port = link.server.sockets[0].getsockname()[1] if link.server else 0
    assert roundtrip(port, b"hello") == b"hello"
    assert link.accepted == 1


def test_drop_resets_open_and_new_connections_and_heals(hub: ProxyHub, echo: int) -> None:
    link = hub.add("l", ("127.0.0.4", 0), ("127.0.0.1", echo))
    port = link.server.sockets[0].getsockname()[1] if link.server else 0
    s = socket.create_connection(("127.0.0.4", port), timeout=2)
    s.sendall(b"a")
    assert s.recv(10) == b"a"
    hub.set_mode("l", Mode.DROP)
    with pytest.raises(OSError):  # reset: the read fails or ends
        if s.recv(10) == b"":
            raise ConnectionResetError
    s.close()
    with pytest.raises(OSError):
        if roundtrip(port, b"b") == b"":
            raise ConnectionResetError
    hub.set_mode("l", Mode.PASS)
    assert roundtrip(port, b"c") == b"c"


def test_blackhole_stalls_and_delivers_what_it_held_once_healed(hub: ProxyHub, echo: int) -> None:
    link = hub.add("l", ("127.0.0.4", 0), ("127.0.0.1", echo))
    port = link.server.sockets[0].getsockname()[1] if link.server else 0
    s = socket.create_connection(("127.0.0.4", port), timeout=0.5)
    s.sendall(b"a")
    assert s.recv(10) == b"a"
    hub.set_mode("l", Mode.BLACKHOLE)
    s.sendall(b"held")
    with pytest.raises(TimeoutError):
        s.recv(10)
    hub.set_mode("l", Mode.PASS)
    s.settimeout(5)
    assert s.recv(10) == b"held"
    s.close()
