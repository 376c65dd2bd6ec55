"""Sockets for HA replication: the only module of ``agents`` that owns sockets.

Blocking sockets driven by ``poll`` with a self-pipe to wake a connection
when there is new data to send, and ``os.sendfile`` to move commit-log bytes
from the segment file to the socket without copying them through Python.
OS errors are translated to ``ConnectionLost`` here and nowhere else.
"""

from __future__ import annotations

import contextlib
import math
import os
import select
import socket

from agents.errors import AgentError

Connection = socket.socket
"""A connected TCP socket; other modules name the type through this alias."""


class ConnectionLost(AgentError):
    """The peer went away or the socket failed; the message says how."""


def _readable(fds: list[int], timeout: float) -> set[int]:
    """The descriptors of `fds` that are readable (or hung up, or failed) within `timeout` seconds.

    ``poll``, not ``select``: a broker holds a descriptor per consume-queue file, so with a thousand queues its
    sockets get numbers above select's limit of 1024, and select refuses them (ValueError).
    """
    poller = select.poll()
    for fd in fds:
        poller.register(fd, select.POLLIN)
    return {fd for fd, _ in poller.poll(math.ceil(max(timeout, 0.0) * 1000))}


class Wakeup:
    """A self-pipe: ``notify()`` from any thread makes a poll on ``fileno()`` return."""

    def __init__(self) -> None:
        self._r, self._w = os.pipe()
        os.set_blocking(self._r, False)
        os.set_blocking(self._w, False)

    def fileno(self) -> int:
        return self._r

    def notify(self) -> None:
        with contextlib.suppress(BlockingIOError, OSError):
            os.write(self._w, b"x")

    def drain(self) -> None:
        with contextlib.suppress(BlockingIOError, OSError):
            while os.read(self._r, 4096):
                pass

    def close(self) -> None:
        for fd in (self._r, self._w):
            with contextlib.suppress(OSError):
                os.close(fd)


def listen(host: str, port: int) -> socket.socket:
    """A listening TCP socket (port 0 picks a free one)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise ConnectionLost(f"cannot listen on {host}:{port}: {exc.strerror}") from exc
    sock.listen(64)
    return sock


def accept(server: socket.socket, timeout: float) -> socket.socket | None:
    """Accept one connection, or None after `timeout` seconds (or when the server socket closed)."""
    try:
        if not _readable([server.fileno()], timeout):
            return None
        conn, _ = server.accept()
    except (OSError, ValueError):
        return None
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return conn


def connect(address: str, timeout: float) -> socket.socket:
    """Connect to ``host:port``."""
    host, _, port = address.rpartition(":")
    try:
        sock = socket.create_connection((host, int(port)), timeout=timeout)
    except (OSError, ValueError) as exc:
        raise ConnectionLost(f"cannot connect to {address}: {exc}") from exc
    sock.settimeout(None)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def wait_readable(sock: socket.socket, wakeup: Wakeup | None, timeout: float) -> bool:
    """Block until the socket is readable (True), the wakeup fired or the timeout passed (False)."""
    watched = [sock.fileno()] if wakeup is None else [sock.fileno(), wakeup.fileno()]
    try:
        ready = _readable(watched, timeout)
    except (OSError, ValueError) as exc:
        raise ConnectionLost(f"poll failed: {exc}") from exc
    if wakeup is not None and wakeup.fileno() in ready:
        wakeup.drain()
    return watched[0] in ready


def receive(sock: socket.socket, limit: int = 1 << 20) -> bytes:
    """Read what is available (at most `limit` bytes); an orderly close raises ConnectionLost."""
    try:
        data = sock.recv(limit)
    except OSError as exc:
        raise ConnectionLost(f"receive failed: {exc.strerror or exc}") from exc
    if not data:
        raise ConnectionLost("peer closed the connection")
    return data


def receive_into(sock: socket.socket, buffer: memoryview) -> int:
    """Receive what is available straight into `buffer` (no intermediate bytes); returns the count.

    An orderly close raises ConnectionLost.
    """
    try:
        n = sock.recv_into(buffer)
    except OSError as exc:
        raise ConnectionLost(f"receive failed: {exc.strerror or exc}") from exc
    if not n:
        raise ConnectionLost("peer closed the connection")
    return n


def send_all(sock: socket.socket, data: bytes, *, more: bool = False) -> None:
    """Send all of `data`; `more`: the caller sends more at once (MSG_MORE: one segment with what follows)."""
    try:
        sock.sendall(data, socket.MSG_MORE if more else 0)
    except OSError as exc:
        raise ConnectionLost(f"send failed: {exc.strerror or exc}") from exc


def send_file(sock: socket.socket, fd: int, position: int, size: int) -> None:
    """Send `size` bytes of file `fd` from `position` with sendfile (no copy through Python)."""
    sent = 0
    try:
        while sent < size:
            n = os.sendfile(sock.fileno(), fd, position + sent, size - sent)
            if n == 0:
                raise ConnectionLost("sendfile wrote nothing: the file is shorter than expected")
            sent += n
    except OSError as exc:
        raise ConnectionLost(f"sendfile failed: {exc.strerror or exc}") from exc


def close(sock: socket.socket | None) -> None:
    if sock is None:
        return
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)
    with contextlib.suppress(OSError):
        sock.close()
