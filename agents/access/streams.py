"""The open Telemetry streams of one access point, by client id: what lets the server send a client a command of
its own (a transaction check-back) rather than only answer its settings.

Each stream's handler owns an ``asyncio.Queue`` of the commands it writes out; a client's latest stream is the one
commands go to. Used on the access point's loop only.
"""

from __future__ import annotations

import asyncio
from typing import Any


class Streams:
    """Client id → the outgoing queue of its open Telemetry stream."""

    def __init__(self) -> None:
        self._open: dict[str, asyncio.Queue[Any]] = {}

    def opened(self, client_id: str, outgoing: asyncio.Queue[Any]) -> None:
        self._open[client_id] = outgoing

    def closed(self, client_id: str, outgoing: asyncio.Queue[Any]) -> None:
        """The stream ended; a newer stream of the same client stays."""
        if self._open.get(client_id) is outgoing:
            del self._open[client_id]

    def has(self, client_id: str) -> bool:
        return client_id in self._open

    def push(self, client_id: str, command: Any) -> bool:
        """Send `command` down the client's stream; False when it has none open."""
        outgoing = self._open.get(client_id)
        if outgoing is None:
            return False
        outgoing.put_nowait(command)
        return True
