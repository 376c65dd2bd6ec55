"""gRPC channels by address, and the one place that turns transport errors into ``MqError``.

DEADLINE_EXCEEDED becomes TimedOut (exit 3); UNIMPLEMENTED from a server of another kind (an agent given as a
controller) becomes WrongPeer (exit 2), naming what it is; every other status becomes the
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

from mqbase.errors import MqError, TimedOut, WrongPeer
from mqbase.security import PLAINTEXT, ClientSecurity, open_channel, transport_hint

SERVICES = {
    "mqadmin.controller.v1.ControllerService": "a controller (give it with -a or MQADMIN_CONTROLLERS)",
    "mqadmin.agent.v1.AgentService": "a broker agent, mqagent (give it with -b/--brokerAddr, or listBrokers -c)",
    "apache.rocketmq.v2.MessagingService": "a RocketMQ 5 access point, for RocketMQ 5 clients",
}
"""What each gRPC service of the project is, as the error for a wrong address names it."""


class Channels:
    """Channels cached per address; `invoke` runs one RPC with the shared timeout.

    `hint`: add the TLS hint to each "unreachable" error (a caller that sums up several addresses adds it once).
    """

    def __init__(
        self,
        timeout: float,
        unavailable: type[MqError],
        peer: str,
        security: ClientSecurity = PLAINTEXT,
        *,
        hint: bool = True,
    ) -> None:
        self.timeout = timeout
        self._unavailable = unavailable
        self._peer = peer
        self._security = security
        self._hint = hint
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
            if code == grpc.StatusCode.UNIMPLEMENTED and (other := self._served_instead(address)):
                raise WrongPeer(f"{address} is not a {self._peer}: it is {other}") from exc
            detail = code.name if code else str(exc)
            if code == grpc.StatusCode.UNAVAILABLE and self._hint:
                detail += f"; {transport_hint(self._security)}"
            raise self._unavailable(f"{self._peer} {address} unreachable ({detail})") from exc

    def _served_instead(self, address: str) -> str | None:
        """What the server at `address` is, as its reflection lists its services (None if it does not say): an
        UNIMPLEMENTED answer means something answered, only not the API this caller wanted."""
        from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

        stub = reflection_pb2_grpc.ServerReflectionStub(self.channel(address))
        ask = reflection_pb2.ServerReflectionRequest(list_services="")
        try:
            answers = list(stub.ServerReflectionInfo(iter([ask]), timeout=min(self.timeout, 2.0)))
        except grpc.RpcError:
            return None
        names = [s.name for a in answers for s in a.list_services_response.service]
        return next((SERVICES[n] for n in names if n in SERVICES), None)

    def close(self) -> None:
        for channel in self._channels.values():
            channel.close()
        self._channels.clear()
