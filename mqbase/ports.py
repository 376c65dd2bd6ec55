"""Free TCP ports, for listeners whose address must be known before they bind (``haListenPort=0``, sandboxes).

A port chosen now is bound later, by another process, and two things can take it in between (both did, in CI):
an outgoing connection, which the kernel gives a local port from its ephemeral range, and another process
choosing at the same time. So ports are chosen below the ephemeral range, and each choice is reserved for
``RESERVATION_S`` in a file every chooser on the host reads and writes under a lock.
"""

from __future__ import annotations

import fcntl
import json
import random
import socket
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

RESERVATION_S = 120.0
"""How long a chosen port is not chosen again: the time a sandbox may take to start what binds it."""
SPAN = 16384
"""How many ports below the ephemeral range are chosen from."""
_LOWEST = 1024
_EPHEMERAL = Path("/proc/sys/net/ipv4/ip_local_port_range")
_BOOK = Path(tempfile.gettempdir()) / "mqadmin-ports.json"


def candidates(ephemeral_low: int, start: int) -> list[int]:
    """The ports to try, in order: the `SPAN` below `ephemeral_low` (above 1023), beginning at `start`'s place."""
    low = max(_LOWEST, ephemeral_low - SPAN)
    ports = list(range(low, max(low, ephemeral_low)))
    if not ports:
        return []
    at = start % len(ports)
    return ports[at:] + ports[:at]


def choose(
    count: int, ordered: Iterable[int], reserved: Mapping[int, float], now: float, bindable: Callable[[int], bool]
) -> list[int]:
    """The first `count` of `ordered` that no live reservation holds (one expiring after `now`) and that bind."""
    chosen: list[int] = []
    for port in ordered:
        if len(chosen) == count:
            break
        if reserved.get(port, 0.0) > now or not bindable(port):
            continue
        chosen.append(port)
    return chosen


def free_ports(count: int, host: str = "127.0.0.1") -> list[int]:
    """`count` different ports free on `host` now and reserved for `RESERVATION_S` (the OS's, when none of the
    range below its ephemeral ports is left)."""
    held: list[socket.socket] = []

    def bindable(port: int) -> bool:
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            s.bind((host, port))
        except OSError:
            s.close()
            return False
        held.append(s)  # held until all are chosen, so that a port is not offered twice
        return True

    try:
        with _BOOK.with_suffix(".lock").open("a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            now = time.time()
            reserved = {port: until for port, until in _read_book().items() if until > now}
            chosen = choose(count, candidates(_ephemeral_low(), random.randrange(SPAN)), reserved, now, bindable)
            while len(chosen) < count:
                chosen.append(_os_port(host, held))
            reserved.update(dict.fromkeys(chosen, now + RESERVATION_S))
            _write_book(reserved)
            return chosen
    finally:
        for s in held:
            s.close()


def free_port(host: str = "127.0.0.1") -> int:
    """One port free on `host` now, reserved like `free_ports`'."""
    return free_ports(1, host)[0]


def _os_port(host: str, held: list[socket.socket]) -> int:
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    held.append(s)
    s.bind((host, 0))
    return int(s.getsockname()[1])


def _ephemeral_low() -> int:
    try:
        return int(_EPHEMERAL.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768  # Linux's default


def _read_book() -> dict[int, float]:
    try:
        raw = json.loads(_BOOK.read_text())
        return {int(port): float(until) for port, until in raw.items()}
    except (OSError, ValueError, AttributeError):
        return {}  # none yet, or damaged: a fresh book costs nothing but the reservations in it


def _write_book(reserved: Mapping[int, float]) -> None:
    tmp = _BOOK.with_suffix(".tmp")
    tmp.write_text(json.dumps({str(port): until for port, until in reserved.items()}))
    tmp.replace(_BOOK)
