"""gRPC channels by address, and the one place that turns transport errors into ``MqError``.

DEADLINE_EXCEEDED becomes TimedOut (exit 3); every other status becomes the
caller's "unavailable" error (exit 5): the controller and broker clients
differ only in which stub they use and how they name the peer. Channels are
TLS or plaintext, and sign their calls, as their ``ClientSecurity`` says.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

os.environ.setdefault("GRPC_VERBOSITY", "ERROR")

import grpc

from mqbase.errors import MqError, TimedOut
from mqbase.security import PLAINTEXT, ClientSecurity, open_channel, transport_hint


class Channels:
    """Channels cached per address; `invoke` runs one RPC with the shared timeout."""

    def __init__(
        self, timeout: float, unavailable: type[MqError], peer: str, security: ClientSecurity = PLAINTEXT
    ) -> None:
        self.timeout = timeout
        self._unavailable = unavailable
        self._peer = peer
        self._security = security
        self._channels: dict[str, grpc.Channel] = {}

    def channel(self, address: str) -> grpc.Channel:
        channel = self._channels.get(address)
        if channel is None:
            channel = self._channels[address] = open_channel(address, self._security)
        return channel

    def invoke(self, address: str, stub_type: Callable[[grpc.Channel], Any], method: str, request: Any) -> Any:
        """One RPC to one address; transport errors become TimedOut or the unavailable error."""
        try:
            return getattr(stub_type(self.channel(address)), method)(request, timeout=self.timeout)
        except grpc.RpcError as exc:
            code = exc.code() if hasattr(exc, "code") else None
            if code == grpc.StatusCode.DEADLINE_EXCEEDED:
                raise TimedOut(f"{method} to {self._peer} {address} timed out after {self.timeout:.3g} s") from exc
            detail = code.name if code else str(exc)
            if code == grpc.StatusCode.UNAVAILABLE:
                detail += f"; {transport_hint(self._security)}"
            raise self._unavailable(f"{self._peer} {address} unreachable ({detail})") from exc

    def close(self) -> None:
        for channel in self._channels.values():
            channel.close()
        self._channels.clear()
