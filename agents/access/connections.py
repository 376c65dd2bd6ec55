"""The RocketMQ 5 clients connected through one access point, for ``consumerConnection``, ``producerConnection``
and ``consumerStatus``.

A client announces itself with its settings on the Telemetry stream (who it is, which group or topics) and then
heartbeats (every 10 s for Java's and the Python client); Java's broker drops a client channel it has not heard
from for ``channelExpiredTimeout`` (120 s), and so does this registry. Pure: the caller passes the clock readings
(monotonic seconds for expiry, epoch ms to show), and a lock guards the table, which the access point's loop
writes and the agent API's threads read.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, replace

CHANNEL_EXPIRED_S = 120.0
"""Java ``BrokerConfig.channelExpiredTimeout``: a client not heard from for this long is gone."""


@dataclass(frozen=True, slots=True)
class Connection:
    """One client as its last settings and heartbeat describe it."""

    client_id: str
    address: str
    language: str
    version: str
    client_type: str
    """``PRODUCER``, ``PUSH_CONSUMER``, ``SIMPLE_CONSUMER`` (v2 ``ClientType``), or ``UNSPECIFIED``."""
    group: str
    """A consumer's group; ``""`` for a producer."""
    subscriptions: Mapping[str, str]
    """topic → filter expression (a consumer), topic → ``""`` (a producer's topics)."""
    last_seen: float
    last_seen_ms: int

    @property
    def consumer(self) -> bool:
        return bool(self.group)


class Connections:
    """Live clients by client id; expired ones are dropped when the table is read."""

    def __init__(self, expire_s: float = CHANNEL_EXPIRED_S) -> None:
        self._expire_s = expire_s
        self._lock = threading.Lock()
        self._clients: dict[str, Connection] = {}

    def announce(self, connection: Connection) -> None:
        """A client's settings (Telemetry): who it is, replacing what an earlier announcement said."""
        with self._lock:
            self._clients[connection.client_id] = connection

    def heard(self, client_id: str, address: str, now: float, now_ms: int) -> None:
        """A heartbeat (or any call) from `client_id`: it is alive; unknown ids (no settings yet) are ignored."""
        with self._lock:
            known = self._clients.get(client_id)
            if known is not None:
                self._clients[client_id] = replace(known, address=address or known.address, last_seen=now,
                                                   last_seen_ms=now_ms)  # fmt: skip

    def forget(self, client_id: str) -> None:
        """The client said it terminates (NotifyClientTermination)."""
        with self._lock:
            self._clients.pop(client_id, None)

    def alive(self, now: float, *, group: str = "", topic: str = "") -> list[Connection]:
        """The clients heard from within the expiry, by client id: consumers of `group`, or clients publishing
        to `topic` (producers), or every one when both are empty."""
        with self._lock:
            for client_id in [c for c, conn in self._clients.items() if now - conn.last_seen > self._expire_s]:
                del self._clients[client_id]
            clients = sorted(self._clients.values(), key=lambda c: c.client_id)
        if group:
            clients = [c for c in clients if c.group == group]
        if topic:
            clients = [c for c in clients if not c.consumer and topic in c.subscriptions]
        return clients
